// The breach clocks under an injected clock: the due states as time passes, and the sweep raising
// each of breach.principal_notification_* and breach.board_report_* exactly once per breach (several
// sweeps at once included), only overdue for a clock first seen past its deadline, nothing once a
// clock is met, nothing for drills; payloads carry ids and dates, never the description.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { sweepBreachClocks } from "../../src/breaches/clocks.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { outboxEvents } from "../support/rights-helpers.js";
import { ok } from "../support/staff-client.js";

const STAFF = "/api/v1/staff/breaches";
const HOUR = 3_600_000;
const BOARD_DUE_SOON = (72 * HOUR * 4) / 5; // 57.6 hours: 80 % of the 72-hour period
const PRINCIPAL_DUE_SOON = (24 * HOUR * 4) / 5;

type Breach = {
  breachId: string;
  discoveredAt: number;
  boardReportDueAt: number;
  principalNotificationDueAt: number;
  principalNotificationDueState: string;
  boardReportDueState: string;
};

describe("breach clocks", () => {
  let t: TestApp;
  let org: SeededOrg;
  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
  });
  after(() => t.close());

  const record = async (body: Record<string, unknown>, seeded = org) =>
    ok<Breach>(
      await t.request({ method: "POST", url: STAFF, headers: bearer(seeded.apiKey), payload: body }),
      201,
    );
  const get = async (id: string, seeded = org) =>
    ok<Breach>(await t.request({ method: "GET", url: `${STAFF}/${id}`, headers: bearer(seeded.apiKey) }));
  const raised = async (type: string, seeded = org) =>
    (await outboxEvents(t.db, seeded.org.organizationId, type)).length;
  const sweep = () => sweepBreachClocks(t.db, t.clock.now());

  test("the 72-hour clock goes due_soon then overdue, each event raised exactly once", async () => {
    const start = t.clock.now();
    const breach = await record({
      description: "Misdirected export of customer emails",
      discoveredAt: start,
    });
    const drill = await record({
      description: "Drill: ransomware tabletop",
      discoveredAt: start,
      drill: true,
    });
    assert.deepEqual(await sweep(), { dueSoon: 0, overdue: 0 });

    // The principal clock (24 hours): due soon at 80 %, overdue at the deadline.
    t.clock.set(start + PRINCIPAL_DUE_SOON - 1);
    assert.equal((await get(breach.breachId)).principalNotificationDueState, "on_time");
    await sweep();
    assert.equal(await raised("breach.principal_notification_due_soon"), 0);
    t.clock.set(start + PRINCIPAL_DUE_SOON);
    assert.equal((await get(breach.breachId)).principalNotificationDueState, "due_soon");
    assert.deepEqual(await sweep(), { dueSoon: 1, overdue: 0 });
    t.clock.set(start + 24 * HOUR);
    assert.equal((await get(breach.breachId)).principalNotificationDueState, "overdue");
    assert.deepEqual(await sweep(), { dueSoon: 0, overdue: 1 });
    assert.equal(await raised("breach.principal_notification_due_soon"), 1);
    assert.equal(await raised("breach.principal_notification_overdue"), 1);

    // The Board clock.
    t.clock.set(start + BOARD_DUE_SOON - 1);
    assert.equal((await get(breach.breachId)).boardReportDueState, "on_time");
    await sweep();
    assert.equal(await raised("breach.board_report_due_soon"), 0);
    t.clock.set(start + BOARD_DUE_SOON);
    const soon = await get(breach.breachId);
    assert.equal(soon.boardReportDueState, "due_soon");
    // Several instances sweeping at once still raise the event once.
    await Promise.all([1, 2, 3].map(() => sweep()));
    await sweep();
    assert.equal(await raised("breach.board_report_due_soon"), 1);
    const [dueSoonEvent] = await outboxEvents(t.db, org.org.organizationId, "breach.board_report_due_soon");
    assert.deepEqual(dueSoonEvent!.payload, {
      breachId: breach.breachId,
      discoveredAt: start,
      boardReportDueAt: start + 72 * HOUR,
      reportedToBoardAt: null,
    });

    t.clock.set(start + 72 * HOUR - 1);
    await sweep();
    assert.equal(await raised("breach.board_report_overdue"), 0);
    t.clock.set(start + 72 * HOUR);
    assert.equal((await get(breach.breachId)).boardReportDueState, "overdue");
    await Promise.all([1, 2].map(() => sweep()));
    t.clock.advance(24 * HOUR);
    await sweep();
    assert.equal(await raised("breach.board_report_overdue"), 1);
    assert.equal(await raised("breach.board_report_due_soon"), 1, "due_soon is not raised again");

    // Drills show their clocks to staff but raise nothing.
    assert.equal((await get(drill.breachId)).boardReportDueState, "overdue");
    const events = await outboxEvents(t.db, org.org.organizationId);
    assert.ok(
      events.every((e) => e.payload.breachId !== drill.breachId),
      "no event names the drill",
    );
    for (const event of events)
      assert.doesNotMatch(
        JSON.stringify(event.payload),
        /Misdirected|ransomware/,
        "no description in events",
      );

    // A late detailed report: the clock reads `missed`.
    const late = ok<Breach>(
      await t.request({
        method: "PATCH",
        url: `${STAFF}/${breach.breachId}`,
        headers: bearer(org.apiKey),
        payload: { reportedToBoardAt: start + 80 * HOUR, detailedReportSubmittedAt: start + 90 * HOUR },
      }),
    );
    assert.equal(late.boardReportDueState, "missed");
  });

  test("a clock first seen past its deadline raises only overdue; a met clock raises nothing", async () => {
    const seeded = await seedOrganization(t);
    const now = t.clock.now();
    const old = await record({ description: "found late", discoveredAt: now - 80 * HOUR }, seeded);
    const met = await record({ description: "reported fast", discoveredAt: now - HOUR }, seeded);
    ok(
      await t.request({
        method: "PATCH",
        url: `${STAFF}/${met.breachId}`,
        headers: bearer(seeded.apiKey),
        payload: { reportedToBoardAt: now - 30 * 60_000, detailedReportSubmittedAt: now },
      }),
    );
    await sweep();
    assert.equal(await raised("breach.board_report_overdue", seeded), 1);
    assert.equal(await raised("breach.board_report_due_soon", seeded), 0);
    assert.equal(await raised("breach.principal_notification_overdue", seeded), 1);
    assert.equal(await raised("breach.principal_notification_due_soon", seeded), 0);
    t.clock.advance(72 * HOUR);
    await sweep();
    const board = await outboxEvents(t.db, seeded.org.organizationId, "breach.board_report_overdue");
    assert.deepEqual(
      board.map((e) => e.payload.breachId),
      [old.breachId],
      "the met clock raised nothing",
    );
    assert.equal((await get(met.breachId, seeded)).boardReportDueState, "met");
  });

  test("the window for principals is chosen when recorded, at most 72 hours", async () => {
    const now = t.clock.now();
    const breach = await record({
      description: "window",
      discoveredAt: now,
      principalNotificationWindowHours: 72,
    });
    assert.equal(breach.principalNotificationDueAt, now + 72 * HOUR);
    assert.equal(breach.boardReportDueAt, now + 72 * HOUR);
    const short = await record({
      description: "window",
      discoveredAt: now,
      principalNotificationWindowHours: 1,
    });
    assert.equal(short.principalNotificationDueAt, now + HOUR);
  });
});
