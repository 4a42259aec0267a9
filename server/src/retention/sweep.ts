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
//
// Step 2 is incremental. Activity only ever moves a principal's window later (every anchor is the
// latest of its events), so once the sweep has read a principal it records the earliest time her
// notice could be owed (retention_principal_checks) and does not read her again before then. A pass
// reads only the principals due for a re-read, plus those who gave a consent to the policy's
// purpose (or, for the reported anchors, had an event recorded) since its last pass. A full pass,
// reading every candidate, runs once a day per policy, on its first sweep, and after its terms
// change: it catches what the incremental reads cannot see (a guest consent linked to a principal
// long after it was given, a reported interaction dated in the past). Reading a principal late
// never shortens her notice: an erasure falls due its notice hours after the notice at the earliest.
import { disabledOrganizationIds } from "../accounts/store.js";
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import type { Notifier } from "../notifications/notifier.js";
import { pageConsentsGivenBetween, principalsWithConsentFor, type GivenKey } from "../consent/store.js";
import { anchorOf, factsOf } from "./anchors.js";
import { DAY_MS, HOUR_MS } from "./common.js";
import { cancelErasure, notifyErasure, scheduleErasure, scheduledForOf, staleErasures } from "./erasures.js";
import { principalsWithRetentionEvent, principalsWithRetentionEventSince } from "./store/events.js";
import { lockErasuresOwedNotice, openErasures } from "./store/erasures.js";
import { activeHolds, type HoldRecord } from "./store/holds.js";
import {
  findSweepMark,
  principalsDueForCheck,
  saveSweepMark,
  setRechecks,
  type SweepMark,
} from "./store/marks.js";
import { activePolicies, organizationsWithActivePolicies, type PolicyRecord } from "./store/policies.js";

const BATCH = 200;
/** How often a policy's candidates are all read (see the file comment). */
export const FULL_PASS_EVERY_MS = DAY_MS;
/** How far back each incremental read starts before the last one ended: writes commit a little after their time. */
const READ_OVERLAP_MS = 60_000;

