// POST /api/v1/offline/withdrawals: a principal withdraws every consent of a withdrawal token with
// the token alone, with exactly the consent events and webhook events of any withdrawal; again is
// idempotent; an unknown and a malformed token get one answer; the route is public, rate-limited
// per address, and stays available with every offline capability off.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import { issueWithdrawalToken } from "../../../src/offline/withdrawal/tokens.js";
import { WITHDRAWAL_BUDGET } from "../../../src/offline/withdrawal/routes.js";
import { assertApiError } from "../../support/api-error.js";
import { anonymousConsent, publishTestNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

describe("withdrawal by token (API)", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let noticeId: string;
  let guests = 0;
  let addresses = 0;
  /** Each test its own client address, so the per-address budget of one never limits another. */
  let address = "";

  const withdraw = (withdrawalToken: unknown, remoteAddress = address) =>
    t.request({
      method: "POST",
      url: "/api/v1/offline/withdrawals",
      payload: { withdrawalToken },
      remoteAddress,
    });
  /** A guest consent given through the public route. */
  const give = async (purpose: string, anonymousId = `guest-${++guests}`) => {
    const res = await anonymousConsent(t, {
      organizationId: acme.org.organizationId,
      noticeId,
      purpose,
      dataTypes: ["email"],
      anonymousId,
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { consentId: string }).consentId;
  };
  const tokenFor = (consentIds: string[]) =>
    t.db.transaction((tx) =>
      issueWithdrawalToken(tx, { organizationId: acme.org.organizationId, consentIds }, t.clock.now()),
    );
  /** The consent's events and webhook events, with what differs between two consents left out. */
  const trailOf = async (consentId: string) => {
    const events = await t.db.query<{ event_type: string; reason: string | null; at: number }>(
      "SELECT event_type, reason, occurred_at AS at FROM consent_events WHERE consent_id = $1 ORDER BY audit_ref",
      [consentId],
    );
    const hooks = await t.db.query<{ event_type: string; payload: Record<string, unknown> }>(
      "SELECT event_type, payload FROM webhook_events WHERE payload->>'consentId' = $1 ORDER BY created_at, event_id",
      [consentId],
    );
    return {
      events: events.map(({ event_type, reason }) => ({ event_type, reason })),
      hooks: hooks.map(({ event_type, payload }) => ({
        event_type,
        keys: Object.keys(payload).sort(),
        status: payload.status,
        withdrawnAt: payload.withdrawnAt,
      })),
    };
  };

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());
  test.beforeEach(() => {
    address = `10.9.0.${++addresses}`;
  });

  test("withdraws every consent of the token, each with the events and webhooks of an ordinary withdrawal", async () => {
    const marketing = await give("Marketing");
    const newsletter = await give("Newsletter");
    const ordinary = await give("Marketing");
    const token = await tokenFor([marketing, newsletter]);
    t.clock.advance(60_000);

    const res = await withdraw(token);
    assert.equal(res.statusCode, 200, res.body);
    const now = t.clock.now();
    const body = res.json() as { withdrawn: { consentId: string }[]; alreadyWithdrawn: string[] };
    assert.deepEqual(
      [...body.withdrawn].sort((a, b) => a.consentId.localeCompare(b.consentId)),
      [
        { consentId: marketing, purpose: "Marketing", noticeId, withdrawnAt: now },
        { consentId: newsletter, purpose: "Newsletter", noticeId, withdrawnAt: now },
      ].sort((a, b) => a.consentId.localeCompare(b.consentId)),
    );
    assert.deepEqual(body.alreadyWithdrawn, []);

    // The fiduciary withdraws another consent the ordinary way, at the same moment.
    const deleted = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${ordinary}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(deleted.statusCode, 200, deleted.body);

    const expected = await trailOf(ordinary);
    assert.deepEqual(expected.events, [
      { event_type: "given", reason: null },
      { event_type: "withdrawn", reason: "principal_request" },
    ]);
    assert.deepEqual(
      expected.hooks.map((hook) => hook.event_type),
      ["consent.given", "consent.withdrawn"],
    );
    for (const consentId of [marketing, newsletter]) assert.deepEqual(await trailOf(consentId), expected);
    for (const consentId of [marketing, newsletter]) {
      const read = await t.request({
        method: "GET",
        url: `/cm/v1/consent/${consentId}`,
        headers: bearer(acme.apiKey),
      });
      assert.equal(read.json().status, "withdrawn");
    }
  });

  test("withdrawing again is idempotent: 200, everything under alreadyWithdrawn, nothing recorded", async () => {
    const first = await give("Marketing");
    const second = await give("Newsletter");
    const token = await tokenFor([first, second]);
    assert.equal((await withdraw(token)).statusCode, 200);
    const [before] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM consent_events");
    const again = await withdraw(token);
    assert.equal(again.statusCode, 200, again.body);
    const body = again.json() as { withdrawn: unknown[]; alreadyWithdrawn: string[] };
    assert.deepEqual(body.withdrawn, []);
    assert.deepEqual([...body.alreadyWithdrawn].sort(), [first, second].sort());
    const [afterwards] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM consent_events");
    assert.equal(afterwards!.n, before!.n);
  });

  test("a consent withdrawn another way is listed as already withdrawn; the rest are withdrawn", async () => {
    const kept = await give("Marketing");
    const gone = await give("Newsletter");
    const token = await tokenFor([kept, gone]);
    const deleted = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${gone}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(deleted.statusCode, 200);
    const res = await withdraw(token);
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json() as { withdrawn: { consentId: string }[]; alreadyWithdrawn: string[] };
    assert.deepEqual(
      body.withdrawn.map((c) => c.consentId),
      [kept],
    );
    assert.deepEqual(body.alreadyWithdrawn, [gone]);
  });

  test("concurrent withdrawals of one token withdraw each consent once", async () => {
    const consents = [await give("Marketing"), await give("Newsletter"), await give("Account")];
    const token = await tokenFor(consents);
    const answers = await Promise.all(Array.from({ length: 4 }, () => withdraw(token)));
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const withdrawn = answers.flatMap(
      (res) => (res.json() as { withdrawn: { consentId: string }[] }).withdrawn,
    );
    assert.deepEqual(withdrawn.map((c) => c.consentId).sort(), [...consents].sort());
    const [events] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consent_events WHERE event_type = 'withdrawn' AND consent_id = ANY($1)",
      [consents],
    );
    assert.equal(events!.n, 3);
  });

  test("an unknown token and a malformed one get the same 404; a missing one is 400", async () => {
    const consentId = await give("Marketing");
    const token = await tokenFor([consentId]);
    const unknown = `wdt_${"A".repeat(32)}`;
    const answers = [
      assertApiError(await withdraw(unknown), 404, "NOT_FOUND"),
      assertApiError(await withdraw("not-a-token"), 404, "NOT_FOUND"),
      assertApiError(await withdraw(`${token}x`), 404, "NOT_FOUND"),
      assertApiError(await withdraw(token.toLowerCase()), 404, "NOT_FOUND"),
    ];
    assert.equal(new Set(answers.map((a) => a.error)).size, 1);
    const missing = await t.request({
      method: "POST",
      url: "/api/v1/offline/withdrawals",
      payload: {},
      remoteAddress: address,
    });
    assertApiError(missing, 400, "VALIDATION_ERROR", { field: "withdrawalToken" });
    const read = await t.request({
      method: "GET",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(read.json().status, "active");
  });

  test("each client address has its own budget: past it, 429 with Retry-After", async () => {
    const unknown = `wdt_${"B".repeat(32)}`;
    for (let i = 0; i < WITHDRAWAL_BUDGET.limit; i++) assert.equal((await withdraw(unknown)).statusCode, 404);
    const limited = await withdraw(unknown);
    assertApiError(limited, 429, "RATE_LIMITED");
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    // Another address is not limited.
    assert.equal((await withdraw(unknown, "10.9.1.1")).statusCode, 404);
    t.clock.advance(WITHDRAWAL_BUDGET.windowMs);
    assert.equal((await withdraw(unknown)).statusCode, 404);
  });

  test("at the default log settings (no access log) a token's page and withdrawal log nothing", async () => {
    const token = await tokenFor([await give("Marketing")]);
    t.logs.length = 0;
    assert.equal(
      (await t.request({ method: "GET", url: `/withdraw/${token}`, remoteAddress: address })).statusCode,
      200,
    );
    assert.equal((await withdraw(token)).statusCode, 200);
    assert.ok(!t.logs.join("\n").includes(token.slice(4)));
  });

  test("no offline capability gates it: with all of them off a token still withdraws", async () => {
    const consentId = await give("Marketing");
    const token = await tokenFor([consentId]);
    await t.db.transaction((tx) =>
      setCapabilities(tx, acme.org.organizationId, {
        offline_consent_links: false,
        offline_consent_bridge: false,
        offline_agent_capture: false,
        offline_async_consent: false,
      }),
    );
    const res = await withdraw(token);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal((res.json() as { withdrawn: unknown[] }).withdrawn.length, 1);
  });
});
