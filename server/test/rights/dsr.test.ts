// Data-subject requests: the principal files and lists its own; staff work the queue through the
// forward-only state machine, generate summaries and deny erasure on a statutory basis. Every move
// is recorded with who, when and why, appended to the audit chain, and put in the webhook outbox.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setCapabilities } from "../../src/capabilities/capabilities.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import {
  auditEntriesFor,
  DAY,
  DSR,
  fileDsr,
  outboxEvents,
  principalToken,
  STAFF_DSR,
  type DsrBody,
  type TransitionBody,
} from "../support/rights-helpers.js";

describe("DSR requests", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let other: SeededOrg;
  let dpo: Awaited<ReturnType<typeof signIn>>;
  let viewer: Awaited<ReturnType<typeof signIn>>;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    other = await seedOrganization(t);
    dpo = await signIn(t, seeded, "dpo");
    viewer = await signIn(t, seeded, "viewer");
  });
  after(() => t.close());

  const orgId = () => seeded.org.organizationId;
  const patch = (requestId: string, payload: Record<string, unknown>, headers = dpo.headers) =>
    t.request({ method: "PATCH", url: `${STAFF_DSR}/${requestId}`, headers, payload });
  const history = async (requestId: string) => {
    const res = await t.request({ method: "GET", url: `${STAFF_DSR}/${requestId}`, headers: dpo.headers });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { request: DsrBody; transitions: TransitionBody[] };
  };
  const queue = async (query = "", headers: Record<string, string> = dpo.headers) => {
    const res = await t.request({
      method: "GET",
      url: `${STAFF_DSR}?organizationId=${orgId()}${query}`,
      headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { requests: DsrBody[] }).requests;
  };

  test("a principal files a request and lists only its own, with dueAt 30 days out", async () => {
    const token = await principalToken(t, seeded, "dsr-alice");
    const now = t.clock.now();
    const created = await fileDsr(t, token, {
      organizationId: orgId(),
      type: "correction",
      details: "My postal address is wrong",
    });
    assert.match(created.requestId, /^dsr_/);
    assert.equal(created.status, "pending");
    assert.equal(created.type, "correction");
    assert.equal(created.requestDetails, "My postal address is wrong");
    assert.equal(created.organizationId, orgId());
    assert.equal(created.createdAt, now);
    assert.equal(created.dueAt, now + 30 * DAY);
    assert.equal(created.externalId, "dsr-alice");
    assert.equal(created.dueState, "on_time");

    const bob = await principalToken(t, seeded, "dsr-bob");
    await fileDsr(t, bob, { organizationId: orgId(), type: "summary" });

    const mine = await t.request({ method: "GET", url: DSR, headers: bearer(token) });
    assert.equal(mine.statusCode, 200);
    const requests = (mine.json() as { requests: DsrBody[] }).requests;
    assert.deepEqual(
      requests.map((r) => r.requestId),
      [created.requestId],
    );

    const created2 = await outboxEvents(t.db, orgId(), "dsr.created");
    const event = created2.find((e) => e.payload.requestId === created.requestId);
    assert.ok(event, "dsr.created is in the outbox");
    assert.equal(event.payload.externalId, "dsr-alice");
    assert.equal(event.payload.dueAt, created.dueAt);

    const audit = await auditEntriesFor(t.db, orgId(), created.requestId);
    assert.deepEqual(
      audit.map((a) => [a.entryType, a.payload.from, a.payload.to, a.payload.actorKind]),
      [["dsr.transition", null, "pending", "principal"]],
    );
  });

  test("filing for another organisation is 400 NOT_ASSOCIATED_WITH_ORG, and nothing is created", async () => {
    const token = await principalToken(t, seeded, "dsr-wanderer");
    const res = await t.request({
      method: "POST",
      url: DSR,
      headers: bearer(token),
      payload: { organizationId: other.org.organizationId, type: "erasure" },
    });
    assertApiError(res, 400, "NOT_ASSOCIATED_WITH_ORG", { field: "organizationId" });
    const unknown = await t.request({
      method: "POST",
      url: DSR,
      headers: bearer(token),
      payload: { organizationId: "org_doesnotexist000000", type: "erasure" },
    });
    assertApiError(unknown, 400, "NOT_ASSOCIATED_WITH_ORG");
    const mine = await t.request({ method: "GET", url: DSR, headers: bearer(token) });
    assert.deepEqual(mine.json(), { requests: [], nextCursor: null });
  });

  test("bad input is 400 VALIDATION_ERROR naming the field", async () => {
    const token = await principalToken(t, seeded, "dsr-careless");
    const cases: [Record<string, unknown>, string][] = [
      [{ organizationId: orgId(), type: "deletion" }, "type"],
      [{ organizationId: orgId() }, "type"],
      [{ type: "summary" }, "organizationId"],
      [{ organizationId: orgId(), type: "summary", details: "" }, "details"],
      [{ organizationId: orgId(), type: "summary", details: "   " }, "details"],
      [{ organizationId: orgId(), type: "summary", details: 42 }, "details"],
      [{ organizationId: "not an id", type: "summary" }, "organizationId"],
    ];
    for (const [payload, field] of cases) {
      const res = await t.request({ method: "POST", url: DSR, headers: bearer(token), payload });
      assertApiError(res, 400, "VALIDATION_ERROR", { field });
    }
  });

  test("an expired or missing principal token is 401; a service key is not a principal token", async () => {
    const token = await principalToken(t, seeded, "dsr-late");
    t.clock.advance(16 * 60_000);
    for (const method of ["GET", "POST"] as const) {
      const res = await t.request({
        method,
        url: DSR,
        headers: bearer(token),
        ...(method === "POST" ? { payload: { organizationId: orgId(), type: "summary" } } : {}),
      });
      assertApiError(res, 401, "UNAUTHORIZED");
    }
    assertApiError(await t.request({ method: "GET", url: DSR }), 401, "UNAUTHORIZED");
    assertApiError(
      await t.request({ method: "GET", url: DSR, headers: bearer(seeded.apiKey) }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("staff move a request pending → in_progress → completed; every move is recorded and raised", async () => {
    const token = await principalToken(t, seeded, "dsr-carol");
    const filed = await fileDsr(t, token, { organizationId: orgId(), type: "processors" });
    const dpoSession = (
      await t.request({ method: "GET", url: "/api/v1/staff/session", headers: dpo.headers })
    ).json() as { staffId: string };

    t.clock.advance(60_000);
    const started = await patch(filed.requestId, { status: "in_progress", reason: "identity verified" });
    assert.equal(started.statusCode, 200, started.body);
    assert.deepEqual(started.json(), { updated: true });

    t.clock.advance(60_000);
    const answer = { processors: [{ name: "Acme Mail Pvt Ltd", purpose: "email delivery" }] };
    const done = await patch(filed.requestId, { status: "completed", responsePayload: answer });
    assert.deepEqual(done.json(), { updated: true });

    const { request, transitions } = await history(filed.requestId);
    assert.equal(request.status, "completed");
    assert.deepEqual(request.responsePayload, answer);
    assert.equal(request.closedAt, t.clock.now());
    assert.equal(request.dueState, "met");
    assert.deepEqual(
      transitions.map((x) => [x.from, x.to, x.actorKind, x.actorId, x.reason]),
      [
        [null, "pending", "principal", transitions[0]!.actorId, null],
        ["pending", "in_progress", "staff", dpoSession.staffId, "identity verified"],
        ["in_progress", "completed", "staff", dpoSession.staffId, null],
      ],
    );
    assert.equal(transitions[2]!.at, t.clock.now());

    // The principal sees the answer.
    const mine = (
      await t.request({
        method: "GET",
        url: DSR,
        headers: bearer(await principalToken(t, seeded, "dsr-carol")),
      })
    ).json() as {
      requests: DsrBody[];
    };
    assert.deepEqual(mine.requests[0]!.responsePayload, answer);

    const changes = (await outboxEvents(t.db, orgId(), "dsr.status_changed")).filter(
      (e) => e.payload.requestId === filed.requestId,
    );
    assert.deepEqual(changes.map((e) => [e.payload.previousStatus, e.payload.status]).sort(), [
      ["in_progress", "completed"],
      ["pending", "in_progress"],
    ]);
    const audit = await auditEntriesFor(t.db, orgId(), filed.requestId);
    assert.deepEqual(
      audit.map((a) => a.payload.to),
      ["pending", "in_progress", "completed"],
    );
  });

  test("illegal moves are 400 INVALID_STATUS_TRANSITION; a retried move is a harmless no-op", async () => {
    const token = await principalToken(t, seeded, "dsr-dave");
    const filed = await fileDsr(t, token, { organizationId: orgId(), type: "correction" });
    for (const status of ["completed", "rejected"]) {
      assertApiError(await patch(filed.requestId, { status }), 400, "INVALID_STATUS_TRANSITION");
    }
    assert.deepEqual((await patch(filed.requestId, { status: "pending" })).json(), { updated: false });
    assert.deepEqual((await patch(filed.requestId, { status: "in_progress" })).json(), { updated: true });
    assert.deepEqual((await patch(filed.requestId, { status: "in_progress" })).json(), { updated: false });
    assertApiError(await patch(filed.requestId, { status: "pending" }), 400, "INVALID_STATUS_TRANSITION");
    assert.deepEqual((await patch(filed.requestId, { status: "rejected", reason: "duplicate" })).json(), {
      updated: true,
    });
    for (const status of ["pending", "in_progress", "completed"]) {
      assertApiError(await patch(filed.requestId, { status }), 400, "INVALID_STATUS_TRANSITION", {
        message: /rejected is final/,
      });
    }
    // A different answer on a closed request is not a retry.
    assertApiError(
      await patch(filed.requestId, { status: "rejected", responsePayload: { changed: true } }),
      400,
      "INVALID_STATUS_TRANSITION",
    );
    const { transitions } = await history(filed.requestId);
    assert.equal(transitions.length, 3, "no-ops and refusals record nothing");
  });

  test("PATCH bad input: unknown status, blank reason → VALIDATION_ERROR; other org's id → 404", async () => {
    const token = await principalToken(t, seeded, "dsr-erin");
    const filed = await fileDsr(t, token, { organizationId: orgId(), type: "summary" });
    assertApiError(await patch(filed.requestId, { status: "done" }), 400, "VALIDATION_ERROR", {
      field: "status",
    });
    assertApiError(await patch(filed.requestId, {}), 400, "VALIDATION_ERROR", { field: "status" });
    assertApiError(
      await patch(filed.requestId, { status: "in_progress", reason: " " }),
      400,
      "VALIDATION_ERROR",
      {
        field: "reason",
      },
    );

    let deep: unknown = "leaf";
    for (let i = 0; i < 40; i++) deep = [deep];
    assertApiError(
      await patch(filed.requestId, { status: "in_progress", responsePayload: deep as unknown[] }),
      400,
      "VALIDATION_ERROR",
      { field: "responsePayload" },
    );
    const overflow = await t.request({
      method: "PATCH",
      url: `${STAFF_DSR}/${filed.requestId}`,
      headers: { ...dpo.headers, "content-type": "application/json" },
      payload: '{"status": "in_progress", "responsePayload": {"n": 1e400}}',
    });
    assertApiError(overflow, 400, "VALIDATION_ERROR", { field: "responsePayload" });
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF_DSR}?organizationId=${orgId()}&dueBefore=100000000000000000000000`,
        headers: dpo.headers,
      }),
      400,
      "VALIDATION_ERROR",
      { field: "dueBefore" },
    );

    const otherDpo = await signIn(t, other, "dpo");
    assertApiError(
      await patch(filed.requestId, { status: "in_progress" }, otherDpo.headers),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({ method: "GET", url: `${STAFF_DSR}/${filed.requestId}`, headers: otherDpo.headers }),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF_DSR}/${filed.requestId}/summary`,
        headers: otherDpo.headers,
      }),
      404,
      "NOT_FOUND",
    );
    assertApiError(await patch("dsr_doesnotexist0000000", { status: "in_progress" }), 404, "NOT_FOUND");
    assert.equal((await history(filed.requestId)).request.status, "pending");
  });

  test("roles: a viewer reads the queue but every write is 403 FORBIDDEN; admin and the service key write", async () => {
    const token = await principalToken(t, seeded, "dsr-frank");
    const filed = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    assert.ok((await queue("", viewer.headers)).some((r) => r.requestId === filed.requestId));
    assertApiError(await patch(filed.requestId, { status: "in_progress" }, viewer.headers), 403, "FORBIDDEN");
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF_DSR}/${filed.requestId}/summary`,
        headers: viewer.headers,
      }),
      403,
      "FORBIDDEN",
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: `${STAFF_DSR}/${filed.requestId}/statutory-denial`,
        headers: viewer.headers,
        payload: { statute: "Companies Act, 2013", citation: "Section 128(5)" },
      }),
      403,
      "FORBIDDEN",
    );
    // Without the CSRF header a cookie-authenticated write is refused too.
    assertApiError(
      await patch(filed.requestId, { status: "in_progress" }, { cookie: dpo.headers.cookie! }),
      403,
      "FORBIDDEN",
    );
    const admin = await signIn(t, seeded, "admin");
    assert.deepEqual((await patch(filed.requestId, { status: "in_progress" }, admin.headers)).json(), {
      updated: true,
    });
    const viaKey = await patch(
      filed.requestId,
      { status: "rejected", reason: "not verifiable" },
      bearer(seeded.apiKey),
    );
    assert.deepEqual(viaKey.json(), { updated: true });
    const { transitions } = await history(filed.requestId);
    assert.deepEqual(transitions.at(-1)!.actorKind, "service");
    assert.equal(transitions.at(-1)!.actorId, seeded.apiKeyId);
  });

  test("the staff queue: own organisation only, filtered by status, type and due date", async () => {
    const otherDpo = await signIn(t, other, "dpo");
    const res = await t.request({
      method: "GET",
      url: `${STAFF_DSR}?organizationId=${orgId()}`,
      headers: otherDpo.headers,
    });
    assertApiError(res, 400, "NOT_ASSOCIATED_WITH_ORG");
    assertApiError(
      await t.request({ method: "GET", url: STAFF_DSR, headers: dpo.headers }),
      400,
      "VALIDATION_ERROR",
      {
        field: "organizationId",
      },
    );
    assertApiError(
      await t.request({ method: "GET", url: `${STAFF_DSR}?organizationId=${orgId()}` }),
      401,
      "UNAUTHORIZED",
    );

    const token = await principalToken(t, seeded, "dsr-grace");
    const early = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    // A longer period makes a later deadline without moving the clock (sessions stay valid).
    const setPeriod = (dsrResponseDays: number) =>
      t.request({
        method: "PUT",
        url: "/api/v1/staff/rights/settings",
        headers: dpo.headers,
        payload: { dsrResponseDays },
      });
    assert.equal((await setPeriod(45)).statusCode, 200);
    const late = await fileDsr(t, token, { organizationId: orgId(), type: "summary" });
    assert.equal(late.dueAt - late.createdAt, 45 * DAY);
    assert.equal((await setPeriod(30)).statusCode, 200);

    const all = await queue();
    const dueOrder = all.map((r) => r.dueAt);
    assert.deepEqual(
      dueOrder,
      [...dueOrder].sort((a, b) => a - b),
      "earliest deadline first",
    );
    assert.ok(all.every((r) => r.organizationId === orgId()));
    const erasures = await queue("&type=erasure&status=pending");
    assert.ok(erasures.some((r) => r.requestId === early.requestId));
    assert.ok(erasures.every((r) => r.type === "erasure" && r.status === "pending"));
    const dueBefore = await queue(`&dueBefore=${late.dueAt}`);
    assert.ok(dueBefore.some((r) => r.requestId === early.requestId));
    assert.ok(!dueBefore.some((r) => r.requestId === late.requestId));
    const dueAfter = await queue(`&dueAfter=${early.dueAt}`);
    assert.ok(dueAfter.some((r) => r.requestId === late.requestId));
    assert.ok(!dueAfter.some((r) => r.requestId === early.requestId));
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF_DSR}?organizationId=${orgId()}&status=open`,
        headers: dpo.headers,
      }),
      400,
      "VALIDATION_ERROR",
      { field: "status" },
    );
  });

  test("statutory denial: erasure only, recorded with statute and citation, then final", async () => {
    const token = await principalToken(t, seeded, "dsr-heidi");
    const erasure = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    const summary = await fileDsr(t, token, { organizationId: orgId(), type: "summary" });
    const deny = (requestId: string, payload: Record<string, unknown>) =>
      t.request({
        method: "POST",
        url: `${STAFF_DSR}/${requestId}/statutory-denial`,
        headers: dpo.headers,
        payload,
      });
    const basis = {
      statute: "Prevention of Money-laundering Act, 2002",
      citation: "Section 12(1) and (4): client identification records, five years after the account closes",
    };

    assertApiError(await deny(summary.requestId, basis), 400, "INVALID_STATUS_TRANSITION", {
      message: /erasure/,
    });
    assertApiError(await deny(erasure.requestId, { statute: basis.statute }), 400, "VALIDATION_ERROR", {
      field: "citation",
    });
    assertApiError(await deny(erasure.requestId, { ...basis, statute: "" }), 400, "VALIDATION_ERROR", {
      field: "statute",
    });
    assertApiError(await deny(erasure.requestId, { ...basis, citation: "  " }), 400, "VALIDATION_ERROR", {
      field: "citation",
    });

    const res = await deny(erasure.requestId, basis);
    assert.deepEqual(res.json(), { updated: true });
    const { request, transitions } = await history(erasure.requestId);
    assert.equal(request.status, "rejected");
    assert.deepEqual(request.responsePayload, {
      statutoryDenial: { ...basis, deniedAt: t.clock.now() },
    });
    assert.deepEqual(
      transitions.map((x) => [x.from, x.to]),
      [
        [null, "pending"],
        ["pending", "in_progress"],
        ["in_progress", "rejected"],
      ],
    );
    assertApiError(await deny(erasure.requestId, basis), 400, "INVALID_STATUS_TRANSITION");
    const audit = await auditEntriesFor(t.db, orgId(), erasure.requestId);
    assert.equal(audit.at(-1)!.payload.statute, basis.statute);

    // Switched off: denial answers 400 (contract 1.6.0), the suggestions an empty list.
    const another = await fileDsr(t, token, { organizationId: orgId(), type: "erasure" });
    await setCapabilities(t.db, orgId(), { dsr_statutory_denial: false });
    try {
      assertApiError(await deny(another.requestId, basis), 400, "VALIDATION_ERROR", {
        message: /switched off/,
      });
      const suggestions = await t.request({
        method: "GET",
        url: `${STAFF_DSR}/statutory-basis-suggestions`,
        headers: dpo.headers,
      });
      assert.deepEqual(suggestions.json(), { suggestions: [] });
    } finally {
      await setCapabilities(t.db, orgId(), { dsr_statutory_denial: true });
    }
  });

  test("statutory-basis suggestions: a curated list, filtered by sector, each marked for counsel", async () => {
    const get = async (query = "") => {
      const res = await t.request({
        method: "GET",
        url: `${STAFF_DSR}/statutory-basis-suggestions${query}`,
        headers: viewer.headers,
      });
      assert.equal(res.statusCode, 200, res.body);
      return (
        res.json() as {
          suggestions: {
            statute: string;
            citation: string;
            sector: string;
            sectors: string[];
            caution: string;
          }[];
        }
      ).suggestions;
    };
    const all = await get();
    assert.ok(all.length >= 10);
    for (const s of all) {
      assert.ok(s.statute && s.citation && s.sector);
      assert.match(s.caution, /counsel/);
    }
    const banking = await get("?sector=banking");
    assert.ok(banking.some((s) => /Money-laundering/.test(s.statute) && /Section 12/.test(s.citation)));
    assert.ok(banking.some((s) => /Companies Act, 2013/.test(s.statute) && s.citation === "Section 128(5)"));
    assert.ok(!banking.some((s) => s.sector === "telecom"));
    assert.ok(banking.every((s) => s.sectors.includes("banking") || s.sectors.includes("general")));
    const health = await get("?sector=Health");
    assert.ok(health.some((s) => s.sector === "health"));
    assert.ok(!health.some((s) => s.sector === "banking"));
    const telecom = await get("?sector=telecom");
    assert.ok(telecom.some((s) => /Unified Licence/.test(s.statute)));
  });
});
