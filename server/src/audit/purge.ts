// Purging the chain's oldest entries (the log-retention job, log-retention/): removes entries
// 1..N and leaves a checkpoint so what is kept still verifies, as `guard audit verify` checks it:
//
//   - the checkpoint (audit_chain_checkpoints) records the hash of entry N, which the first kept
//     entry names as its prev_hash, so the kept chain still links to something fixed;
//   - the purge is itself an entry, `audit.purged`, linked right after the head under the head's
//     lock: it carries the checkpoint's every column, so editing the checkpoint (to hide entries,
//     or to re-anchor an edited first entry) is a finding, and a checkpoint forged without its
//     entry is one too (evidence/checkpoints.ts);
//   - a purge never orphans a record: an entry a kept record still needs (a live consent's
//     `consent.given`, the last `organization.settings_changed`, any move of a DSR still held) is
//     evidence the fiduciary must keep (DPDP s.6(10) puts the burden of proving consent on it), so
//     the purge stops before the first such entry. "Needed" is decided by the verifier itself,
//     whatever the checkers know: each candidate purge is tried inside the transaction (under a
//     savepoint) and kept only if the chain still verifies with it; the largest such N is found
//     by bisection, so a purge costs a handful of verifications;
//   - a chain that does not verify is never purged: purging could erase the evidence of tampering;
//   - nothing created less than MINIMUM_LOG_RETENTION_MS ago is ever purged (DPDP Rules 2025
//     r.8(3)), whatever cutoff the caller passes.
//
// The whole purge is one REPEATABLE READ transaction holding the chain head (taken with SKIP
// LOCKED: an instance whose head another session holds, a sequencer or another purge, leaves the
// organisation to the next run), so every trial verification sees one snapshot and two instances
// never purge one chain at once. Entries queued meanwhile stay queued and are linked after it.
import type { Database, Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { GENESIS_HASH } from "./chain.js";
import { AUDIT_PURGED } from "./evidence/checkpoints.js";
import type { AuditKeys } from "./keys.js";
import { linkQueuedUnderLock } from "./sequencer.js";
import {
  deleteCheckpointsRecordedThrough,
  deleteEntriesThrough,
  entriesUpTo,
  entryAt,
  insertCheckpoint,
  latestCheckpoint,
  lastSeqCreatedBefore,
  lockChainHeadUnlessBusy,
  queueEntry,
  type ChainCheckpoint,
  type ChainHead,
} from "./store.js";
import { MINIMUM_LOG_RETENTION_MS } from "./purge-floor.js";
import { verifyLinkedChain } from "./verify.js";

export { MINIMUM_LOG_RETENTION_DAYS, MINIMUM_LOG_RETENTION_MS } from "./purge-floor.js";

export interface ChainPurgeResult {
  /**
   * purged (or would be, on a dry run); nothing_to_purge; busy (another session holds the chain
   * head: try again later); chain_broken (the chain does not verify, so nothing is purged).
   */
  status: "purged" | "nothing_to_purge" | "busy" | "chain_broken";
  dryRun: boolean;
  /** Entries created before this time were eligible. */
  cutoff: number;
  /** The last position created before the cutoff (0: none). */
  eligibleThroughSeq: number;
  /** The range purged, or that would be: fromSeq..throughSeq; null when nothing. */
  fromSeq: number | null;
  throughSeq: number | null;
  entriesPurged: number;
  /** Creation times of the oldest and newest entry purged. */
  oldestPurgedAt: number | null;
  newestPurgedAt: number | null;
  /** When the purge stopped short of the cutoff: the first entry a kept record still needs. */
  heldFromSeq: number | null;
  /** The checkpoint written (null on a dry run or when nothing was purged). */
  checkpoint: ChainCheckpoint | null;
}

/**
 * Purges the organisation's chain entries created before `cutoff`, as far as no kept record needs
 * them (see the top of this file); `dryRun` reports what would be purged and changes nothing but
 * the linking of queued entries (which the sequencer would do anyway).
 */
export async function purgeAuditChain(
  db: Database,
  organizationId: string,
  options: { cutoff: number; now: number; keys: AuditKeys; dryRun?: boolean },
): Promise<ChainPurgeResult> {
  const { now, keys } = options;
  const dryRun = options.dryRun ?? false;
  // The floor is enforced here, not only where policies are set: no caller can purge younger logs.
  const cutoff = Math.min(options.cutoff, now - MINIMUM_LOG_RETENTION_MS);
  const result = (
    fields: Partial<ChainPurgeResult> & Pick<ChainPurgeResult, "status">,
  ): ChainPurgeResult => ({
    dryRun,
    cutoff,
    eligibleThroughSeq: 0,
    fromSeq: null,
    throughSeq: null,
    entriesPurged: 0,
    oldestPurgedAt: null,
    newestPurgedAt: null,
    heldFromSeq: null,
    checkpoint: null,
    ...fields,
  });

  return db.transaction(async (tx) => {
    // Every trial below must judge the same snapshot; the head's lock keeps the chain still.
    await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    const locked = await lockChainHeadUnlessBusy(tx, organizationId, GENESIS_HASH, now);
    if (locked === "busy") return result({ status: "busy" });
    // Entries committed but still queued are linked first: their records would otherwise count as
    // unchained in every trial.
    const head = await linkQueuedUnderLock(tx, organizationId, locked);
    const previous = await latestCheckpoint(tx, organizationId);
    const lo = previous?.throughSeq ?? 0;
    const eligible = await lastSeqCreatedBefore(tx, organizationId, cutoff);
    if (eligible <= lo) return result({ status: "nothing_to_purge", eligibleThroughSeq: eligible });
    if (!(await verifyLinkedChain(tx, organizationId, keys)).intact) {
      return result({ status: "chain_broken", eligibleThroughSeq: eligible });
    }

    const apply = (throughSeq: number) =>
      applyPurge(tx, organizationId, { head, afterSeq: lo, throughSeq, cutoff, now });
    // Whether purging through `throughSeq` leaves a chain that verifies; changes nothing.
    const verifiesAfter = (throughSeq: number) =>
      verifiesAfterPurge(tx, organizationId, keys, { head, afterSeq: lo, throughSeq, cutoff, now });

    let throughSeq: number;
    if (await verifiesAfter(eligible)) throughSeq = eligible;
    else if (!(await verifiesAfter(lo + 1))) throughSeq = lo;
    else {
      // Purging more never frees a record, so "verifies after" holds up to some N and fails past it.
      let ok = lo + 1;
      let failing = eligible;
      while (failing - ok > 1) {
        const mid = Math.floor((ok + failing) / 2);
        if (await verifiesAfter(mid)) ok = mid;
        else failing = mid;
      }
      throughSeq = ok;
    }
    const heldFromSeq = throughSeq < eligible ? throughSeq + 1 : null;
    if (throughSeq <= lo) {
      return result({ status: "nothing_to_purge", eligibleThroughSeq: eligible, heldFromSeq });
    }
    const span = await entriesUpTo(tx, organizationId, lo, throughSeq);
    const summary = {
      status: "purged" as const,
      eligibleThroughSeq: eligible,
      fromSeq: lo + 1,
      throughSeq,
      entriesPurged: span.count,
      oldestPurgedAt: span.oldestCreatedAt,
      newestPurgedAt: span.newestCreatedAt,
      heldFromSeq,
    };
    if (dryRun) return result(summary);
    const checkpoint = await apply(throughSeq);
    return result({ ...summary, checkpoint });
  });
}

interface PurgeStep {
  /** The (locked) head, everything queued linked. */
  head: ChainHead;
  /** The latest checkpoint's through_seq (0: none): entries after it are held. */
  afterSeq: number;
  throughSeq: number;
  cutoff: number;
  now: number;
  /**
   * A month [lo, hi) of entries the caller drops whole (its partition) after this: its entries are
   * counted as purged and left for the drop, not deleted one by one.
   */
  month?: { lo: number; hi: number };
}

/**
 * Purges entries afterSeq+1..throughSeq inside `tx`, which holds the head: deletes them (but those
 * of `month`), deletes the checkpoints the new one covers, writes the checkpoint and links its
 * `audit.purged` entry right after the head. The checkpoint.
 */
async function applyPurge(tx: Queryable, organizationId: string, step: PurgeStep): Promise<ChainCheckpoint> {
  const { head, afterSeq, throughSeq, cutoff, now, month } = step;
  const at = await entryAt(tx, organizationId, throughSeq);
  if (!at) throw new Error(`audit chain entry ${throughSeq} is missing; a verified chain holds it`);
  const entriesPurged = month
    ? (await deleteEntriesThrough(tx, organizationId, throughSeq, month)) +
      (await entriesUpTo(tx, organizationId, afterSeq, throughSeq, month)).count
    : await deleteEntriesThrough(tx, organizationId, throughSeq);
  // Checkpoints whose own entry goes now are covered by this one.
  await deleteCheckpointsRecordedThrough(tx, organizationId, throughSeq);
  const checkpoint: ChainCheckpoint = {
    checkpointId: newId("ckp"),
    throughSeq,
    throughHash: at.entryHash,
    fromSeq: afterSeq + 1,
    entriesPurged,
    cutoff,
    purgedAt: now,
    entrySeq: head.lastSeq + 1,
  };
  await insertCheckpoint(tx, organizationId, checkpoint);
  await queueEntry(tx, organizationId, {
    entryType: AUDIT_PURGED,
    subjectId: checkpoint.checkpointId,
    payload: canonicalJson({
      checkpointId: checkpoint.checkpointId,
      throughSeq,
      throughHash: checkpoint.throughHash,
      fromSeq: checkpoint.fromSeq,
      entriesPurged,
      cutoff,
    }),
    createdAt: now,
  });
  // Linked here, under the lock, so the entry sits at entrySeq (nothing else is queued: the
  // queue was emptied under this lock and this snapshot sees no later writer).
  const moved: ChainHead = await linkQueuedUnderLock(tx, organizationId, head);
  if (moved.lastSeq !== checkpoint.entrySeq) {
    throw new Error(`the purge entry was linked at ${moved.lastSeq}, not ${checkpoint.entrySeq}`);
  }
  return checkpoint;
}

/** Whether purging through `step.throughSeq` leaves a chain that verifies; changes nothing. */
async function verifiesAfterPurge(
  tx: Queryable,
  organizationId: string,
  keys: AuditKeys,
  step: PurgeStep,
): Promise<boolean> {
  await tx.query("SAVEPOINT audit_purge_trial");
  try {
    // The trial deletes every entry it purges (a month's too): the verifier must see them gone.
    await applyPurge(tx, organizationId, { ...step, month: undefined });
    return (await verifyLinkedChain(tx, organizationId, keys)).intact;
  } finally {
    await tx.query("ROLLBACK TO SAVEPOINT audit_purge_trial");
  }
}

/** One organisation's entries in a month of the chain the log-retention sweep would drop. */
export interface ChainMonthShare {
  organizationId: string;
  /** The organisation's cutoff for audit entries (the month ends no later). */
  cutoff: number;
  /** The last position the organisation holds in the month. */
  lastSeq: number;
}

/**
 * The chain's part of dropping the month [lo, hi) of audit_entries (log-retention/partitions.ts):
 * inside the drop's transaction, which runs at REPEATABLE READ and took the month's partition in
 * SHARE mode before its snapshot (so no entry can arrive in it unseen), each organisation with
 * entries in the month gets the purge `purgeAuditChain` would make through the last position it
 * holds there: its head locked, what is queued linked, the chain verified, the purge tried under a
 * savepoint and verified, then the checkpoint and the `audit.purged` entry written and the entries
 * before the month's outside it deleted as rows (those of the month go with the partition). The
 * checkpoints, one per organisation; or the first organisation whose chain cannot go that far
 * (its head busy, its chain broken, a kept record needing an entry of the month, an entry linked
 * into the month meanwhile) and the position it could not purge through: the caller then keeps
 * the month. With `dryRun`, the checks only (the checkpoints are not written; the list is empty).
 */
export async function purgeChainsForMonth(
  tx: Queryable,
  options: {
    lo: number;
    hi: number;
    shares: readonly ChainMonthShare[];
    now: number;
    keys: AuditKeys;
    dryRun?: boolean;
  },
): Promise<ChainCheckpoint[] | { keptBy: string; throughSeq: number }> {
  const { lo, hi, now, keys } = options;
  const steps: { organizationId: string; step: PurgeStep }[] = [];
  for (const share of options.shares) {
    const { organizationId } = share;
    const kept = { keptBy: organizationId, throughSeq: share.lastSeq };
    const locked = await lockChainHeadUnlessBusy(tx, organizationId, GENESIS_HASH, now);
    if (locked === "busy") return kept;
    const head = await linkQueuedUnderLock(tx, organizationId, locked);
    // An entry queued a year ago would be linked into the month itself: it was not counted.
    if (head.lastSeq > locked.lastSeq) {
      const late = await entriesUpTo(tx, organizationId, locked.lastSeq, head.lastSeq, { lo, hi });
      if (late.count > 0) return kept;
    }
    const afterSeq = (await latestCheckpoint(tx, organizationId))?.throughSeq ?? 0;
    if (share.lastSeq <= afterSeq) return kept;
    if (!(await verifyLinkedChain(tx, organizationId, keys)).intact) return kept;
    const step: PurgeStep = {
      head,
      afterSeq,
      throughSeq: share.lastSeq,
      cutoff: share.cutoff,
      now,
      month: { lo, hi },
    };
    if (!(await verifiesAfterPurge(tx, organizationId, keys, step))) return kept;
    steps.push({ organizationId, step });
  }
  if (options.dryRun) return [];
  const checkpoints: ChainCheckpoint[] = [];
  for (const { organizationId, step } of steps) checkpoints.push(await applyPurge(tx, organizationId, step));
  return checkpoints;
}
