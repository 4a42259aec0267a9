// Accounts and credentials: staff sign-in/out with cookie sessions and CSRF, service API keys
// (create, list, revoke, hashed at rest), and brokered principal tokens, including that each
// credential kind is refused where another is required. Sign-in limits: sign-in-limits.test.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { authenticate, type CredentialRequest } from "../../src/access/credentials.js";
import { ApiKeyCache } from "../../src/accounts/api-keys.js";
import { mintPrincipalToken, verifyPrincipalToken } from "../../src/accounts/principal-tokens.js";
import { InvalidationFeed } from "../../src/db/invalidation.js";
import { testConfig } from "../../src/config.js";
import { Failure } from "../../src/lib/failure.js";
import { sha256Hex, verifyPassword } from "../../src/lib/secrets.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

const SESSION = "/api/v1/staff/session";
const KEYS = "/api/v1/staff/api-keys";
const BROKER = "/api/v1/auth/broker-token";
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type StaffSessionBody = {
  staffId: string;
  organizationId: string;
  organizationSlug: string;
  email: string;
  role: string;
  csrfToken: string;
  expiresAt: number;
};
type ApiKeySummary = {
  apiKeyId: string;
  name: string;
  prefix: string;
  createdAt: number;
  createdBy: string | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
};
type CreatedKey = { apiKeyId: string; name: string; prefix: string; key: string; createdAt: number };
type BrokeredToken = { accessToken: string; expiresAt: number; tokenType: string };

/** The claims part of a JWT, decoded without verifying it. */
const jwtClaims = (token: string) =>
  JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString("utf8")) as Record<string, unknown>;

