// The retention sweep: every instance runs it (server.ts), and `guard retention sweep` runs it once.
// Each pass, for every organisation with an active policy, it
//   1. cancels open erasures that no longer stand (the principal came back, re-consented, or a
//      later event was reported: the window moved);
//   2. schedules an erasure for each principal whose window under a policy ends within the
//      policy's notice hours (or already has), unless a legal hold covers her;
// and then, across organisations,
//   3. sends each unheld open erasure's pre-notification once it is owed (scheduledFor minus the
//      notice hours), making the erasure due no earlier than the notice hours after it.
// Safe on several instances at once: a window is scheduled once (unique indexes, ON CONFLICT DO
// NOTHING), a notice is claimed with FOR UPDATE SKIP LOCKED and written with its row, and a
// cancellation is a conditional UPDATE.
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import type { Notifier } from "../notifications/notifier.js";
import { principalsWithConsentFor } from "../consent/store.js";
import { anchorOf, factsOf } from "./anchors.js";
import { HOUR_MS } from "./common.js";
import { cancelErasure, notifyErasure, scheduleErasure, scheduledForOf, staleErasures } from "./erasures.js";
import { principalsWithRetentionEvent } from "./store/events.js";
import { lockErasuresOwedNotice, openErasures } from "./store/erasures.js";
import { activeHolds, type HoldRecord } from "./store/holds.js";
import { activePolicies, organizationsWithActivePolicies, type PolicyRecord } from "./store/policies.js";

const BATCH = 200;

export interface RetentionSweepResult {
  scheduled: number;
  notified: number;
  cancelled: number;
}

const holdCovers = (holds: readonly HoldRecord[], principalId: string | null, policyId: string) =>
  holds.some(
    (h) =>
      (h.policyId === null || h.policyId === policyId) &&
      (h.principalId === null || h.principalId === principalId),
  );

/** The principals a policy may apply to, a batch at a time, by id. */
function candidatesOf(db: Database, policy: PolicyRecord, after: string): Promise<string[]> {
  switch (policy.anchorEvent) {
    case "last_interaction":
    case "consent_withdrawn":
      return principalsWithConsentFor(db, policy.organizationId, policy.purpose, after, BATCH);
    case "account_closed":
      return principalsWithRetentionEvent(db, policy.organizationId, "account_closed", null, after, BATCH);
    case "purpose_served":
      return principalsWithRetentionEvent(
        db,
        policy.organizationId,
        "purpose_served",
        policy.purpose,
        after,
        BATCH,
      );
  }
}

async function cancelStale(
  db: Database,
  organizationId: string,
  policies: ReadonlyMap<string, PolicyRecord>,
  now: number,
): Promise<number> {
  let cancelled = 0;
  let after = "";
  for (;;) {
    const open = await openErasures(db, organizationId, after, BATCH);
    if (open.length === 0) return cancelled;
    after = open[open.length - 1]!.scheduledErasureId;
    const stale = await staleErasures(db, organizationId, open, policies);
    if (stale.size > 0) {
      cancelled += await db.transaction(async (tx) => {
        let count = 0;
        for (const erasure of open) {
          const reason = stale.get(erasure.scheduledErasureId);
          if (reason && (await cancelErasure(tx, erasure, reason, now))) count++;
        }
        return count;
      });
    }
  }
}

async function scheduleDue(
  db: Database,
  policy: PolicyRecord,
  holds: readonly HoldRecord[],
  now: number,
): Promise<number> {
  if (holdCovers(holds, null, policy.policyId)) return 0;
  let scheduled = 0;
  let after = "";
  for (;;) {
    const batch = await candidatesOf(db, policy, after);
    if (batch.length === 0) return scheduled;
    after = batch[batch.length - 1]!;
    const facts = await factsOf(db, policy.organizationId, batch);
    const owed: { principalId: string; anchorAt: number }[] = [];
    for (const principalId of batch) {
      const principal = facts.get(principalId);
      const anchorAt = principal ? anchorOf(policy, principal) : null;
      if (anchorAt === null) continue;
      const noticeAt = scheduledForOf(policy, anchorAt) - policy.noticeHours * HOUR_MS;
      if (now < noticeAt || holdCovers(holds, principalId, policy.policyId)) continue;
      owed.push({ principalId, anchorAt });
    }
    if (owed.length > 0) {
      scheduled += await db.transaction(async (tx) => {
        let count = 0;
        for (const o of owed) if (await scheduleErasure(tx, policy, o.principalId, o.anchorAt, now)) count++;
        return count;
      });
    }
  }
}

/** One pass of the sweep at `now` (see the file comment); safe to run on several instances at once. */
export async function sweepRetention(
  db: Database,
  notifier: Notifier,
  now: number,
): Promise<RetentionSweepResult> {
  const result: RetentionSweepResult = { scheduled: 0, notified: 0, cancelled: 0 };
  let afterOrganization = "";
  for (;;) {
    const organizations = await organizationsWithActivePolicies(db, afterOrganization, 100);
    if (organizations.length === 0) break;
    afterOrganization = organizations[organizations.length - 1]!;
    for (const organizationId of organizations) {
      const policies = await activePolicies(db, organizationId);
      const byId = new Map(policies.map((p) => [p.policyId, p]));
      result.cancelled += await cancelStale(db, organizationId, byId, now);
      const holds = await activeHolds(db, organizationId, now);
      for (const policy of policies) result.scheduled += await scheduleDue(db, policy, holds, now);
    }
  }
  for (;;) {
    const { claimed, notified } = await db.transaction(async (tx) => {
      const owed = await lockErasuresOwedNotice(tx, now, BATCH);
      let count = 0;
      for (const erasure of owed) if (await notifyErasure(tx, notifier, erasure, now)) count++;
      return { claimed: owed.length, notified: count };
    });
    result.notified += notified;
    if (claimed < BATCH) break;
  }
  return result;
}

/** Runs the sweep every `intervalMs` (default 5 minutes) until stopped; errors go to `onError`. */
export function startRetentionSweep(options: {
  db: Database;
  clock: Clock;
  notifier: Notifier;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    run: () => sweepRetention(options.db, options.notifier, options.clock.now()),
    intervalMs: options.intervalMs ?? 300_000,
    onError: options.onError,
  });
}
