// The erasure schedule end to end with an injected clock (DPDP Rules 2025 r.8): a Third-Schedule
// principal inactive for three years is told 48 hours ahead (through the notifier), then appears on
// GET /api/v1/retention/due, and the backend's confirmation is idempotent and on the audit chain;
// activity in between cancels the erasure; a legal hold suspends it and releasing it resumes;
// concurrent sweeps schedule and notify once.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { sweepRetention } from "../../src/retention/sweep.js";
import { assertApiError } from "../support/api-error.js";
import {
  seedOrganization,
  signIn,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { fileGrievance, outboxEvents, principalToken } from "../support/rights-helpers.js";
import {
  chainTypes,
  consentingPrincipal,
  createPolicy,
  DAY,
  dueOf,
  erasuresOf,
  EVENTS,
  executedUrl,
  HOLDS,
  HOUR,
  json,
  publishNotice,
  RecordingNotifier,
  svc,
  sweep,
  withdraw,
} from "./helpers.js";

const THREE_YEARS = 1096 * DAY;

describe("retention: the erasure schedule", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  let notice: { noticeId: string; version: number };
  const orgId = () => seeded.org.organizationId;

  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
    notice = await publishNotice(t, seeded);
  });
  after(() => t.close());

  test("a Third-Schedule principal inactive for three years is told 48 hours ahead, then is due; execution is confirmed once", async () => {
    const start = t.clock.now();
    const policy = await createPolicy(t, seeded, { preset: "ecommerce", purpose: "Account" });
    assert.equal(policy.anchorEvent, "last_interaction");
    assert.equal(policy.durationDays, 1096);
    assert.equal(policy.noticeHours, 48);
    assert.equal(policy.preset, "ecommerce");
    const p = await consentingPrincipal(t, seeded, notice, "Account");
    const notifier = new RecordingNotifier();
    const scheduledFor = start + THREE_YEARS;

    // A millisecond before the notice is owed: nothing.
    t.clock.set(scheduledFor - 48 * HOUR - 1);
    assert.deepEqual(await sweep(t, notifier), { scheduled: 0, notified: 0, cancelled: 0 });
    assert.deepEqual(await erasuresOf(t, seeded), []);

    // The notice is owed: scheduled and told in one pass, through the notifier.
    t.clock.advance(1);
    const toldAt = t.clock.now();
    assert.deepEqual(await sweep(t, notifier), { scheduled: 1, notified: 1, cancelled: 0 });
    assert.equal(notifier.sent.length, 1);
    assert.equal(notifier.sent[0]!.kind, "retention.pre_erasure");
    assert.equal(notifier.sent[0]!.principalId, p.principalId);
    const [erasure] = await erasuresOf(t, seeded);
    assert.ok(erasure);
    assert.equal(notifier.sent[0]!.subjectId, erasure.scheduledErasureId);
    assert.equal(erasure.userId, p.externalId);
    assert.equal(erasure.anchorAt, start);
    assert.equal(erasure.scheduledFor, scheduledFor);
    assert.equal(erasure.preNotificationSentAt, toldAt);
    assert.equal(erasure.dueAt, scheduledFor);
    assert.equal(erasure.status, "scheduled");
    // A second pass tells nobody twice.
    assert.deepEqual(await sweep(t, notifier), { scheduled: 0, notified: 0, cancelled: 0 });
    assert.equal(notifier.sent.length, 1);

    // Not due before the notice has run 48 hours; confirming early is a conflict.
    assert.deepEqual(await dueOf(t, seeded), []);
    assertApiError(
      await t.request({
        method: "POST",
        url: executedUrl(erasure.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
      409,
      "CONFLICT",
    );
    t.clock.set(scheduledFor);
    assert.deepEqual(await dueOf(t, seeded), [
      {
        scheduledErasureId: erasure.scheduledErasureId,
        userId: p.externalId,
        scheduledFor,
        reason: "last_interaction",
        preNotificationSentAt: toldAt,
        policyId: policy.policyId,
        dueAt: scheduledFor,
      },
    ]);

    // executedAt is checked: not in the future, not before scheduledFor.
    t.clock.advance(HOUR);
    for (const executedAt of [t.clock.now() + 1, scheduledFor - 1, -5, "soon"]) {
      assertApiError(
        await t.request({
          method: "POST",
          url: executedUrl(erasure.scheduledErasureId),
          headers: svc(seeded),
          payload: { executedAt },
        }),
        400,
        "VALIDATION_ERROR",
        { field: "executedAt" },
      );
    }
    const executedAt = scheduledFor + 10 * 60_000;
    const first = json(
      await t.request({
        method: "POST",
        url: executedUrl(erasure.scheduledErasureId),
        headers: svc(seeded),
        payload: { executedAt },
      }),
    );
    assert.deepEqual(first, {
      scheduledErasureId: erasure.scheduledErasureId,
      status: "executed",
      executedAt,
    });
    t.clock.advance(HOUR);
    const again = json(
      await t.request({
        method: "POST",
        url: executedUrl(erasure.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
    );
    assert.deepEqual(again, first);
    assert.deepEqual(await dueOf(t, seeded), []);
    const [executed] = await erasuresOf(t, seeded, "?status=executed");
    assert.equal(executed?.executedAt, executedAt);

    assert.deepEqual(await chainTypes(t, orgId(), erasure.scheduledErasureId), [
      "retention.erasure_scheduled",
      "retention.erasure_notified",
      "retention.erasure_executed",
    ]);
    const events = await outboxEvents(t.db, orgId(), "retention.erasure_executed");
    assert.equal(events.length, 1);
    assert.equal(events[0]!.payload.externalId, p.externalId);
    assert.equal((await outboxEvents(t.db, orgId(), "retention.pre_notified")).length, 1);
    const notifications = await outboxEvents(t.db, orgId(), "principal.notification");
    assert.equal(notifications.length, 1);
    assert.equal(notifications[0]!.payload.externalId, p.externalId);

    // The same window is never scheduled again.
    assert.equal((await sweep(t, notifier)).scheduled, 0);
    const report = await verifyAuditChain(t.db, orgId(), t.config.auditKeys, { now: t.clock.now() });
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    assert.ok((report.rowsChecked.retention_scheduled_erasures ?? 0) > 0);

    await t.request({
      method: "POST",
      url: `/api/v1/staff/retention/policies/${policy.policyId}/archive`,
      headers: svc(seeded),
    });
  });

  test("activity after the notice cancels the erasure; the window restarts from it", async () => {
    const policy = await createPolicy(t, seeded, { preset: "social_media", purpose: "Newsletter" });
    const start = t.clock.now();
    const p = await consentingPrincipal(t, seeded, notice, "Newsletter");
    const q = await consentingPrincipal(t, seeded, notice, "Newsletter");
    const notifier = new RecordingNotifier();
    t.clock.set(start + THREE_YEARS - 48 * HOUR);
    assert.deepEqual(await sweep(t, notifier), { scheduled: 2, notified: 2, cancelled: 0 });

    // p files a grievance (exercising her rights): her erasure is cancelled by the next sweep.
    t.clock.advance(HOUR);
    await fileGrievance(t, await principalToken(t, seeded, p.externalId), {
      organizationId: orgId(),
      subject: "Where is my data",
      description: "Please explain.",
    });
    const grievanceAt = t.clock.now();
    // q logs in; the backend reports it. Even before a sweep, q is not handed out as due.
    json(
      await t.request({
        method: "POST",
        url: EVENTS,
        headers: svc(seeded),
        payload: { userId: q.externalId, kind: "interaction" },
      }),
      201,
    );
    t.clock.set(start + THREE_YEARS);
    assert.deepEqual(await dueOf(t, seeded), []);
    const [qErasure] = await erasuresOf(t, seeded, `?userId=${q.externalId}`);
    assertApiError(
      await t.request({
        method: "POST",
        url: executedUrl(qErasure!.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
      409,
      "CONFLICT",
    );
    assert.deepEqual(await sweep(t, notifier), { scheduled: 0, notified: 0, cancelled: 2 });
    const cancelled = await erasuresOf(t, seeded, `?status=cancelled&policyId=${policy.policyId}`);
    assert.equal(cancelled.length, 2);
    for (const e of cancelled) assert.equal(e.cancelReason, "principal_activity");
    assert.equal((await outboxEvents(t.db, orgId(), "retention.erasure_cancelled")).length, 2);
    const confirm = await t.request({
      method: "POST",
      url: executedUrl(cancelled[0]!.scheduledErasureId),
      headers: svc(seeded),
      payload: {},
    });
    const body = assertApiError(confirm, 409, "CONFLICT");
    assert.match(body.error, /cancelled \(principal_activity\)/);

    // Three years after the grievance (and the log-in, reported at the same moment), both are told
    // again: new windows.
    t.clock.set(grievanceAt + THREE_YEARS - 48 * HOUR - 1);
    assert.equal((await sweep(t, notifier)).scheduled, 0);
    t.clock.advance(1);
    const next = await sweep(t, notifier);
    assert.equal(next.scheduled, 2);
    const open = await erasuresOf(t, seeded, `?userId=${p.externalId}&status=scheduled`);
    assert.equal(open.length, 1);
    assert.equal(open[0]!.anchorAt, grievanceAt);
    await t.request({
      method: "POST",
      url: `/api/v1/staff/retention/policies/${policy.policyId}/archive`,
      headers: svc(seeded),
    });
    const archived = await erasuresOf(t, seeded, `?userId=${p.externalId}&status=cancelled`);
    assert.ok(archived.some((e) => e.cancelReason === "policy_archived"));
  });

  test("a legal hold suspends erasure; releasing it lets the notice go out and the erasure fall due", async () => {
    let dpo = await signIn(t, seeded, "dpo");
    const policy = await createPolicy(t, seeded, {
      name: "Marketing after withdrawal",
      purpose: "Marketing",
      anchorEvent: "consent_withdrawn",
      durationDays: 30,
    });
    const p = await consentingPrincipal(t, seeded, notice, "Marketing");
    await withdraw(t, seeded, p.consentId);
    const withdrawnAt = t.clock.now();
    const hold = json<{ holdId: string; active: boolean; userId: string }>(
      await t.request({
        method: "POST",
        url: HOLDS,
        headers: dpo.headers,
        payload: {
          userId: p.externalId,
          statute: "Prevention of Money-laundering Act, 2002, s.12",
          citation: "Records of transactions kept five years after the relationship ends.",
        },
      }),
      201,
    );
    assert.equal(hold.active, true);
    assert.equal(hold.userId, p.externalId);
    const notifier = new RecordingNotifier();
    t.clock.set(withdrawnAt + 30 * DAY);
    assert.deepEqual(await sweep(t, notifier), { scheduled: 0, notified: 0, cancelled: 0 });
    assert.deepEqual(await dueOf(t, seeded), []);

    // A viewer cannot release; the dpo can, with a reason.
    dpo = await signIn(t, seeded, "dpo");
    const viewer = await signIn(t, seeded, "viewer");
    assertApiError(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${hold.holdId}/release`,
        headers: viewer.headers,
        payload: { reason: "x" },
      }),
      403,
      "FORBIDDEN",
    );
    json(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${hold.holdId}/release`,
        headers: dpo.headers,
        payload: { reason: "Investigation closed" },
      }),
    );
    assertApiError(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${hold.holdId}/release`,
        headers: dpo.headers,
        payload: { reason: "again" },
      }),
      409,
      "CONFLICT",
    );
    const releasedAt = t.clock.now();
    assert.deepEqual(await sweep(t, notifier), { scheduled: 1, notified: 1, cancelled: 0 });
    // Past its window already: due 48 hours after the notice, not before.
    const [erasure] = await erasuresOf(t, seeded, `?policyId=${policy.policyId}`);
    assert.equal(erasure!.scheduledFor, withdrawnAt + 30 * DAY);
    assert.equal(erasure!.dueAt, releasedAt + 48 * HOUR);
    t.clock.advance(48 * HOUR - 1);
    assert.deepEqual(await dueOf(t, seeded), []);
    t.clock.advance(1);
    assert.equal((await dueOf(t, seeded)).length, 1);

    // A policy-wide hold placed now takes the due erasure off the list and refuses execution.
    const policyHold = json<{ holdId: string }>(
      await t.request({
        method: "POST",
        url: HOLDS,
        headers: svc(seeded),
        payload: {
          policyId: policy.policyId,
          statute: "Court order",
          citation: "Order of 1 Jan in case 12/2029",
        },
      }),
      201,
    );
    assert.deepEqual(await dueOf(t, seeded), []);
    const [held] = await erasuresOf(t, seeded, "?status=held");
    assert.equal(held?.scheduledErasureId, erasure!.scheduledErasureId);
    const refused = assertApiError(
      await t.request({
        method: "POST",
        url: executedUrl(erasure!.scheduledErasureId),
        headers: svc(seeded),
        payload: {},
      }),
      409,
      "CONFLICT",
    );
    assert.match(refused.error, /legal hold/);
    json(
      await t.request({
        method: "POST",
        url: `${HOLDS}/${policyHold.holdId}/release`,
        headers: svc(seeded),
        payload: { reason: "Order lifted" },
      }),
    );
    assert.equal((await dueOf(t, seeded)).length, 1);
    const active = json<{ holds: unknown[] }>(
      await t.request({ method: "GET", url: `${HOLDS}?status=active`, headers: svc(seeded) }),
    );
    assert.equal(active.holds.length, 0);
    assert.deepEqual(await chainTypes(t, orgId(), hold.holdId), [
      "retention.hold_placed",
      "retention.hold_released",
    ]);
    await t.request({
      method: "POST",
      url: `/api/v1/staff/retention/policies/${policy.policyId}/archive`,
      headers: svc(seeded),
    });
  });

  test("two instances sweeping at once schedule and notify each erasure once", async () => {
    const other = await seedOrganization(t);
    const otherNotice = await publishNotice(t, other);
    const start = t.clock.now();
    await createPolicy(t, other, { preset: "online_gaming", purpose: "Account" });
    for (let i = 0; i < 5; i++) await consentingPrincipal(t, other, otherNotice, "Account");
    const second = await startSecondInstance(t);
    try {
      const notifier = new RecordingNotifier();
      t.clock.set(start + THREE_YEARS);
      const results = await Promise.all([
        sweepRetention(t.db, notifier, t.clock.now()),
        sweepRetention(second.db, notifier, t.clock.now()),
        sweepRetention(t.db, notifier, t.clock.now()),
      ]);
      assert.ok(results.every((r) => r.cancelled === 0));
      const own = notifier.sent.filter((n) => n.organizationId === other.org.organizationId);
      assert.equal(own.length, 5);
      assert.equal(new Set(own.map((n) => n.subjectId)).size, 5);
      assert.equal((await erasuresOf(t, other)).length, 5);
      const [{ count }] = (await t.db.query<{ count: string }>(
        "SELECT count(*)::text AS count FROM principal_notifications WHERE organization_id = $1",
        [other.org.organizationId],
      )) as [{ count: string }];
      assert.equal(count, "5");
    } finally {
      await second.close();
    }
  });
});