describe("accounts and credentials", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  const signInAs = (
    seeded: SeededOrg,
    credentials: { organizationSlug?: string; email?: string; password?: string },
    remoteAddress?: string,
  ) =>
    t.request({
      method: "POST",
      url: SESSION,
      payload: { organizationSlug: seeded.org.slug, ...seeded.staff.admin, ...credentials },
      ...(remoteAddress ? { remoteAddress } : {}),
    });

  const createKey = (headers: Record<string, string>, name = "integration") =>
    t.request({ method: "POST", url: KEYS, headers, payload: { name } });

  const listKeys = async (headers: Record<string, string>) => {
    const res = await t.request({ method: "GET", url: KEYS, headers });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { apiKeys: ApiKeySummary[] }).apiKeys;
  };

  const broker = (key: string, externalId: unknown = "user-1") =>
    t.request({ method: "POST", url: BROKER, headers: bearer(key), payload: { externalId } });

  const mintToken = async (seeded: SeededOrg, externalId = "user-1") => {
    const res = await broker(seeded.apiKey, externalId);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as BrokeredToken;
  };

  /** A stand-in request carrying only what authenticate() reads. */
  const fakeRequest = (headers: Record<string, string>, method = "GET"): CredentialRequest => ({
    headers,
    method,
  });

  const isUnauthorized = (error: unknown) => error instanceof Failure && error.code === "UNAUTHORIZED";

  describe("staff sessions", () => {
    test("sign-in is 201 with a StaffSession body and an HttpOnly, SameSite=Lax session cookie", async () => {
      const seeded = await seedOrganization(t);
      const res = await signInAs(seeded, {});
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as StaffSessionBody;
      assert.equal(body.organizationId, seeded.org.organizationId);
      assert.equal(body.organizationSlug, seeded.org.slug);
      assert.equal(body.email, seeded.staff.admin.email);
      assert.equal(body.role, "admin");
      assert.match(body.staffId, /^stf_[0-9A-Za-z]{8,64}$/);
      assert.ok(body.csrfToken.length >= 20, "a CSRF token worth its name");
      assert.equal(body.expiresAt, t.clock.now() + t.config.sessionTtlHours * HOUR);

      const setCookie = String(res.headers["set-cookie"]);
      assert.match(setCookie, /^guard_session=[^;]{20,};/);
      assert.match(setCookie, /; HttpOnly/);
      assert.match(setCookie, /; SameSite=Lax/);
      assert.match(setCookie, /; Path=\//);
      assert.match(setCookie, new RegExp(`; Max-Age=${t.config.sessionTtlHours * 3600}`));
      assert.doesNotMatch(setCookie, /; Secure/, "no Secure flag unless configured (plain-HTTP tests)");
      const cookie = res.cookies.find((c) => c.name === "guard_session")!;
      assert.ok(!res.body.includes(cookie.value), "the cookie value is not in the body");

      // The email matches case-insensitively.
      const again = await signInAs(seeded, {
        email: seeded.staff.dpo.email.toUpperCase(),
        password: seeded.staff.dpo.password,
      });
      assert.equal(again.statusCode, 201, again.body);
      assert.equal((again.json() as StaffSessionBody).role, "dpo");
    });

    test("wrong password, unknown email and unknown organisation are one indistinguishable 401", async () => {
      const seeded = await seedOrganization(t);
      const other = await seedOrganization(t);
      const attempts = [
        await signInAs(seeded, { password: `${seeded.staff.admin.password}x` }),
        await signInAs(seeded, { password: seeded.staff.dpo.password }), // another user's password
        await signInAs(seeded, { email: `nobody@${seeded.org.slug}.example` }),
        await signInAs(seeded, { organizationSlug: "no-such-org-here" }),
        await signInAs(seeded, { organizationSlug: other.org.slug }), // right password, wrong org
      ];
      const shapes = attempts.map((res) => {
        const body = assertApiError(res, 401, "UNAUTHORIZED", { field: null });
        assert.equal(res.headers["set-cookie"], undefined, "no cookie on failure");
        return { code: body.code, error: body.error, keys: Object.keys(body).sort() };
      });
      for (const shape of shapes) assert.deepEqual(shape, shapes[0]);
    });

    test("GET session returns the cookie's session; without a valid cookie it is 401", async () => {
      const seeded = await seedOrganization(t);
      const session = await signIn(t, seeded, "viewer");
      const res = await t.request({
        method: "GET",
        url: SESSION,
        headers: { cookie: session.headers.cookie! },
      });
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json() as StaffSessionBody;
      assert.equal(body.role, "viewer");
      assert.equal(body.csrfToken, session.csrfToken, "a reloaded dashboard gets its CSRF token back");

      assertApiError(await t.request({ method: "GET", url: SESSION }), 401, "UNAUTHORIZED");
      for (const cookie of [
        "guard_session=",
        "guard_session=not-a-session",
        `guard_session=${"a".repeat(500)}`,
      ]) {
        assertApiError(
          await t.request({ method: "GET", url: SESSION, headers: { cookie } }),
          401,
          "UNAUTHORIZED",
        );
      }
      // A session cookie under another name is not a session.
      const renamed = { cookie: `session=${session.cookie}` };
      assertApiError(await t.request({ method: "GET", url: SESSION, headers: renamed }), 401, "UNAUTHORIZED");
    });

    test("sign-out ends the session server-side and clears the cookie", async () => {
      const seeded = await seedOrganization(t);
      const session = await signIn(t, seeded, "admin");
      const otherSession = await signIn(t, seeded, "admin");

      const out = await t.request({ method: "DELETE", url: SESSION, headers: session.headers });
      assert.equal(out.statusCode, 200, out.body);
      assert.deepEqual(out.json(), { signedOut: true });
      const cleared = String(out.headers["set-cookie"]);
      assert.match(cleared, /^guard_session=;/);
      assert.match(cleared, /Max-Age=0/);

      // Replaying the old cookie (as a stolen copy would) no longer works, for reads or writes.
      assertApiError(
        await t.request({ method: "GET", url: SESSION, headers: session.headers }),
        401,
        "UNAUTHORIZED",
      );
      assertApiError(await createKey(session.headers), 401, "UNAUTHORIZED");
      assertApiError(
        await t.request({ method: "DELETE", url: SESSION, headers: session.headers }),
        401,
        "UNAUTHORIZED",
      );
      // Only that session ended.
      const still = await t.request({ method: "GET", url: SESSION, headers: otherSession.headers });
      assert.equal(still.statusCode, 200);
    });

    test("a cookie-authenticated write without the session's X-CSRF-Token is 403 FORBIDDEN", async () => {
      const seeded = await seedOrganization(t);
      const session = await signIn(t, seeded, "admin");
      const otherSession = await signIn(t, seeded, "dpo");
      const cookieOnly = { cookie: session.headers.cookie! };

      assertApiError(await createKey(cookieOnly), 403, "FORBIDDEN");
      for (const token of [
        `${session.csrfToken}x`,
        session.csrfToken.slice(1),
        otherSession.csrfToken,
        "x",
      ]) {
        assertApiError(await createKey({ ...cookieOnly, "x-csrf-token": token }), 403, "FORBIDDEN");
      }
      assert.equal((await listKeys(session.headers)).length, 1, "nothing was created");

      // Revoke and sign-out need it too; refused writes change nothing.
      const revoke = await t.request({
        method: "DELETE",
        url: `${KEYS}/${seeded.apiKeyId}`,
        headers: cookieOnly,
      });
      assertApiError(revoke, 403, "FORBIDDEN");
      assert.equal((await broker(seeded.apiKey)).statusCode, 201, "the key is still active");
      assertApiError(
        await t.request({ method: "DELETE", url: SESSION, headers: cookieOnly }),
        403,
        "FORBIDDEN",
      );
      assert.equal((await t.request({ method: "GET", url: SESSION, headers: cookieOnly })).statusCode, 200);

      // Reads need no token; the right token makes the write work.
      assert.equal((await t.request({ method: "GET", url: KEYS, headers: cookieOnly })).statusCode, 200);
      assert.equal((await createKey(session.headers)).statusCode, 201);
    });

    test("a session expires after its lifetime", async () => {
      const seeded = await seedOrganization(t);
      const session = await signIn(t, seeded, "admin");
      const ttl = t.config.sessionTtlHours * HOUR;
      t.clock.advance(ttl - 1);
      assert.equal(
        (await t.request({ method: "GET", url: SESSION, headers: session.headers })).statusCode,
        200,
      );
      t.clock.advance(1);
      assertApiError(
        await t.request({ method: "GET", url: SESSION, headers: session.headers }),
        401,
        "UNAUTHORIZED",
      );
      // An expired session is 401 for writes too, not a CSRF 403.
      assertApiError(await createKey(session.headers), 401, "UNAUTHORIZED");
    });
  });

  describe("service API keys", () => {
    test("admin and DPO create keys: 201, gk_live_ prefix, 16-character display prefix", async () => {
      const seeded = await seedOrganization(t);
      for (const role of ["admin", "dpo"] as const) {
        const session = await signIn(t, seeded, role);
        const res = await createKey(session.headers, `${role} integration`);
        assert.equal(res.statusCode, 201, res.body);
        const created = res.json() as CreatedKey;
        assert.match(created.key, /^gk_live_[0-9A-Za-z]{40}$/);
        assert.equal(created.prefix, created.key.slice(0, 16));
        assert.equal(created.name, `${role} integration`);
        assert.match(created.apiKeyId, /^key_[0-9A-Za-z]{8,64}$/);
        assert.equal(created.createdAt, t.clock.now());
        // The new key works at once.
        assert.equal((await broker(created.key)).statusCode, 201);
      }
    });

    test("a viewer may list keys but not create or revoke them (403 FORBIDDEN)", async () => {
      const seeded = await seedOrganization(t);
      const viewer = await signIn(t, seeded, "viewer");
      assertApiError(await createKey(viewer.headers), 403, "FORBIDDEN");
      const revoke = await t.request({
        method: "DELETE",
        url: `${KEYS}/${seeded.apiKeyId}`,
        headers: viewer.headers,
      });
      assertApiError(revoke, 403, "FORBIDDEN");
      const keys = await listKeys(viewer.headers);
      assert.deepEqual(
        keys.map((k) => [k.apiKeyId, k.revokedAt]),
        [[seeded.apiKeyId, null]],
      );
    });

    test("a key name must not be blank or too long", async () => {
      const seeded = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      assertApiError(await createKey(admin.headers, ""), 400, "VALIDATION_ERROR", {
        field: "name",
        message: "name must not be empty",
      });
      assertApiError(await createKey(admin.headers, "   "), 400, "VALIDATION_ERROR", { field: "name" });
      assertApiError(await createKey(admin.headers, "n".repeat(101)), 400, "VALIDATION_ERROR", {
        field: "name",
      });
      const missing = await t.request({ method: "POST", url: KEYS, headers: admin.headers, payload: {} });
      assertApiError(missing, 400, "VALIDATION_ERROR", { field: "name", message: "name is required" });
    });

    test("the list is newest first, never shows a key, and tracks last use", async () => {
      const seeded = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      const seededAt = t.clock.now();
      t.clock.advance(1000);
      const first = (await createKey(admin.headers, "first")).json() as CreatedKey;
      t.clock.advance(1000);
      const second = (await createKey(admin.headers, "second")).json() as CreatedKey;

      let keys = await listKeys(admin.headers);
      assert.deepEqual(
        keys.map((k) => k.apiKeyId),
        [second.apiKeyId, first.apiKeyId, seeded.apiKeyId],
      );
      const listed = JSON.stringify(keys);
      for (const key of [first.key, second.key, seeded.apiKey]) {
        assert.ok(!listed.includes(key), "the list never holds a key");
        assert.ok(!listed.includes(key.slice(16)), "nor its secret part");
      }
      const me = await t.request({ method: "GET", url: SESSION, headers: admin.headers });
      const { staffId } = me.json() as StaffSessionBody;
      const byId = new Map(keys.map((k) => [k.apiKeyId, k]));
      assert.deepEqual(byId.get(first.apiKeyId), {
        apiKeyId: first.apiKeyId,
        name: "first",
        prefix: first.prefix,
        createdAt: first.createdAt,
        createdBy: staffId,
        lastUsedAt: null,
        revokedAt: null,
      });
      assert.equal(byId.get(seeded.apiKeyId)!.createdBy, null, "a seeded key has no creator");
      assert.equal(byId.get(seeded.apiKeyId)!.createdAt, seededAt);

      // Use sets lastUsedAt; later use moves it on.
      t.clock.advance(5000);
      const usedAt = t.clock.now();
      assert.equal((await broker(first.key)).statusCode, 201);
      keys = await listKeys(admin.headers);
      assert.equal(keys.find((k) => k.apiKeyId === first.apiKeyId)!.lastUsedAt, usedAt);
      assert.equal(keys.find((k) => k.apiKeyId === second.apiKeyId)!.lastUsedAt, null);
      t.clock.advance(10 * MINUTE);
      assert.equal((await broker(first.key)).statusCode, 201);
      keys = await listKeys(admin.headers);
      assert.equal(keys.find((k) => k.apiKeyId === first.apiKeyId)!.lastUsedAt, t.clock.now());
    });

    test("revoking a key stops it at once; revoking again reports revoked: false", async () => {
      const seeded = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      const created = (await createKey(admin.headers)).json() as CreatedKey;
      assert.equal((await broker(created.key)).statusCode, 201);

      const url = `${KEYS}/${created.apiKeyId}`;
      const first = await t.request({ method: "DELETE", url, headers: admin.headers });
      assert.equal(first.statusCode, 200, first.body);
      assert.deepEqual(first.json(), { revoked: true });
      assertApiError(await broker(created.key), 401, "UNAUTHORIZED");

      // Same instant and later: already revoked.
      const again = await t.request({ method: "DELETE", url, headers: admin.headers });
      assert.deepEqual(again.json(), { revoked: false });
      t.clock.advance(1000);
      const later = await t.request({ method: "DELETE", url, headers: admin.headers });
      assert.deepEqual(later.json(), { revoked: false });

      const listed = (await listKeys(admin.headers)).find((k) => k.apiKeyId === created.apiKeyId)!;
      assert.equal(listed.revokedAt, t.clock.now() - 1000, "the first revocation time is kept");
      // The other key is untouched.
      assert.equal((await broker(seeded.apiKey)).statusCode, 201);
    });

    test("revoking an unknown key or another organisation's is 404; a malformed id is 400", async () => {
      const seeded = await seedOrganization(t);
      const other = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      const revoke = (apiKeyId: string) =>
        t.request({ method: "DELETE", url: `${KEYS}/${apiKeyId}`, headers: admin.headers });
      assertApiError(await revoke(other.apiKeyId), 404, "NOT_FOUND");
      assertApiError(await revoke("key_doesNotExist000000"), 404, "NOT_FOUND");
      assertApiError(await revoke("not-a-key-id-at-all"), 400, "VALIDATION_ERROR", { field: "apiKeyId" });
      assert.equal((await broker(other.apiKey)).statusCode, 201, "the other organisation's key still works");
    });

    test("the database holds only a hash of each key, and scrypt hashes of passwords", async () => {
      const seeded = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      const created = (await createKey(admin.headers)).json() as CreatedKey;
      const rows = await t.db.query<{ api_key_id: string; key_hash: string; prefix: string }>(
        "SELECT * FROM api_keys WHERE organization_id = $1",
        [seeded.org.organizationId],
      );
      assert.equal(rows.length, 2);
      const stored = JSON.stringify(rows);
      for (const key of [created.key, seeded.apiKey]) {
        assert.ok(!stored.includes(key.slice(8)), "the key's secret part is not stored");
      }
      const row = rows.find((r) => r.api_key_id === created.apiKeyId)!;
      assert.equal(row.key_hash, sha256Hex(created.key));
      assert.equal(row.prefix, created.prefix);

      const staff = await t.db.query<{ email: string; password_hash: string }>(
        "SELECT email, password_hash FROM staff_users WHERE organization_id = $1",
        [seeded.org.organizationId],
      );
      assert.equal(staff.length, 3);
      for (const user of staff) {
        const role = user.email.split("@")[0] as keyof SeededOrg["staff"];
        const password = seeded.staff[role].password;
        assert.match(user.password_hash, /^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
        assert.ok(!user.password_hash.includes(password));
        assert.equal(await verifyPassword(password, user.password_hash), true);
        assert.equal(await verifyPassword(`${password}!`, user.password_hash), false);
      }
      // Sessions too: the cookie value is not stored, only its hash.
      const sessions = await t.db.query<{ token_hash: string }>(
        "SELECT token_hash FROM staff_sessions WHERE organization_id = $1",
        [seeded.org.organizationId],
      );
      assert.ok(!JSON.stringify(sessions).includes(admin.cookie));
      assert.ok(sessions.some((s) => s.token_hash === sha256Hex(admin.cookie)));
    });
  });

  describe("principal tokens", () => {
    test("broker-token is 201 with a Bearer token for the key's organisation, valid 15 minutes", async () => {
      const seeded = await seedOrganization(t);
      const now = t.clock.now();
      const res = await broker(seeded.apiKey, "customer-42");
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as BrokeredToken;
      assert.deepEqual(Object.keys(body).sort(), ["accessToken", "expiresAt", "tokenType"]);
      assert.equal(body.tokenType, "Bearer");
      assert.ok(Number.isInteger(body.expiresAt));
      assert.ok(Math.abs(body.expiresAt - (now + 15 * MINUTE)) <= 1000, `expiresAt ${body.expiresAt}`);

      const claims = jwtClaims(body.accessToken);
      assert.equal(claims.org, seeded.org.organizationId);
      assert.equal(claims.ext, "customer-42");
      assert.equal(Number(claims.exp) * 1000, body.expiresAt);
      const verified = await verifyPrincipalToken(t.config, body.accessToken, now);
      assert.equal(verified?.organizationId, seeded.org.organizationId);
      assert.equal(verified?.externalId, "customer-42");

      // One principal per (organisation, externalId): the same user gets the same subject.
      const again = (await mintToken(seeded, "customer-42")).accessToken;
      const otherUser = (await mintToken(seeded, "customer-43")).accessToken;
      assert.equal(jwtClaims(again).sub, claims.sub);
      assert.notEqual(jwtClaims(otherUser).sub, claims.sub);
    });

    test("the token lifetime follows the configuration", async () => {
      const now = t.clock.now();
      const claims = { organizationId: "org_aaaaaaaaaaaa", principalId: "prn_bbbbbbbbbbbb", externalId: "u" };
      const hour = await mintPrincipalToken(testConfig({ tokenTtlMinutes: 60 }), claims, now);
      assert.ok(Math.abs(hour.expiresAt - (now + HOUR)) <= 1000);
      assert.ok(await verifyPrincipalToken(testConfig(), hour.accessToken, now + 59 * MINUTE));
      assert.equal(await verifyPrincipalToken(testConfig(), hour.accessToken, now + 61 * MINUTE), undefined);
    });

    test("a missing, empty or ill-typed externalId is 400 naming externalId", async () => {
      const seeded = await seedOrganization(t);
      const call = (payload: unknown) =>
        t.request({
          method: "POST",
          url: BROKER,
          headers: bearer(seeded.apiKey),
          payload: payload as object,
        });
      assertApiError(await call({}), 400, "VALIDATION_ERROR", {
        field: "externalId",
        message: "externalId is required",
      });
      assertApiError(await call({ externalId: "" }), 400, "VALIDATION_ERROR", {
        field: "externalId",
        message: "externalId must not be empty",
      });
      for (const externalId of [42, null, ["u"], { id: "u" }, "x".repeat(201)]) {
        assertApiError(await call({ externalId }), 400, "VALIDATION_ERROR", { field: "externalId" });
      }
      // Credentials are checked before the body: no key, no validation details.
      const anonymous = await t.request({ method: "POST", url: BROKER, payload: {} });
      assertApiError(anonymous, 401, "UNAUTHORIZED");
    });

    test("a principal token or staff session is refused where a service key is required", async () => {
      const seeded = await seedOrganization(t);
      const { accessToken } = await mintToken(seeded);
      assertApiError(await broker(accessToken), 401, "UNAUTHORIZED");
      const session = await signIn(t, seeded, "admin");
      const withCookie = await t.request({
        method: "POST",
        url: BROKER,
        headers: session.headers,
        payload: { externalId: "u" },
      });
      assertApiError(withCookie, 401, "UNAUTHORIZED");
      // Nor does a service key or principal token open a staff route.
      for (const credential of [seeded.apiKey, accessToken]) {
        assertApiError(
          await t.request({ method: "GET", url: KEYS, headers: bearer(credential) }),
          401,
          "UNAUTHORIZED",
        );
      }
    });

    test("a service key is refused where a principal token is required", async () => {
      const seeded = await seedOrganization(t);
      const { accessToken } = await mintToken(seeded, "customer-7");
      const feed = await InvalidationFeed.open(t.db);
      after(() => feed.close());
      const deps = { config: t.config, db: t.db, clock: t.clock, apiKeys: new ApiKeyCache(feed) };

      // The positive control: the token itself is accepted as a principal credential.
      const credential = await authenticate(fakeRequest(bearer(accessToken)), ["principalToken"], deps);
      assert.equal(credential.kind, "principal");
      assert.equal(credential.organizationId, seeded.org.organizationId);
      assert.equal(credential.kind === "principal" && credential.externalId, "customer-7");

      await assert.rejects(
        authenticate(fakeRequest(bearer(seeded.apiKey)), ["principalToken"], deps),
        isUnauthorized,
      );
      await assert.rejects(authenticate(fakeRequest({}), ["principalToken"], deps), isUnauthorized);
      // And the reverse through the same function.
      await assert.rejects(
        authenticate(fakeRequest(bearer(accessToken)), ["serviceKey"], deps),
        isUnauthorized,
      );
      const service = await authenticate(fakeRequest(bearer(seeded.apiKey)), ["serviceKey"], deps);
      assert.equal(service.kind, "service");
    });

    test("an expired token, a token signed with another secret, or a tampered token is refused", async () => {
      const seeded = await seedOrganization(t);
      const other = await seedOrganization(t);
      const feed = await InvalidationFeed.open(t.db);
      after(() => feed.close());
      const deps = { config: t.config, db: t.db, clock: t.clock, apiKeys: new ApiKeyCache(feed) };
      const principal = (token: string) => authenticate(fakeRequest(bearer(token)), ["principalToken"], deps);

      // Expiry.
      const { accessToken } = await mintToken(seeded);
      t.clock.advance(14 * MINUTE);
      assert.equal((await principal(accessToken)).kind, "principal", "still valid at 14 minutes");
      t.clock.advance(2 * MINUTE);
      await assert.rejects(principal(accessToken), isUnauthorized);
      assert.equal(await verifyPrincipalToken(t.config, accessToken, t.clock.now()), undefined);

      // Another secret.
      const claims = {
        organizationId: seeded.org.organizationId,
        principalId: "prn_cccccccccccc",
        externalId: "u",
      };
      const foreign = await mintPrincipalToken(
        testConfig({ tokenSecret: "another-deployment-secret-0123456789-abcdef" }),
        claims,
        t.clock.now(),
      );
      await assert.rejects(principal(foreign.accessToken), isUnauthorized);

      // A valid token with its claims edited (moved to another organisation), or re-signed with `none`.
      const fresh = (await mintToken(seeded)).accessToken;
      const [header, payload, signature] = fresh.split(".") as [string, string, string];
      const moved = Buffer.from(
        JSON.stringify({ ...jwtClaims(fresh), org: other.org.organizationId }),
      ).toString("base64url");
      await assert.rejects(principal(`${header}.${moved}.${signature}`), isUnauthorized);
      const none = Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url");
      await assert.rejects(principal(`${none}.${payload}.`), isUnauthorized);
      await assert.rejects(principal(`${header}.${payload}`), isUnauthorized);
      await assert.rejects(principal("not.a.jwt"), isUnauthorized);
      // Untouched, it is fine.
      const resolved = await principal(fresh);
      assert.equal(resolved.kind === "principal" && resolved.organizationId, seeded.org.organizationId);
    });

    test("missing, malformed, unknown and revoked Authorization headers are 401", async () => {
      const seeded = await seedOrganization(t);
      const admin = await signIn(t, seeded, "admin");
      const revoked = (await createKey(admin.headers)).json() as CreatedKey;
      await t.request({ method: "DELETE", url: `${KEYS}/${revoked.apiKeyId}`, headers: admin.headers });

      const headers: Record<string, string>[] = [
        {},
        { authorization: "" },
        { authorization: "Bearer" },
        { authorization: "Bearer " },
        { authorization: `Basic ${Buffer.from(`${seeded.apiKey}:`).toString("base64")}` },
        { authorization: seeded.apiKey }, // no scheme
        { authorization: `Bearer ${seeded.apiKey} extra` },
        { authorization: `Token ${seeded.apiKey}` },
        bearer("gk_live_0000000000000000000000000000000000000000"),
        bearer("gk_test_0000000000000000000000000000000000000000"),
        bearer(`${seeded.apiKey}x`),
        bearer(seeded.apiKey.slice(0, -1)),
        bearer(`gk_live_${"a".repeat(500)}`),
        bearer(revoked.key),
      ];
      for (const h of headers) {
        const res = await t.request({
          method: "POST",
          url: BROKER,
          headers: h,
          payload: { externalId: "u" },
        });
        assertApiError(res, 401, "UNAUTHORIZED");
      }
      // The scheme is case-insensitive (RFC 9110), so this one works.
      const lower = await t.request({
        method: "POST",
        url: BROKER,
        headers: { authorization: `bearer ${seeded.apiKey}` },
        payload: { externalId: "u" },
      });
      assert.equal(lower.statusCode, 201, lower.body);
    });
  });
});
