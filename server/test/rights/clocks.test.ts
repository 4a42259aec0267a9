// Statutory clocks: published response periods (defaults 30/30, never above the 90-day ceiling of
// Rule 14(3)), dueAt fixed at filing, dueState and the overdue / due-soon queues, and the sweep that
// raises dsr/grievance .due_soon and .overdue exactly once per item.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { dueSoonAt, sweepRightsClocks } from "../../src/rights/clocks.js";
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
  DAY,
  fileDsr,
  fileGrievance,
  outboxEvents,
  principalToken,
  SETTINGS,
  STAFF_DSR,
  STAFF_GRIEVANCES,
  type DsrBody,
  type GrievanceBody,
} from "../support/rights-helpers.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";

describe("statutory clocks", () => {
  let t: TestApp;
  let seeded: SeededOrg;

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
  });
  after(() => t.close());

  const orgId = () => seeded.org.organizationId;
  const staffGet = async <T>(url: string): Promise<T> => {
    const res = await t.request({ method: "GET", url, headers: bearer(seeded.apiKey) });
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as T;
  };

  test("response periods: defaults, published, set by admin/dpo only, at most 90 days", async () => {
    const dpo = await signIn(t, seeded, "dpo");
    const viewer = await signIn(t, seeded, "viewer");
    const initial = await staffGet<Record<string, unknown>>(SETTINGS);
    assert.deepEqual(initial, {
      organizationId: orgId(),
      dsrResponseDays: 30,
      grievanceResponseDays: 30,
      maxResponseDays: 90,
      updatedAt: null,
    });
    const published = await t.request({ method: "GET", url: `/api/v1/org/${orgId()}/response-periods` });
    assert.deepEqual(published.json(), {
      organizationId: orgId(),
      dsrResponseDays: 30,
      grievanceResponseDays: 30,
    });
    assertApiError(
      await t.request({ method: "GET", url: "/api/v1/org/org_doesnotexist000000/response-periods" }),
      404,
      "NOT_FOUND",
    );

    const putSettings = (payload: Record<string, unknown>, headers = dpo.headers) =>
      t.request({ method: "PUT", url: SETTINGS, headers, payload });
    for (const [payload, field] of [
      [{ dsrResponseDays: 91 }, "dsrResponseDays"],
      [{ grievanceResponseDays: 365 }, "grievanceResponseDays"],
      [{ dsrResponseDays: 0 }, "dsrResponseDays"],
      [{ dsrResponseDays: 10.5 }, "dsrResponseDays"],
      [{ grievanceResponseDays: "30" }, "grievanceResponseDays"],
    ] as const) {
      const res = await putSettings(payload);
      const body = assertApiError(res, 400, "VALIDATION_ERROR", { field });
      if (field === "dsrResponseDays" && payload.dsrResponseDays === 91) assert.match(body.error, /90/);
    }
    assertApiError(await putSettings({}), 400, "VALIDATION_ERROR");
    assertApiError(await putSettings({ dsrResponseDays: 15 }, viewer.headers), 403, "FORBIDDEN");

    const set = await putSettings({ grievanceResponseDays: 90 });
    assert.equal(set.statusCode, 200, set.body);
    assert.deepEqual(set.json(), {
      organizationId: orgId(),
      dsrResponseDays: 30,
      grievanceResponseDays: 90,
      maxResponseDays: 90,
      updatedAt: t.clock.now(),
    });
    await linkQueuedOf(t.db, orgId(), t.clock.now());
    const audit = await t.db.query<{ payload: string }>(
      "SELECT payload FROM audit_entries WHERE organization_id = $1 AND entry_type = 'rights.response_periods_changed'",
      [orgId()],
    );
    assert.equal(audit.length, 1);
    assert.deepEqual(JSON.parse(audit[0]!.payload).to, { dsrResponseDays: 30, grievanceResponseDays: 90 });

    // The period in force at filing fixes dueAt; a later change does not move it.
    const token = await principalToken(t, seeded, "clock-alice");
    const grievance = await fileGrievance(t, token, {
      organizationId: orgId(),
      subject: "s",
      description: "d",
    });
    assert.equal(grievance.dueAt, grievance.createdAt + 90 * DAY);
    await putSettings({ grievanceResponseDays: 30, dsrResponseDays: 30 });
    const again = await staffGet<{ grievance: GrievanceBody }>(
      `${STAFF_GRIEVANCES}/${grievance.grievanceId}`,
    );
    assert.equal(again.grievance.dueAt, grievance.createdAt + 90 * DAY);
    // Filings read the periods through a per-instance cache (the 90 days just used); the change
    // announced its invalidation, so the next filing is held to the new period.
    const next = await fileGrievance(t, token, { organizationId: orgId(), subject: "s2", description: "d" });
    assert.equal(next.dueAt, next.createdAt + 30 * DAY);
  });

  test("dueState moves on_time → due_soon (80 %) → overdue; the queues filter on it; the sweep raises each once", async () => {
    const org = await seedOrganization(t);
    const token = await principalToken(t, org, "clock-bob");
    const dsr = await fileDsr(t, token, { organizationId: org.org.organizationId, type: "erasure" });
    const grievance = await fileGrievance(t, token, {
      organizationId: org.org.organizationId,
      subject: "s",
      description: "d",
    });
    const orgQueue = async <T>(url: string, query: string, key: string) => {
      const res = await t.request({
        method: "GET",
        url: `${url}?organizationId=${org.org.organizationId}${query}`,
        headers: bearer(org.apiKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as Record<string, T[]>)[key]!;
    };
    const dsrQueue = (query = "") => orgQueue<DsrBody>(STAFF_DSR, query, "requests");
    const grievanceQueue = (query = "") => orgQueue<GrievanceBody>(STAFF_GRIEVANCES, query, "grievances");
    const raised = async (type: string) => (await outboxEvents(t.db, org.org.organizationId, type)).length;

    assert.equal((await dsrQueue())[0]!.dueState, "on_time");
    assert.deepEqual(await sweepRightsClocks(t.db, t.clock.now()), { dueSoon: 0, overdue: 0 });

    // Just before 80 % of the period: still on time.
    t.clock.set(dueSoonAt(dsr.createdAt, dsr.dueAt) - 1);
    assert.equal((await dsrQueue())[0]!.dueState, "on_time");
    assert.deepEqual(await dsrQueue("&dueSoon=true"), []);
    await sweepRightsClocks(t.db, t.clock.now());
    assert.equal(await raised("dsr.due_soon"), 0);

    t.clock.advance(1);
    assert.equal((await dsrQueue())[0]!.dueState, "due_soon");
    assert.equal((await grievanceQueue())[0]!.dueState, "due_soon");
    assert.equal((await dsrQueue("&dueSoon=true")).length, 1);
    assert.deepEqual(await dsrQueue("&overdue=true"), []);
    const first = await sweepRightsClocks(t.db, t.clock.now());
    assert.ok(first.dueSoon >= 2, JSON.stringify(first));
    assert.equal(await raised("dsr.due_soon"), 1);
    assert.equal(await raised("grievance.due_soon"), 1);
    const dueSoonEvent = (await outboxEvents(t.db, org.org.organizationId, "dsr.due_soon"))[0]!;
    assert.deepEqual(dueSoonEvent.payload, {
      requestId: dsr.requestId,
      type: "erasure",
      status: "pending",
      createdAt: dsr.createdAt,
      dueAt: dsr.dueAt,
      externalId: "clock-bob",
    });
    await sweepRightsClocks(t.db, t.clock.now());
    assert.equal(await raised("dsr.due_soon"), 1, "raised once");

    t.clock.set(dsr.dueAt);
    assert.equal((await dsrQueue())[0]!.dueState, "overdue");
    assert.equal((await dsrQueue("&overdue=true")).length, 1);
    assert.equal((await grievanceQueue("&overdue=true")).length, 1);
    assert.deepEqual(await dsrQueue("&overdue=false"), []);
    // Several instances sweeping at once still raise each event once.
    await Promise.all([1, 2, 3].map(() => sweepRightsClocks(t.db, t.clock.now())));
    await sweepRightsClocks(t.db, t.clock.now() + DAY);
    assert.equal(await raised("dsr.overdue"), 1);
    assert.equal(await raised("grievance.overdue"), 1);

    // Closed late: `missed`, and no longer in the overdue queue.
    t.clock.advance(1000);
    const respond = await t.request({
      method: "POST",
      url: `${STAFF_GRIEVANCES}/${grievance.grievanceId}/respond`,
      headers: bearer(org.apiKey),
      payload: { status: "resolved", response: "Sorry for the delay" },
    });
    assert.equal(respond.statusCode, 200, respond.body);
    const [closed] = await grievanceQueue();
    assert.equal(closed!.dueState, "missed");
    assert.deepEqual(await grievanceQueue("&overdue=true"), []);
  });

  test("an item first seen after its deadline raises only overdue", async () => {
    const org = await seedOrganization(t);
    const token = await principalToken(t, org, "clock-carol");
    const dsr = await fileDsr(t, token, { organizationId: org.org.organizationId, type: "summary" });
    t.clock.set(dsr.dueAt + 1);
    await sweepRightsClocks(t.db, t.clock.now());
    assert.equal((await outboxEvents(t.db, org.org.organizationId, "dsr.overdue")).length, 1);
    assert.equal((await outboxEvents(t.db, org.org.organizationId, "dsr.due_soon")).length, 0);
  });

  test("closed items raise nothing", async () => {
    const org = await seedOrganization(t);
    const token = await principalToken(t, org, "clock-dave");
    const dsr = await fileDsr(t, token, { organizationId: org.org.organizationId, type: "correction" });
    for (const status of ["in_progress", "completed"]) {
      const res = await t.request({
        method: "PATCH",
        url: `${STAFF_DSR}/${dsr.requestId}`,
        headers: bearer(org.apiKey),
        payload: { status },
      });
      assert.equal(res.statusCode, 200, res.body);
    }
    t.clock.set(dsr.dueAt + DAY);
    await sweepRightsClocks(t.db, t.clock.now());
    assert.equal((await outboxEvents(t.db, org.org.organizationId, "dsr.overdue")).length, 0);
  });
});
