// The retention history the audit tamper test (test/audit/tamper.test.ts) gives each organisation
// it seeds: a policy made and changed, a legal hold placed and released, and an erasure scheduled
// and notified, all through the rule modules (no sweep: a sweep would work on every organisation
// of the database, including ones already tampered with).
import type { Database } from "../../src/db/database.js";
import { WebhookRelayNotifier } from "../../src/notifications/notifier.js";
import { notifyErasure, scheduleErasure } from "../../src/retention/erasures.js";
import { placeHold, releaseHold } from "../../src/retention/holds.js";
import { changePolicy, createPolicy } from "../../src/retention/policies.js";

export interface RetentionSeed {
  retentionPolicy: string;
  retentionHold: string;
  retentionErasure: string;
}

export async function seedRetention(
  db: Database,
  input: { organizationId: string; principalId: string; externalId: string; purpose: string },
  tick: () => number,
): Promise<RetentionSeed> {
  const actor = { kind: "system" as const, id: "cli:tamper" };
  const { organizationId } = input;
  const noActivities = async () => undefined;
  const policy = await db.transaction((tx) =>
    createPolicy(
      tx,
      {
        organizationId,
        body: { preset: "ecommerce", purpose: input.purpose },
        actor,
      },
      noActivities,
      tick(),
    ),
  );
  await db.transaction((tx) =>
    changePolicy(tx, { organizationId, policyId: policy.policyId, body: { noticeHours: 72 }, actor }, tick()),
  );
  const hold = await db.transaction((tx) =>
    placeHold(
      tx,
      {
        organizationId,
        body: { userId: input.externalId, statute: "Companies Act, 2013", citation: "Section 128(5)" },
        actor,
      },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    releaseHold(tx, { organizationId, holdId: hold.holdId, reason: "Audit closed", actor }, tick()),
  );
  const anchorAt = tick();
  const erasure = await db.transaction(async (tx) => {
    const scheduled = await scheduleErasure(
      tx,
      { ...policy, noticeHours: 72 },
      input.principalId,
      anchorAt,
      tick(),
    );
    return notifyErasure(tx, new WebhookRelayNotifier(), scheduled!, tick());
  });
  return {
    retentionPolicy: policy.policyId,
    retentionHold: hold.holdId,
    retentionErasure: erasure!.scheduledErasureId,
  };
}
