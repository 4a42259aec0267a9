// Two things a DPO running the register at scale expects, with an injected clock:
// - the sweep reads a principal again only when her notice could be owed, or when she gave a
//   consent to the purpose (or had the anchor event reported) since its last pass, and still
//   schedules every window on time; a full pass runs once a day;
// - staff cancel one erasure by hand with a reason (POST …/erasures/{id}/cancel, `guard retention
//   erasures cancel`): off the due list, on the audit chain with who and why, the event without the
//   text, never rescheduled for that window; roles, validation and tenant isolation as elsewhere.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { sweepRetention, FULL_PASS_EVERY_MS } from "../../src/retention/sweep.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { fileGrievance, outboxEvents, principalToken } from "../support/rights-helpers.js";
import {
  chainTypes,
  consentingPrincipal,
  createPolicy,
  DAY,
  dueOf,
  ERASURES,
  erasuresOf,
  EVENTS,
  executedUrl,
  HOUR,
  json,
  publishNotice,
  RecordingNotifier,
  svc,
  type ErasureBody,
} from "./helpers.js";

const THREE_YEARS = 1096 * DAY;
const cancelUrl = (id: string) => `${ERASURES}/${id}/cancel`;

describe("retention: the incremental sweep and cancelling by hand", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let notice: { noticeId: string; version: number };
  const orgId = () => seeded.org.organizationId;
  const notifier = new RecordingNotifier();

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    notice = await publishNotice(t, seeded);
  });
  after(() => t.close());

  test("the sweep reads only the principals whose notice could be owed, and schedules each on time", async () => {
    // Incremental reads alone (no daily full pass) must schedule every window on time.
    const incremental = () => sweepRetention(t.db, notifier, t.clock.now(), { fullPassEveryMs: Infinity });
    const start = t.clock.now();
    const policy = await createPolicy(t, seeded, { preset: "ecommerce", purpose: "Scan" });
    const [p1, p2, p3] = [
      await consentingPrincipal(t, seeded, notice, "Scan"),
      await consentingPrincipal(t, seeded, notice, "Scan"),
      await consentingPrincipal(t, seeded, notice, "Scan"),
    ];
    // Someone consenting to another purpose is no candidate.
    await consentingPrincipal(t, seeded, notice, "Other");

    // The policy's first pass reads every candidate; the next reads nobody.
    t.clock.advance(5 * 60_000);
    assert.equal((await incremental()).examined, 3);
    t.clock.advance(5 * 60_000);
    assert.deepEqual(await incremental(), { scheduled: 0, notified: 0, cancelled: 0, examined: 0 });

    // A new consent to the purpose is read on the next pass, and only it.
    t.clock.advance(5 * 60_000);
    const p4 = await consentingPrincipal(t, seeded, notice, "Scan");
    const p4At = t.clock.now();
    t.clock.advance(5 * 60_000);
    assert.equal((await incremental()).examined, 1);
    t.clock.advance(5 * 60_000);
    assert.equal((await incremental()).examined, 0);

    // A millisecond before the first three owe their notice: nobody is read. Then exactly they are,
    // and are scheduled and told in that pass.
    const noticeAt = start + THREE_YEARS - 48 * HOUR;
    t.clock.set(noticeAt - 1);
    assert.deepEqual(await incremental(), { scheduled: 0, notified: 0, cancelled: 0, examined: 0 });
    t.clock.advance(1);
    assert.deepEqual(await incremental(), { scheduled: 3, notified: 3, cancelled: 0, examined: 3 });
    // p4, who came later, when hers is owed.
    t.clock.set(p4At + THREE_YEARS - 48 * HOUR);
    assert.deepEqual(await incremental(), { scheduled: 1, notified: 1, cancelled: 0, examined: 1 });
    assert.equal((await erasuresOf(t, seeded, `?policyId=${policy.policyId}`)).length, 4);

    // p1 comes back (files a grievance): her erasure is cancelled, and her new window is scheduled
    // when it is owed, by the incremental reads alone.
    t.clock.advance(HOUR);
    await fileGrievance(t, await principalToken(t, seeded, p1.externalId), {
      organizationId: orgId(),
      subject: "Keep my account",
      description: "I still use it.",
    });
    const cameBackAt = t.clock.now();
    t.clock.advance(5 * 60_000);
    assert.equal((await incremental()).cancelled, 1);
    t.clock.set(cameBackAt + THREE_YEARS - 48 * HOUR - 1);
    assert.equal((await incremental()).scheduled, 0);
    t.clock.advance(1);
    const again = await incremental();
    assert.equal(again.scheduled, 1);
    const open = await erasuresOf(t, seeded, `?userId=${p1.externalId}&status=scheduled`);
    assert.equal(open.length, 1);
    assert.equal(open[0]!.anchorAt, cameBackAt);
    // The others' windows were used; reading them again schedules nothing twice.
    for (const p of [p2, p3, p4])
      assert.equal(
        (await erasuresOf(t, seeded, `?userId=${p.externalId}&policyId=${policy.policyId}`)).length,
        1,
      );

    // The default sweep reads every candidate once a day.
    t.clock.advance(FULL_PASS_EVERY_MS);
    assert.equal((await sweepRetention(t.db, notifier, t.clock.now())).examined, 4);
    t.clock.advance(5 * 60_000);
    assert.equal((await sweepRetention(t.db, notifier, t.clock.now())).examined, 0);
    await t.request({
      method: "POST",
      url: `/api/v1/staff/retention/policies/${policy.policyId}/archive`,
      headers: svc(seeded),
    });
  });

  test("a reported anchor event, dated in the past, is read on the next pass", async () => {
    const incremental = () => sweepRetention(t.db, notifier, t.clock.now(), { fullPassEveryMs: Infinity });
    const policy = await createPolicy(t, seeded, {
      name: "Closed accounts",
      purpose: "Closure",
      anchorEvent: "account_closed",
      durationDays: 30,
    });
    const p = await consentingPrincipal(t, seeded, notice, "Closure");
    assert.equal((await incremental()).examined, 0);
    json(
      await t.request({
        method: "POST",
        url: EVENTS,
        headers: svc(seeded),
        payload: { userId: p.externalId, kind: "account_closed", occurredAt: t.clock.now() - 40 * DAY },
      }),
      201,
    );
    t.clock.advance(5 * 60_000);
    assert.deepEqual(await incremental(), { scheduled: 1, notified: 1, cancelled: 0, examined: 1 });
    await t.request({
      method: "POST",
      url: `/api/v1/staff/retention/policies/${policy.policyId}/archive`,
      headers: svc(seeded),
    });
  });

  test("staff cancel an erasure by hand, with a reason on the chain", async () => {
    const other = await seedOrganization(t);
    const start = t.clock.now();
    const policy = await createPolicy(t, seeded, { preset: "social_media", purpose: "Feed" });
    const p = await consentingPrincipal(t, seeded, notice, "Feed");
    const q = await consentingPrincipal(t, seeded, notice, "Feed");
    t.clock.set(start + THREE_YEARS - 48 * HOUR);
    assert.equal((await sweepRetention(t.db, notifier, t.clock.now())).scheduled, 2);
    const [pErasure] = await erasuresOf(t, seeded, `?userId=${p.externalId}&policyId=${policy.policyId}`);
    const [qErasure] = await erasuresOf(t, seeded, `?userId=${q.externalId}&policyId=${policy.policyId}`);
    assert.ok(pErasure && qErasure);

    // Validation names the field; viewers cannot; another organisation's id is 404.
    for (const payload of [{}, { reason: "   " }, { reason: 7 }, { reason: "x".repeat(501) }])
      assertApiError(
        await t.request({
          method: "POST",
          url: cancelUrl(pErasure.scheduledErasureId),
          headers: svc(seeded),
          payload,
        }),
        400,
        "VALIDATION_ERROR",
        { field: "reason" },
      );
    const viewer = await signIn(t, seeded, "viewer");
    assertApiError(
      await t.request({
        method: "POST",
        url: cancelUrl(pErasure.scheduledErasureId),
        headers: viewer.headers,
        payload: { reason: "dispute" },
      }),
      403,
      "FORBIDDEN",
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: cancelUrl(pErasure.scheduledErasureId),
        headers: svc(other),
        payload: { reason: "dispute" },
      }),
      404,
      "NOT_FOUND",
    );

    // A DPO cancels p's.
    const dpo = await signIn(t, seeded, "dpo");
    const reason = "Principal disputes inactivity; account in use offline (ticket 4411)";
    const cancelled = json<ErasureBody>(
      await t.request({
        method: "POST",
        url: cancelUrl(pErasure.scheduledErasureId),
        headers: dpo.headers,
        payload: { reason },
      }),
    );
    assert.equal(cancelled.status, "cancelled");
    assert.equal(cancelled.cancelReason, "staff_cancelled");
    assert.equal(cancelled.cancelNote, reason);
    assert.match(cancelled.cancelledBy ?? "", /^stf_/);
    const dpoId = cancelled.cancelledBy!;
    // Repeating it answers it unchanged.
    t.clock.advance(HOUR);
    const repeated = json<ErasureBody>(
      await t.request({
        method: "POST",
        url: cancelUrl(pErasure.scheduledErasureId),
        headers: svc(seeded),
        payload: { reason: "again" },
      }),
    );
    assert.deepEqual(repeated, cancelled);

    // Off the due list; the backend may not execute it; the window is not scheduled again.
    t.clock.set(start + THREE_YEARS + HOUR);
    assert.deepEqual(
      (await dueOf(t, seeded)).map((d) => d.scheduledErasureId),
      [qErasure.scheduledErasureId],
    );
    const refused = assertApiError(
      await t.request({
        method: "POST",
        url: executedUrl(pErasure.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
      409,
      "CONFLICT",
    );
    assert.match(refused.error, /staff_cancelled/);
    assert.equal((await sweepRetention(t.db, notifier, t.clock.now())).scheduled, 0);

    // An executed erasure cannot be cancelled.
    json(
      await t.request({
        method: "POST",
        url: executedUrl(qErasure.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: cancelUrl(qErasure.scheduledErasureId),
        headers: svc(seeded),
        payload: { reason: "too late" },
      }),
      409,
      "CONFLICT",
    );

    // On the chain with who and why; the event carries the reason code, not the text.
    assert.deepEqual(await chainTypes(t, orgId(), pErasure.scheduledErasureId), [
      "retention.erasure_scheduled",
      "retention.erasure_notified",
      "retention.erasure_cancelled",
    ]);
    const [entry] = await t.db.query<{ payload: string | Record<string, unknown> }>(
      "SELECT payload FROM audit_entries WHERE organization_id = $1 AND subject_id = $2 AND entry_type = 'retention.erasure_cancelled'",
      [orgId(), pErasure.scheduledErasureId],
    );
    const payload = typeof entry!.payload === "string" ? JSON.parse(entry!.payload) : entry!.payload;
    assert.deepEqual(payload, {
      scheduledErasureId: pErasure.scheduledErasureId,
      reason: "staff_cancelled",
      note: reason,
      actor: { kind: "staff", id: dpoId },
    });
    const events = (await outboxEvents(t.db, orgId(), "retention.erasure_cancelled")).filter(
      (e) => e.payload.scheduledErasureId === pErasure.scheduledErasureId,
    );
    assert.equal(events.length, 1);
    assert.equal(events[0]!.payload.reason, "staff_cancelled");
    assert.ok(!JSON.stringify(events[0]!.payload).includes("ticket 4411"));

    // guard audit verify: intact, and a note or canceller edited in SQL is found.
    const verify = () => verifyAuditChain(t.db, orgId(), t.config.auditKeys, { now: t.clock.now() });
    const clean = await verify();
    assert.equal(clean.intact, true, JSON.stringify(clean.problems));
    for (const column of ["cancel_note", "cancelled_by"]) {
      await t.db.query(
        `UPDATE retention_scheduled_erasures SET ${column} = 'forged' WHERE organization_id = $1 AND scheduled_erasure_id = $2`,
        [orgId(), pErasure.scheduledErasureId],
      );
      const report = await verify();
      assert.ok(
        report.problems.some(
          (problem) =>
            problem.table === "retention_scheduled_erasures" &&
            problem.recordId === pErasure.scheduledErasureId,
        ),
        JSON.stringify(report.problems),
      );
      await t.db.query(
        `UPDATE retention_scheduled_erasures SET ${column} = $3 WHERE organization_id = $1 AND scheduled_erasure_id = $2`,
        [orgId(), pErasure.scheduledErasureId, column === "cancel_note" ? reason : dpoId],
      );
    }
    assert.equal((await verify()).intact, true);
  });
});
