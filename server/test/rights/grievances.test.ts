// Grievances: filing and listing by the principal, the staff queue, `respond` through
// open → in_progress → resolved, each response kept in the history, and bad input.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
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
  fileGrievance,
  GRIEVANCES,
  outboxEvents,
  principalToken,
  STAFF_GRIEVANCES,
  type GrievanceBody,
  type TransitionBody,
} from "../support/rights-helpers.js";

describe("grievances", () => {
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
  const respond = (grievanceId: string, payload: Record<string, unknown>, headers = dpo.headers) =>
    t.request({ method: "POST", url: `${STAFF_GRIEVANCES}/${grievanceId}/respond`, headers, payload });
  const detail = async (grievanceId: string) => {
    const res = await t.request({
      method: "GET",
      url: `${STAFF_GRIEVANCES}/${grievanceId}`,
      headers: viewer.headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { grievance: GrievanceBody; transitions: TransitionBody[] };
  };
  const queue = async (query = "") => {
    const res = await t.request({
      method: "GET",
      url: `${STAFF_GRIEVANCES}?organizationId=${orgId()}${query}`,
      headers: viewer.headers,
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { grievances: GrievanceBody[] }).grievances;
  };

  test("a principal files a grievance with a 30-day clock and lists only its own", async () => {
    const token = await principalToken(t, seeded, "grv-alice");
    const now = t.clock.now();
    const filed = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "Marketing after withdrawal",
      description: "I withdrew consent for marketing on 1 March and still get SMS offers.",
    });
    assert.match(filed.grievanceId, /^grv_/);
    assert.equal(filed.status, "open");
    assert.equal(filed.dueAt, now + 30 * DAY);
    assert.equal(filed.createdAt, now);
    assert.equal(filed.externalId, "grv-alice");
    assert.equal(filed.respondedAt, undefined);

    const bob = await principalToken(t, seeded, "grv-bob");
    await fileGrievance(t, bob, { organizationId: orgId(), subject: "x", description: "y" });
    const mine = await t.request({ method: "GET", url: GRIEVANCES, headers: bearer(token) });
    assert.deepEqual(
      (mine.json() as { grievances: GrievanceBody[] }).grievances.map((g) => g.grievanceId),
      [filed.grievanceId],
    );
    const created = (await outboxEvents(t.db, orgId(), "grievance.created")).find(
      (e) => e.payload.grievanceId === filed.grievanceId,
    );
    assert.ok(created);
    assert.equal(created.payload.externalId, "grv-alice");
    assert.equal(created.payload.subject, undefined, "the complaint's text stays out of the outbox");
  });

  test("bad input: empty or blank subject/description → VALIDATION_ERROR naming the field; other org → 400", async () => {
    const token = await principalToken(t, seeded, "grv-careless");
    const cases: [Record<string, unknown>, string][] = [
      [{ organizationId: orgId(), subject: "", description: "d" }, "subject"],
      [{ organizationId: orgId(), subject: "s", description: "" }, "description"],
      [{ organizationId: orgId(), subject: "  ", description: "d" }, "subject"],
      [{ organizationId: orgId(), subject: "s", description: "\n\t" }, "description"],
      [{ organizationId: orgId(), description: "d" }, "subject"],
      [{ organizationId: orgId(), subject: "s" }, "description"],
      [{ organizationId: orgId(), subject: "s".repeat(201), description: "d" }, "subject"],
    ];
    for (const [payload, field] of cases) {
      const res = await t.request({ method: "POST", url: GRIEVANCES, headers: bearer(token), payload });
      assertApiError(res, 400, "VALIDATION_ERROR", { field });
    }
    const foreign = await t.request({
      method: "POST",
      url: GRIEVANCES,
      headers: bearer(token),
      payload: { organizationId: other.org.organizationId, subject: "s", description: "d" },
    });
    assertApiError(foreign, 400, "NOT_ASSOCIATED_WITH_ORG");
    const mine = await t.request({ method: "GET", url: GRIEVANCES, headers: bearer(token) });
    assert.deepEqual(mine.json(), { grievances: [], nextCursor: null });
  });

  test("an expired principal token is 401", async () => {
    const token = await principalToken(t, seeded, "grv-late");
    t.clock.advance(61 * 60_000);
    assertApiError(
      await t.request({ method: "GET", url: GRIEVANCES, headers: bearer(token) }),
      401,
      "UNAUTHORIZED",
    );
    const post = await t.request({
      method: "POST",
      url: GRIEVANCES,
      headers: bearer(token),
      payload: { organizationId: orgId(), subject: "s", description: "d" },
    });
    assertApiError(post, 401, "UNAUTHORIZED");
    dpo = await signIn(t, seeded, "dpo");
    viewer = await signIn(t, seeded, "viewer");
  });

  test("respond: open → in_progress (interim) → in_progress (follow-up) → resolved, all kept in history", async () => {
    const token = await principalToken(t, seeded, "grv-carol");
    const filed = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "Wrong data",
      description: "d",
    });

    t.clock.advance(1000);
    assert.deepEqual(
      (await respond(filed.grievanceId, { status: "in_progress", response: "Looking into it" })).json(),
      {
        updated: true,
      },
    );
    t.clock.advance(1000);
    assert.deepEqual(
      (await respond(filed.grievanceId, { status: "in_progress", response: "Found the cause" })).json(),
      { updated: true },
    );
    // The same response again is a retry, not a new response.
    assert.deepEqual(
      (await respond(filed.grievanceId, { status: "in_progress", response: "Found the cause" })).json(),
      { updated: false },
    );
    t.clock.advance(1000);
    const closeAt = t.clock.now();
    assert.deepEqual(
      (await respond(filed.grievanceId, { status: "resolved", response: "Corrected" })).json(),
      {
        updated: true,
      },
    );

    const { grievance, transitions } = await detail(filed.grievanceId);
    assert.equal(grievance.status, "resolved");
    assert.equal(grievance.response, "Corrected");
    assert.equal(grievance.respondedAt, closeAt);
    assert.equal(grievance.closedAt, closeAt);
    assert.equal(grievance.dueState, "met");
    assert.deepEqual(
      transitions.map((x) => [x.from, x.to, x.actorKind, x.reason]),
      [
        [null, "open", "principal", null],
        ["open", "in_progress", "staff", "Looking into it"],
        ["in_progress", "in_progress", "staff", "Found the cause"],
        ["in_progress", "resolved", "staff", "Corrected"],
      ],
    );
    const statusEvents = (await outboxEvents(t.db, orgId(), "grievance.status_changed")).filter(
      (e) => e.payload.grievanceId === filed.grievanceId,
    );
    assert.deepEqual(statusEvents.map((e) => e.payload.status).sort(), ["in_progress", "resolved"]);
    const audit = await auditEntriesFor(t.db, orgId(), filed.grievanceId);
    assert.equal(audit.length, 4);
    assert.ok(
      audit.every(
        (a) => a.entryType === "grievance.transition" && !JSON.stringify(a.payload).includes("Corrected"),
      ),
    );

    // Resolved is final; the principal sees the response.
    assertApiError(
      await respond(filed.grievanceId, { status: "in_progress", response: "reopen" }),
      400,
      "INVALID_STATUS_TRANSITION",
    );
    assertApiError(
      await respond(filed.grievanceId, { status: "resolved", response: "another answer" }),
      400,
      "INVALID_STATUS_TRANSITION",
    );
    const mine = await t.request({ method: "GET", url: GRIEVANCES, headers: bearer(token) });
    assert.equal((mine.json() as { grievances: GrievanceBody[] }).grievances[0]!.response, "Corrected");
  });

  test("resolving an open grievance walks through in_progress", async () => {
    const token = await principalToken(t, seeded, "grv-dave");
    const filed = await fileGrievance(t, token, { organizationId: orgId(), subject: "s", description: "d" });
    assert.deepEqual((await respond(filed.grievanceId, { status: "resolved", response: "Done" })).json(), {
      updated: true,
    });
    const { transitions } = await detail(filed.grievanceId);
    assert.deepEqual(
      transitions.map((x) => [x.from, x.to]),
      [
        [null, "open"],
        ["open", "in_progress"],
        ["in_progress", "resolved"],
      ],
    );
  });

  test("respond: bad input, roles and other organisations", async () => {
    const token = await principalToken(t, seeded, "grv-erin");
    const filed = await fileGrievance(t, token, { organizationId: orgId(), subject: "s", description: "d" });
    assertApiError(
      await respond(filed.grievanceId, { status: "open", response: "r" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "status",
      },
    );
    assertApiError(
      await respond(filed.grievanceId, { status: "closed", response: "r" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "status",
      },
    );
    assertApiError(
      await respond(filed.grievanceId, { status: "resolved", response: "" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "response",
      },
    );
    assertApiError(
      await respond(filed.grievanceId, { status: "resolved", response: "   " }),
      400,
      "VALIDATION_ERROR",
      {
        field: "response",
      },
    );
    assertApiError(await respond(filed.grievanceId, { status: "resolved" }), 400, "VALIDATION_ERROR", {
      field: "response",
    });
    assertApiError(
      await respond(filed.grievanceId, { status: "resolved", response: "r" }, viewer.headers),
      403,
      "FORBIDDEN",
    );

    const otherAdmin = await signIn(t, other, "admin");
    assertApiError(
      await respond(filed.grievanceId, { status: "resolved", response: "r" }, otherAdmin.headers),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF_GRIEVANCES}/${filed.grievanceId}`,
        headers: otherAdmin.headers,
      }),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF_GRIEVANCES}?organizationId=${orgId()}`,
        headers: otherAdmin.headers,
      }),
      400,
      "NOT_ASSOCIATED_WITH_ORG",
    );
    assertApiError(
      await respond("grv_doesnotexist000000", { status: "resolved", response: "r" }),
      404,
      "NOT_FOUND",
    );
    assert.equal((await detail(filed.grievanceId)).grievance.status, "open");

    const viaKey = await respond(
      filed.grievanceId,
      { status: "in_progress", response: "from the backend" },
      bearer(seeded.apiKey),
    );
    assert.deepEqual(viaKey.json(), { updated: true });
  });

  test("the staff queue filters by status, due date and overdue", async () => {
    const token = await principalToken(t, seeded, "grv-frank");
    const first = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "first",
      description: "d",
    });
    await respond(first.grievanceId, { status: "in_progress", response: "on it" });
    const second = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "second",
      description: "d",
    });

    const open = await queue("&status=open");
    assert.ok(open.some((g) => g.grievanceId === second.grievanceId));
    assert.ok(!open.some((g) => g.grievanceId === first.grievanceId));
    const inProgress = await queue("&status=in_progress");
    assert.ok(inProgress.some((g) => g.grievanceId === first.grievanceId));
    assert.ok((await queue(`&dueBefore=${second.dueAt}`)).every((g) => g.dueAt < second.dueAt));
    assert.ok((await queue(`&dueAfter=${first.dueAt}`)).every((g) => g.dueAt > first.dueAt));
    assert.deepEqual(await queue("&overdue=true"), []);
    assert.ok((await queue("&overdue=false")).length >= 2);
    assertApiError(
      await t.request({
        method: "GET",
        url: `${STAFF_GRIEVANCES}?organizationId=${orgId()}&overdue=maybe`,
        headers: viewer.headers,
      }),
      400,
      "VALIDATION_ERROR",
      { field: "overdue" },
    );
  });
});
