// Staff account management (listStaffAccounts, createStaffAccount, updateStaffAccount): admin-only
// writes with CSRF, generated passwords, duplicate emails, the self-change and last-admin rules
// (including two admins demoting each other at once), disabling ending sessions at once, paging and
// tenant isolation.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { updateStaffAccount } from "../../src/accounts/staff-accounts.js";
import { Failure } from "../../src/lib/failure.js";
import { verifyPassword } from "../../src/lib/secrets.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const ACCOUNTS = "/api/v1/staff/accounts";
const SESSION = "/api/v1/staff/session";

interface Account {
  staffId: string;
  email: string;
  role: "admin" | "dpo" | "viewer";
  createdAt: number;
  disabledAt: number | null;
}
type Created = { account: Account; generatedPassword: string | null };
type Headers = Record<string, string>;

describe("staff accounts", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  /** Signed-in headers (cookie + CSRF) per role of `seeded`. */
  const as = {} as Record<"admin" | "dpo" | "viewer", Headers>;
  let adminId: string;

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    for (const role of ["admin", "dpo", "viewer"] as const)
      as[role] = (await signIn(t, seeded, role)).headers;
    adminId = (await t.request({ method: "GET", url: SESSION, headers: as.admin })).json<{
      staffId: string;
    }>().staffId;
  });
  after(() => t.close());

  const list = (headers: Headers, query = "") =>
    t.request({ method: "GET", url: `${ACCOUNTS}${query}`, headers });
  const create = (headers: Headers, payload: Record<string, unknown>) =>
    t.request({ method: "POST", url: ACCOUNTS, headers, payload });
  const update = (headers: Headers, staffId: string, payload: Record<string, unknown>) =>
    t.request({ method: "PATCH", url: `${ACCOUNTS}/${staffId}`, headers, payload });

  const ok = <T>(res: LightMyRequestResponse, status = 200): T => {
    assert.equal(res.statusCode, status, res.body);
    return res.json() as T;
  };

  let serial = 0;
  const freshEmail = () => `staff-${++serial}-${Date.now()}@${seeded.org.slug}.example`;

  /** Signs `email` in to `org`; the raw answer. */
  const signInWith = (org: SeededOrg, email: string, password: string) =>
    t.request({ method: "POST", url: SESSION, payload: { organizationSlug: org.org.slug, email, password } });

  /** A new account of `role` in `seeded`, signed in; its id, password and session headers. */
  async function newSignedIn(role: Account["role"]) {
    const email = freshEmail();
    const password = `pw-${role}-${serial}-long-enough`;
    const { account } = ok<Created>(await create(as.admin, { email, role, password }), 201);
    const res = await signInWith(seeded, email, password);
    assert.equal(res.statusCode, 201, res.body);
    const cookie = res.cookies.find((c) => c.name === "guard_session")!.value;
    const headers = {
      cookie: `guard_session=${cookie}`,
      "x-csrf-token": res.json<{ csrfToken: string }>().csrfToken,
    };
    return { account, email, password, headers };
  }

  async function storedAccount(staffId: string) {
    const [row] = await t.db.query<{ role: string; disabled_at: number | null; password_hash: string }>(
      "SELECT role, disabled_at, password_hash FROM staff_users WHERE staff_id = $1",
      [staffId],
    );
    return row!;
  }

  test("any role lists the organisation's accounts, oldest first, disabled ones included", async () => {
    for (const role of ["admin", "dpo", "viewer"] as const) {
      const body = ok<{ accounts: Account[]; nextCursor: string | null }>(await list(as[role]));
      // Seeded in one instant, so their order among themselves is by id.
      assert.deepEqual(
        body.accounts
          .slice(0, 3)
          .map((a) => [a.email, a.role, a.disabledAt])
          .sort(),
        (["admin", "dpo", "viewer"] as const).map((r) => [seeded.staff[r].email, r, null]),
      );
      assert.equal(body.nextCursor, null);
      assert.ok(body.accounts.every((a) => a.email.endsWith(`@${seeded.org.slug}.example`)));
    }
    const { account } = await newSignedIn("viewer");
    ok(await update(as.admin, account.staffId, { disabled: true }));
    const all = ok<{ accounts: Account[] }>(await list(as.viewer)).accounts;
    const listed = all.find((a) => a.staffId === account.staffId);
    assert.ok(listed && typeof listed.disabledAt === "number", "a disabled account is listed, with its time");
    const keys = all.map((a) => [a.createdAt, a.staffId] as const);
    const sorted = [...keys].sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : 1));
    assert.deepEqual(keys, sorted, "oldest first, ties by id");
  });

  test("paging walks every account once, in order; a cursor works only for its own organisation", async () => {
    const whole = ok<{ accounts: Account[] }>(await list(as.viewer)).accounts.map((a) => a.staffId);
    assert.ok(whole.length >= 4);
    const walked: string[] = [];
    let cursor: string | null = null;
    let first: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const page = ok<{ accounts: Account[]; nextCursor: string | null }>(await list(as.viewer, query));
      assert.ok(page.accounts.length <= 2);
      walked.push(...page.accounts.map((a) => a.staffId));
      cursor = page.nextCursor;
      first ??= cursor;
    } while (cursor);
    assert.deepEqual(walked, whole);
    const otherAdmin = (await signIn(t, other, "admin")).headers;
    assertApiError(await list(otherAdmin, `?cursor=${encodeURIComponent(first!)}`), 400, "VALIDATION_ERROR", {
      field: "cursor",
    });
  });

  test("an admin creates an account with a given password, which then signs in", async () => {
    const email = freshEmail();
    const password = "a-given-password-of-some-length";
    const created = ok<Created>(await create(as.admin, { email, role: "dpo", password }), 201);
    assert.equal(created.generatedPassword, null);
    assert.match(created.account.staffId, /^stf_/);
    assert.deepEqual(
      { ...created.account, staffId: "", createdAt: 0 },
      { staffId: "", email, role: "dpo", createdAt: 0, disabledAt: null },
    );
    assert.equal(created.account.createdAt, t.clock.now());
    const stored = await storedAccount(created.account.staffId);
    assert.notEqual(stored.password_hash, password);
    assert.ok(await verifyPassword(password, stored.password_hash), "stored as a hash of the password");
    const session = ok<{ role: string; staffId: string }>(await signInWith(seeded, email, password), 201);
    assert.deepEqual([session.role, session.staffId], ["dpo", created.account.staffId]);
  });

  test("without a password one is generated (24 base64url characters), shown once, and signs in", async () => {
    const email = freshEmail();
    const created = ok<Created>(await create(as.admin, { email, role: "viewer" }), 201);
    const generated = created.generatedPassword!;
    assert.match(generated, /^[A-Za-z0-9_-]{24}$/);
    const again = ok<Created>(await create(as.admin, { email: freshEmail(), role: "viewer" }), 201);
    assert.notEqual(again.generatedPassword, generated, "each account gets its own");
    const stored = await storedAccount(created.account.staffId);
    assert.ok(!stored.password_hash.includes(generated));
    ok(await signInWith(seeded, email, generated), 201);
    const listed = ok<{ accounts: Account[] }>(await list(as.admin));
    assert.ok(!JSON.stringify(listed).includes(generated), "the password is not listed");
  });

  test("emails are normalised; one already used in the organisation is 409 on email and creates nothing", async () => {
    const email = freshEmail();
    const created = ok<Created>(await create(as.admin, { email: email.toUpperCase(), role: "viewer" }), 201);
    assert.equal(created.account.email, email);
    const count = async () => ok<{ accounts: Account[] }>(await list(as.admin)).accounts.length;
    const before = await count();
    for (const again of [email, email.toUpperCase()]) {
      assertApiError(await create(as.admin, { email: again, role: "dpo" }), 409, "CONFLICT", {
        field: "email",
      });
    }
    assert.equal(await count(), before);
    // Another organisation may use the same email: it is another account.
    const otherAdmin = (await signIn(t, other, "admin")).headers;
    ok(await create(otherAdmin, { email, role: "viewer" }), 201);
  });

  test("bad input is 400 naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ email: freshEmail(), role: "viewer", password: "elevenchars" }, "password"],
      [{ email: freshEmail(), role: "viewer", password: "x".repeat(1025) }, "password"],
      [{ email: freshEmail(), role: "owner" }, "role"],
      [{ email: "not-an-email", role: "viewer" }, "email"],
      [{ role: "viewer" }, "email"],
      [{ email: freshEmail() }, "role"],
    ];
    for (const [payload, field] of cases) {
      assertApiError(await create(as.admin, payload), 400, "VALIDATION_ERROR", { field });
    }
    const target = (await newSignedIn("viewer")).account.staffId;
    assertApiError(await update(as.admin, target, { role: "owner" }), 400, "VALIDATION_ERROR", {
      field: "role",
    });
    assertApiError(await update(as.admin, target, { disabled: "yes" }), 400, "VALIDATION_ERROR", {
      field: "disabled",
    });
    assertApiError(await update(as.admin, target, {}), 400, "VALIDATION_ERROR");
    assertApiError(await update(as.admin, "not-an-id", { role: "dpo" }), 400, "VALIDATION_ERROR", {
      field: "staffId",
    });
    assert.equal((await storedAccount(target)).role, "viewer");
  });

  test("writes are admin only: dpo and viewer get 403; every role may list", async () => {
    const target = (await newSignedIn("viewer")).account.staffId;
    for (const role of ["dpo", "viewer"] as const) {
      assertApiError(await create(as[role], { email: freshEmail(), role: "viewer" }), 403, "FORBIDDEN");
      assertApiError(await update(as[role], target, { role: "admin" }), 403, "FORBIDDEN");
      assertApiError(await update(as[role], target, { disabled: true }), 403, "FORBIDDEN");
    }
    const stored = await storedAccount(target);
    assert.deepEqual([stored.role, stored.disabled_at], ["viewer", null]);
  });

  test("writes need the session's X-CSRF-Token; a session-less call is 401", async () => {
    const target = (await newSignedIn("viewer")).account.staffId;
    const { "x-csrf-token": _csrf, ...noCsrf } = as.admin;
    const wrongCsrf = { ...as.admin, "x-csrf-token": "not-the-token" };
    for (const headers of [noCsrf, wrongCsrf]) {
      assertApiError(await create(headers, { email: freshEmail(), role: "viewer" }), 403, "FORBIDDEN");
      assertApiError(await update(headers, target, { disabled: true }), 403, "FORBIDDEN");
    }
    assertApiError(await list({}), 401, "UNAUTHORIZED");
    assertApiError(await update({}, target, { disabled: true }), 401, "UNAUTHORIZED");
    assert.equal((await storedAccount(target)).disabled_at, null);
  });

  test("another organisation's account is 404 and untouched; lists show only the caller's", async () => {
    const otherAdmin = (await signIn(t, other, "admin")).headers;
    const target = (await newSignedIn("dpo")).account.staffId;
    for (const payload of [{ role: "viewer" }, { disabled: true }, { role: "dpo" }]) {
      assertApiError(await update(otherAdmin, target, payload), 404, "NOT_FOUND");
    }
    assertApiError(await update(otherAdmin, "stf_doesNotExist0000", { role: "dpo" }), 404, "NOT_FOUND");
    const stored = await storedAccount(target);
    assert.deepEqual([stored.role, stored.disabled_at], ["dpo", null]);
    const ours = new Set(ok<{ accounts: Account[] }>(await list(as.admin)).accounts.map((a) => a.staffId));
    const theirs = ok<{ accounts: Account[] }>(await list(otherAdmin)).accounts;
    assert.ok(theirs.length >= 3);
    assert.ok(
      theirs.every((a) => !ours.has(a.staffId)),
      "no account of another organisation is listed",
    );
  });

  test("a role change applies to the account's open session at once; repeating it changes nothing", async () => {
    const member = await newSignedIn("viewer");
    assertApiError(await create(member.headers, { email: freshEmail(), role: "viewer" }), 403, "FORBIDDEN");
    const promoted = ok<Account>(await update(as.admin, member.account.staffId, { role: "admin" }));
    assert.deepEqual([promoted.role, promoted.disabledAt], ["admin", null]);
    ok(await create(member.headers, { email: freshEmail(), role: "viewer" }), 201);
    assert.deepEqual(
      ok<Account>(await update(as.admin, member.account.staffId, { role: "admin" })),
      promoted,
    );
    const demoted = ok<Account>(await update(as.admin, member.account.staffId, { role: "viewer" }));
    assert.equal(demoted.role, "viewer");
    assertApiError(await create(member.headers, { email: freshEmail(), role: "viewer" }), 403, "FORBIDDEN");
  });

  test("disabling ends the account's sessions at once and stops sign-in; re-enabling lets it sign in again", async () => {
    const member = await newSignedIn("dpo");
    const second = await signInWith(seeded, member.email, member.password);
    assert.equal(second.statusCode, 201);
    ok(await t.request({ method: "GET", url: SESSION, headers: member.headers }));

    t.clock.advance(1_000);
    const disabled = ok<Account>(await update(as.admin, member.account.staffId, { disabled: true }));
    assert.equal(disabled.disabledAt, t.clock.now());
    assertApiError(
      await t.request({ method: "GET", url: SESSION, headers: member.headers }),
      401,
      "UNAUTHORIZED",
    );
    assertApiError(await list(member.headers), 401, "UNAUTHORIZED");
    const sessions = await t.db.query<{ ended_at: number | null }>(
      "SELECT ended_at FROM staff_sessions WHERE staff_id = $1",
      [member.account.staffId],
    );
    assert.equal(sessions.length, 2);
    assert.ok(
      sessions.every((s) => s.ended_at === t.clock.now()),
      "both sessions ended in the same change",
    );
    assertApiError(await signInWith(seeded, member.email, member.password), 401, "UNAUTHORIZED");

    // Disabling again changes nothing, not even the time.
    t.clock.advance(1_000);
    assert.deepEqual(
      ok<Account>(await update(as.admin, member.account.staffId, { disabled: true })),
      disabled,
    );

    const enabled = ok<Account>(await update(as.admin, member.account.staffId, { disabled: false }));
    assert.equal(enabled.disabledAt, null);
    assertApiError(await list(member.headers), 401, "UNAUTHORIZED"); // ended sessions stay ended
    ok(await signInWith(seeded, member.email, member.password), 201);
  });

  test("an admin cannot change their own role or disable themselves (409 naming the field)", async () => {
    assertApiError(await update(as.admin, adminId, { role: "dpo" }), 409, "CONFLICT", { field: "role" });
    assertApiError(await update(as.admin, adminId, { disabled: true }), 409, "CONFLICT", {
      field: "disabled",
    });
    assertApiError(await update(as.admin, adminId, { role: "admin", disabled: true }), 409, "CONFLICT", {
      field: "disabled",
    });
    // Values they already have change nothing, so they are allowed.
    const self = ok<Account>(await update(as.admin, adminId, { role: "admin", disabled: false }));
    assert.deepEqual([self.role, self.disabledAt], ["admin", null]);
    ok(await t.request({ method: "GET", url: SESSION, headers: as.admin }));
  });

  test("the rule keeps one enabled admin even for a caller that is not one (409 naming the field)", async () => {
    // Over HTTP the caller is an enabled admin, so only a race reaches this rule; the rule itself
    // does not rely on that.
    const solo = await seedOrganization(t);
    const [admin] = await t.db.query<{ staff_id: string }>(
      "SELECT staff_id FROM staff_users WHERE organization_id = $1 AND role = 'admin'",
      [solo.org.organizationId],
    );
    const attempt = (change: { role?: "dpo"; disabled?: boolean }) =>
      t.db.transaction((tx) =>
        updateStaffAccount(
          tx,
          {
            organizationId: solo.org.organizationId,
            actorStaffId: "stf_someoneElse000",
            staffId: admin!.staff_id,
            ...change,
          },
          t.clock.now(),
        ),
      );
    for (const [change, field] of [
      [{ role: "dpo" }, "role"],
      [{ disabled: true }, "disabled"],
    ] as const) {
      await assert.rejects(attempt(change), (e: unknown) => {
        assert.ok(e instanceof Failure);
        assert.deepEqual([e.code, e.field], ["CONFLICT", field]);
        return true;
      });
    }
    assert.equal((await storedAccount(admin!.staff_id)).role, "admin");
  });

  test("two admins demoting each other at once: exactly one succeeds, one enabled admin remains", async () => {
    const org = await seedOrganization(t);
    const first = await signIn(t, org, "admin");
    const firstId = ok<{ staffId: string }>(
      await t.request({ method: "GET", url: SESSION, headers: first.headers }),
    ).staffId;
    const email = `second-admin@${org.org.slug}.example`;
    const password = "second-admin-password";
    const secondId = ok<Created>(await create(first.headers, { email, role: "admin", password }), 201).account
      .staffId;
    const res = await t.request({
      method: "POST",
      url: SESSION,
      payload: { organizationSlug: org.org.slug, email, password },
    });
    const secondHeaders = {
      cookie: `guard_session=${res.cookies.find((c) => c.name === "guard_session")!.value}`,
      "x-csrf-token": res.json<{ csrfToken: string }>().csrfToken,
    };
    const admins = { [firstId]: first.headers, [secondId]: secondHeaders };
    const enabledAdmins = async () =>
      (
        await t.db.query<{ staff_id: string }>(
          "SELECT staff_id FROM staff_users WHERE organization_id = $1 AND role = 'admin' AND disabled_at IS NULL",
          [org.org.organizationId],
        )
      ).map((r) => r.staff_id);

    for (let round = 0; round < 5; round++) {
      const change = round % 2 === 0 ? { role: "dpo" } : { disabled: true };
      const [a, b] = await Promise.all([
        update(admins[firstId]!, secondId, change),
        update(admins[secondId]!, firstId, change),
      ]);
      const winners = [a, b].filter((r) => r.statusCode === 200);
      assert.equal(
        winners.length,
        1,
        `round ${round}: ${a.statusCode} ${a.body} / ${b.statusCode} ${b.body}`,
      );
      const loser = a.statusCode === 200 ? b : a;
      // A loser that waited for the winner's lock saw one admin left (409). One whose credential was
      // checked after the winner committed is no longer an enabled admin: 403 when demoted, 401 when
      // disabled (PGlite runs one statement at a time, so there it is always this case).
      if (loser.statusCode === 409)
        assertApiError(loser, 409, "CONFLICT", { field: "role" in change ? "role" : "disabled" });
      else if ("role" in change) assertApiError(loser, 403, "FORBIDDEN");
      else assertApiError(loser, 401, "UNAUTHORIZED");
      const remaining = await enabledAdmins();
      assert.equal(remaining.length, 1, `round ${round}`);
      // The survivor restores the other, for the next round.
      const survivor = remaining[0]!;
      const demotedId = survivor === firstId ? secondId : firstId;
      ok(await update(admins[survivor]!, demotedId, { role: "admin", disabled: false }));
      if (change.disabled) {
        // Its sessions ended with the disable: sign in again.
        const again = await t.request({
          method: "POST",
          url: SESSION,
          payload: {
            organizationSlug: org.org.slug,
            email: demotedId === secondId ? email : org.staff.admin.email,
            password: demotedId === secondId ? password : org.staff.admin.password,
          },
        });
        assert.equal(again.statusCode, 201, again.body);
        admins[demotedId] = {
          cookie: `guard_session=${again.cookies.find((c) => c.name === "guard_session")!.value}`,
          "x-csrf-token": again.json<{ csrfToken: string }>().csrfToken,
        };
      }
      assert.equal((await enabledAdmins()).length, 2);
    }
  });

  test("a change waiting on another's lock sees its result: the second demotion of the last two admins is 409", async () => {
    // Deterministic on both engines: the first transaction holds its locks for a while after its
    // change, and the second starts meanwhile. Without the lock on the admins' rows, PostgreSQL would
    // let the second read both admins as enabled and demote the last one.
    const org = await seedOrganization(t);
    const organizationId = org.org.organizationId;
    const [first] = await t.db.query<{ staff_id: string }>(
      "SELECT staff_id FROM staff_users WHERE organization_id = $1 AND role = 'admin'",
      [organizationId],
    );
    const second = ok<Created>(
      await create((await signIn(t, org, "admin")).headers, {
        email: `second@${org.org.slug}.example`,
        role: "admin",
      }),
      201,
    ).account.staffId;
    const demote =
      (actorStaffId: string, staffId: string) =>
      (tx: Parameters<Parameters<TestApp["db"]["transaction"]>[0]>[0]) =>
        updateStaffAccount(tx, { organizationId, actorStaffId, staffId, role: "dpo" }, t.clock.now());

    let changed!: () => void;
    const firstChanged = new Promise<void>((resolve) => (changed = resolve));
    const firstTx = t.db.transaction(async (tx) => {
      const account = await demote(first!.staff_id, second)(tx);
      changed();
      await new Promise((resolve) => setTimeout(resolve, 300));
      return account;
    });
    await firstChanged;
    const secondTx = t.db.transaction(demote(second, first!.staff_id));
    assert.equal((await firstTx).role, "dpo");
    await assert.rejects(secondTx, (e: unknown) => {
      assert.ok(e instanceof Failure);
      assert.deepEqual([e.code, e.field], ["CONFLICT", "role"]);
      return true;
    });
    assert.equal((await storedAccount(first!.staff_id)).role, "admin");
  });
});