export interface RetentionSweepResult {
  scheduled: number;
  notified: number;
  cancelled: number;
  /** Principals whose windows were read (the scheduling pass's cost). */
  examined: number;
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

/**
 * Marks for a read now the principals who may have become candidates since the mark: those who gave
 * a consent to the purpose (consent anchors) or had the anchor event recorded (reported anchors).
 */
async function markNewCandidates(db: Database, policy: PolicyRecord, mark: SweepMark, now: number) {
  const { organizationId, policyId } = policy;
  if (policy.anchorEvent === "account_closed" || policy.anchorEvent === "purpose_served") {
    const purpose = policy.anchorEvent === "purpose_served" ? policy.purpose : null;
    let after = "";
    for (;;) {
      const ids = await principalsWithRetentionEventSince(
        db,
        organizationId,
        policy.anchorEvent,
        purpose,
        mark.eventsReadTo - READ_OVERLAP_MS,
        after,
        BATCH,
      );
      if (ids.length === 0) return;
      after = ids[ids.length - 1]!;
      await setRechecks(
        db,
        organizationId,
        policyId,
        ids.map((principalId) => ({ principalId, recheckAt: 0 })),
      );
    }
  }
  let after: GivenKey | null = null;
  for (;;) {
    const given = await pageConsentsGivenBetween(
      db,
      organizationId,
      { from: mark.consentsReadTo - READ_OVERLAP_MS, to: now + 1 },
      after,
      BATCH,
    );
    if (given.length === 0) return;
    const last = given[given.length - 1]!;
    after = { givenAt: last.givenAt, consentId: last.consentId };
    const ids = new Set<string>();
    for (const c of given) if (c.purpose === policy.purpose && c.principalId !== null) ids.add(c.principalId);
    await setRechecks(
      db,
      organizationId,
      policyId,
      [...ids].map((principalId) => ({ principalId, recheckAt: 0 })),
    );
    if (given.length < BATCH) return;
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

/**
 * Reads these principals' windows under the policy: schedules the owed ones that no hold covers,
 * and records when each is next read (a held one stays due, so she is read again each pass).
 */
async function examine(
  db: Database,
  policy: PolicyRecord,
  holds: readonly HoldRecord[],
  principalIds: readonly string[],
  now: number,
): Promise<number> {
  const facts = await factsOf(db, policy.organizationId, principalIds);
  // No window that starts at or after now can owe a notice sooner than this.
  const earliestNext = now + Math.max(1, policy.durationDays * DAY_MS - policy.noticeHours * HOUR_MS);
  const owed: { principalId: string; anchorAt: number }[] = [];
  const rechecks: { principalId: string; recheckAt: number }[] = [];
  for (const principalId of principalIds) {
    const principal = facts.get(principalId);
    const anchorAt = principal ? anchorOf(policy, principal) : null;
    if (anchorAt === null) {
      rechecks.push({ principalId, recheckAt: earliestNext });
      continue;
    }
    const noticeAt = scheduledForOf(policy, anchorAt) - policy.noticeHours * HOUR_MS;
    if (now < noticeAt) {
      rechecks.push({ principalId, recheckAt: noticeAt });
      continue;
    }
    if (holdCovers(holds, principalId, policy.policyId)) {
      // Owed but held: stays due for a read, so the pass after the hold ends schedules her.
      rechecks.push({ principalId, recheckAt: noticeAt });
      continue;
    }
    owed.push({ principalId, anchorAt });
    rechecks.push({ principalId, recheckAt: earliestNext });
  }
  return db.transaction(async (tx) => {
    let count = 0;
    for (const o of owed) if (await scheduleErasure(tx, policy, o.principalId, o.anchorAt, now)) count++;
    await setRechecks(tx, policy.organizationId, policy.policyId, rechecks);
    return count;
  });
}

async function scheduleDue(
  db: Database,
  policy: PolicyRecord,
  holds: readonly HoldRecord[],
  now: number,
  fullPassEveryMs: number,
): Promise<{ scheduled: number; examined: number }> {
  const out = { scheduled: 0, examined: 0 };
  if (holdCovers(holds, null, policy.policyId)) return out;
  const mark = await findSweepMark(db, policy.organizationId, policy.policyId);
  const full = !mark || mark.policyUpdatedAt !== policy.updatedAt || now - mark.fullPassAt >= fullPassEveryMs;
  if (full) {
    let after = "";
    for (;;) {
      const batch = await candidatesOf(db, policy, after);
      if (batch.length === 0) break;
      after = batch[batch.length - 1]!;
      out.scheduled += await examine(db, policy, holds, batch, now);
      out.examined += batch.length;
    }
  } else {
    await markNewCandidates(db, policy, mark, now);
    let after: readonly [number, string] | null = null;
    for (;;) {
      const due = await principalsDueForCheck(db, policy.organizationId, policy.policyId, now, after, BATCH);
      if (due.length === 0) break;
      const last = due[due.length - 1]!;
      after = [last.recheckAt, last.principalId];
      out.scheduled += await examine(
        db,
        policy,
        holds,
        due.map((d) => d.principalId),
        now,
      );
      out.examined += due.length;
    }
  }
  await saveSweepMark(db, {
    organizationId: policy.organizationId,
    policyId: policy.policyId,
    policyUpdatedAt: policy.updatedAt,
    fullPassAt: full ? now : mark.fullPassAt,
    consentsReadTo: now,
    eventsReadTo: now,
  });
  return out;
}

/** One pass of the sweep at `now` (see the file comment); safe to run on several instances at once. */
export async function sweepRetention(
  db: Database,
  notifier: Notifier,
  now: number,
  options: { fullPassEveryMs?: number } = {},
): Promise<RetentionSweepResult> {
  const fullPassEveryMs = options.fullPassEveryMs ?? FULL_PASS_EVERY_MS;
  const result: RetentionSweepResult = { scheduled: 0, notified: 0, cancelled: 0, examined: 0 };
  // A disabled organisation is left as it is: nothing scheduled, cancelled or notified until it is
  // enabled again (accounts/organization-status.ts); the next pass after that catches up.
  const disabled = await disabledOrganizationIds(db);
  const skipped = new Set(disabled);
  let afterOrganization = "";
  for (;;) {
    const organizations = await organizationsWithActivePolicies(db, afterOrganization, 100);
    if (organizations.length === 0) break;
    afterOrganization = organizations[organizations.length - 1]!;
    for (const organizationId of organizations) {
      if (skipped.has(organizationId)) continue;
      const policies = await activePolicies(db, organizationId);
      const byId = new Map(policies.map((p) => [p.policyId, p]));
      result.cancelled += await cancelStale(db, organizationId, byId, now);
      const holds = await activeHolds(db, organizationId, now);
      for (const policy of policies) {
        const { scheduled, examined } = await scheduleDue(db, policy, holds, now, fullPassEveryMs);
        result.scheduled += scheduled;
        result.examined += examined;
      }
    }
  }
  for (;;) {
    const { claimed, notified } = await db.transaction(async (tx) => {
      const owed = await lockErasuresOwedNotice(tx, now, BATCH, disabled);
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
