// Records of the kinds added in 2.15.0 (RoPA activities, breaches, principal notifications, the
// retention register), created in one organisation through the real routes (and, for the erasure
// schedule, the retention sweep with a clock three years on), and valid bodies for the operations
// that act on them. The tenant-isolation matrix adds these to `buildFixtures` and `SAMPLE_BODIES`.
import assert from "node:assert/strict";
import { WebhookRelayNotifier } from "../../server/src/notifications/notifier.js";
import { sweepRetention } from "../../server/src/retention/sweep.js";
import type { Ids } from "./fixtures.js";
import { expectStatus, type LiveServer, type Org } from "./live-server.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Creates in `org` a processing activity, a retention policy with a scheduled (and pre-notified)
 * erasure of the organisation's principal, a legal hold, and a breach whose affected principal has
 * been told; free text carries `marker`. Needs the principal to hold a consent to "Account" (as
 * `buildFixtures` gives her).
 */
export async function buildIsolationFixtures(server: LiveServer, org: Org, marker: string): Promise<Ids> {
  const call = (path: string, method: string, body?: unknown) =>
    server.call(path, { method, headers: org.staff, body });
  const ids: Ids = {};
  ids.userId = org.principal.externalId;
  ids.activityId = expectStatus<{ activityId: string }>(
    await call("/api/v1/staff/ropa/activities", "POST", {
      name: marker,
      purpose: "Delivery",
      description: marker,
      dataCategories: ["name", "address"],
      legalBasis: "consent",
      storageLocation: "AWS ap-south-1 (Mumbai)",
      crossesBorder: false,
    }),
    201,
    "processing activity",
  ).activityId;

  // The Third-Schedule e-commerce policy: erasure after three years without interaction, the
  // principal told 48 hours ahead. A sweep 47 hours before her window ends schedules and tells.
  const start = Date.now();
  const policy = expectStatus<{ policyId: string; durationDays: number }>(
    await call("/api/v1/staff/retention/policies", "POST", { preset: "ecommerce", purpose: "Account" }),
    201,
    "retention policy",
  );
  ids.policyId = policy.policyId;
  const swept = await sweepRetention(
    server.db,
    new WebhookRelayNotifier(),
    start + policy.durationDays * DAY - 47 * HOUR,
  );
  assert.ok(
    swept.scheduled >= 1 && swept.notified >= 1,
    `the sweep scheduled an erasure: ${JSON.stringify(swept)}`,
  );
  const [erasure] = expectStatus<{ erasures: { scheduledErasureId: string }[] }>(
    await call(`/api/v1/staff/retention/erasures?policyId=${ids.policyId}`, "GET"),
    200,
    "scheduled erasures",
  ).erasures;
  assert.ok(erasure, "the organisation has a scheduled erasure");
  ids.scheduledErasureId = erasure.scheduledErasureId;
  ids.holdId = expectStatus<{ holdId: string }>(
    await call("/api/v1/staff/retention/holds", "POST", {
      userId: ids.userId,
      policyId: ids.policyId,
      statute: marker,
      citation: marker,
    }),
    201,
    "legal hold",
  ).holdId;

  // A breach with its affected principal told (which records a `breach.affected` notification).
  ids.breachId = expectStatus<{ breachId: string }>(
    await call("/api/v1/staff/breaches", "POST", {
      description: marker,
      discoveredAt: Date.now() - HOUR,
      mitigation: marker,
    }),
    201,
    "breach",
  ).breachId;
  expectStatus(
    await call(`/api/v1/staff/breaches/${ids.breachId}/principals`, "POST", {
      externalIds: [org.principal.externalId],
    }),
    200,
    "breach principals",
  );
  const told = expectStatus<{ notified: number }>(
    await call(`/api/v1/staff/breaches/${ids.breachId}/notify-principals`, "POST", {
      consequences: marker,
      safetyMeasures: marker,
      contact: marker,
    }),
    200,
    "breach notification",
  );
  assert.equal(told.notified, 1, "the affected principal was told");
  ids.subjectId = ids.breachId;
  return ids;
}

/** Valid bodies of the operations on these records, built from the ids they should name. */
export const ISOLATION_BODIES: Record<string, (ids: Ids) => Record<string, unknown>> = {
  updateProcessingActivity: () => ({ name: "sample activity" }),
  updateBreach: () => ({ mitigation: "sample mitigation" }),
  addBreachPrincipals: () => ({ purposes: ["Account"] }),
  notifyBreachPrincipals: () => ({ consequences: "c", safetyMeasures: "s", contact: "dpo@example.com" }),
  confirmRetentionErasureExecuted: () => ({}),
  cancelScheduledErasure: () => ({ reason: "sample cancellation" }),
  createRetentionPolicy: (ids) => ({ preset: "ecommerce", activityId: ids.activityId }),
  updateRetentionPolicy: () => ({ name: "sample policy" }),
  placeLegalHold: (ids) => ({
    userId: ids.userId,
    policyId: ids.policyId,
    statute: "Income-tax Act, 1961",
    citation: "s. 44AA",
  }),
  releaseLegalHold: () => ({ reason: "sample release" }),
  recordRetentionEvent: (ids) => ({ userId: ids.userId, kind: "interaction" }),
};
