// The retention job: purges, per organisation, what its log-retention policy (policy.ts) allows,
// never anything younger than a year. Every instance runs the sweep (server.ts); it is safe side by
// side because each class's purge is: the audit chain's under its head lock, taken SKIP LOCKED
// (audit/purge.ts), so two instances never purge one chain; the others by deleting only what is
// past the cutoff, which a second deleter finds already gone. `guard logs purge` runs the same
// code for one organisation or all, with --dry-run to see what would go.
//
// Per class:
// - audit_entries: the chain's oldest entries of the months wholly before the cutoff, as far as no
//   kept record needs them, leaving a checkpoint and an `audit.purged` entry with the range and
//   count (audit/purge.ts), so `guard audit verify` still passes and still detects tampering. The
//   entries are partitioned by month (partitions.ts): the sweep first drops each month every
//   organisation in it can purge its chain past (a checkpoint each, audit/purge.ts
//   `purgeChainsForMonth`); the rest goes as rows.
// - webhook_deliveries: finished deliveries (delivered, dead, cancelled) of the months wholly
//   before the cutoff, with their attempts, and the events left without deliveries. The three
//   tables are partitioned by month together (partitions.ts): the sweep first drops each month
//   whose every organisation is past its cutoff and whose deliveries are all finished; the rest
//   goes in batches, each batch recorded on the chain as a `log_retention.purged` entry (counts
//   and time range) in its transaction. A delivery still queued or being sent is never purged.
// - consent_events: never purged on their own. Each event is the evidence of a consent the
//   organisation still holds, checked against its `consent.*` entry; it can go only with its
//   consent and that entry, and Guard keeps consent records (rights/erasure.ts). The period is
//   stored and reported.
// - gate_decisions: the decision log's blocks (and any run left uncompacted) of the months wholly
//   past the cutoff. The blocks are partitioned by month (partitions.ts): the sweep first drops
//   each month whose every organisation is past its cutoff (one `log_retention.purged` entry per
//   organisation); what is left of an organisation's months past its cutoff (months another
//   organisation keeps) is deleted in batches, each batch a `log_retention.purged` entry. The
//   month is the unit so that rows are not deleted one by one out of a month that will be dropped
//   whole: a decision is kept up to a month past its period, never less than the period.
import type { Database, Queryable } from "../db/database.js";
import { disabledOrganizationIds } from "../accounts/store/organizations.js";
import { appendAuditEntry } from "../audit/chain.js";
import { LOG_RETENTION_PURGED } from "../audit/evidence/log-retention.js";
import { MINIMUM_LOG_RETENTION_MS, purgeAuditChain, type ChainPurgeResult } from "../audit/purge.js";
import type { AuditKeys } from "../audit/keys.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { readLogRetentionPolicy, FIELD_OF, LOG_CLASSES, type LogClass } from "./policy.js";
import { organizationsWithPurgePeriods } from "./store.js";
import { dropPartitionsPastPolicy, monthStart, type DroppedPartition } from "./partitions.js";
import { countDecisionsBefore, deleteDecisionsBefore } from "../gate/store.js";
import {
  countFinishedDeliveriesBefore,
  deleteFinishedDeliveriesBefore,
} from "../webhooks/store/deliveries.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How often every instance runs the sweep. Periods are whole days, and a chain purge verifies the
 * organisation's chain (audit/purge.ts), so daily (and at each start) is enough.
 */
export const LOG_RETENTION_SWEEP_INTERVAL_MS = 24 * 60 * 60 * 1000;

/** Rows deleted per transaction (and per `log_retention.purged` entry). */
export const PURGE_BATCH = 5_000;

export interface RowPurge {
  status: "purged" | "nothing_to_purge";
  retainDays: number;
  dryRun: boolean;
  cutoff: number;
  /** The start of the month holding the cutoff: deliveries created before it are purged. */
  purgedBefore: number;
  /** Deleted as rows (or, on a dry run, that would be). */
  deliveriesPurged: number;
  attemptsPurged: number;
  eventsPurged: number;
  /** Month partitions the sweep dropped that held this organisation's deliveries, and what it had in them. */
  partitionsDropped: string[];
  deliveriesDropped: number;
  attemptsDropped: number;
  eventsDropped: number;
  /** Creation times of the oldest and newest delivery purged (null on a dry run). */
  oldestPurgedAt: number | null;
  newestPurgedAt: number | null;
}

export interface DecisionPurge {
  status: "purged" | "nothing_to_purge";
  retainDays: number;
  dryRun: boolean;
  cutoff: number;
  /** The start of the month holding the cutoff: decisions before it are purged. */
  purgedBefore: number;
  /** Decisions deleted as rows (or, on a dry run, that would be). */
  decisionsPurged: number;
  blocksPurged: number;
  runsPurged: number;
  /** Month partitions the sweep dropped that held this organisation's decisions, and how many. */
  partitionsDropped: string[];
  decisionsDropped: number;
  /** Lower bound of the oldest and upper bound of the newest decision purged (null on a dry run). */
  oldestPurgedAt: number | null;
  newestPurgedAt: number | null;
}

export type ClassPurge =
  | { status: "kept_forever" }
  | { status: "not_purged"; retainDays: number; reason: string }
  | ({
      retainDays: number;
      /** Month partitions of the chain the sweep dropped that held this organisation's entries, and how many. */
      partitionsDropped: string[];
      entriesDropped: number;
    } & ChainPurgeResult)
  | RowPurge
  | DecisionPurge;

export interface LogPurgeReport {
  organizationId: string;
  dryRun: boolean;
  now: number;
  /** Per class, keyed by its wire name (`auditEntries`, ...). */
  classes: Record<string, ClassPurge>;
}

const NOT_PURGED: Record<
  Exclude<LogClass, "audit_entries" | "webhook_deliveries" | "gate_decisions">,
  string
> = {
  consent_events:
    "consent events are the evidence of consents the organisation still holds; each goes only with its consent and its audit entry",
};

/**
 * The organisation's gate decisions of the months wholly before its cutoff, batch by batch, each
 * batch on the chain. `dropped` (the sweep's partition drops) are counted in.
 */
async function purgeGateDecisions(
  db: Database,
  organizationId: string,
  options: { retainDays: number; cutoff: number; now: number; dryRun: boolean; dropped: DroppedPartition[] },
): Promise<DecisionPurge> {
  const { retainDays, now, dryRun } = options;
  const cutoff = Math.min(options.cutoff, now - MINIMUM_LOG_RETENTION_MS);
  const purgedBefore = monthStart(cutoff);
  const total: DecisionPurge = {
    status: "nothing_to_purge",
    retainDays,
    dryRun,
    cutoff,
    purgedBefore,
    decisionsPurged: 0,
    blocksPurged: 0,
    runsPurged: 0,
    partitionsDropped: [],
    decisionsDropped: 0,
    oldestPurgedAt: null,
    newestPurgedAt: null,
  };
  const widen = (oldest: number | null, newest: number | null) => {
    if (oldest === null || newest === null) return;
    total.oldestPurgedAt = Math.min(total.oldestPurgedAt ?? Infinity, oldest);
    total.newestPurgedAt = Math.max(total.newestPurgedAt ?? -Infinity, newest);
  };
  for (const partition of options.dropped) {
    const share = partition.shares.find((s) => s.organizationId === organizationId);
    if (partition.logClass !== "gate_decisions" || !share) continue;
    total.partitionsDropped.push(...partition.partitions);
    total.decisionsDropped += share.counts.decisions ?? 0;
    if (!dryRun) widen(share.oldestCreatedAt, share.newestCreatedAt);
  }
  if (dryRun) {
    // The months the sweep would drop are still there, and counted as dropped.
    const rows = await countDecisionsBefore(db, organizationId, purgedBefore);
    total.decisionsPurged = Math.max(0, rows - total.decisionsDropped);
  } else {
    await purgeInBatches(
      db,
      { organizationId, logClass: "gate_decisions", cutoff, now },
      {
        deleteBatch: (tx) => deleteDecisionsBefore(tx, organizationId, purgedBefore, PURGE_BATCH),
        removedAny: (gone) => gone.blocks + gone.runs > 0,
        full: (gone) => gone.blocks >= PURGE_BATCH || gone.runs >= PURGE_BATCH,
        add: (gone) => {
          total.decisionsPurged += gone.decisions;
          total.blocksPurged += gone.blocks;
          total.runsPurged += gone.runs;
          widen(gone.oldestCreatedAt, gone.newestCreatedAt);
        },
      },
    );
  }
  const purged = total.decisionsPurged + total.decisionsDropped > 0 || total.partitionsDropped.length > 0;
  return { ...total, status: purged ? "purged" : "nothing_to_purge" };
}

/**
 * Deletes batch by batch, each batch in its own transaction with, when it removed anything, its
 * `log_retention.purged` chain entry (the class, the cutoff and the batch's counts and time range),
 * until a batch comes back short.
 */
async function purgeInBatches<B extends object>(
  db: Database,
  entry: { organizationId: string; logClass: LogClass; cutoff: number; now: number },
  batches: {
    deleteBatch: (tx: Queryable) => Promise<B>;
    removedAny: (gone: B) => boolean;
    full: (gone: B) => boolean;
    add: (gone: B) => void;
  },
): Promise<void> {
  const { organizationId, logClass, cutoff, now } = entry;
  for (;;) {
    const gone = await db.transaction(async (tx) => {
      const batch = await batches.deleteBatch(tx);
      if (batches.removedAny(batch)) {
        await appendAuditEntry(
          tx,
          {
            organizationId,
            entryType: LOG_RETENTION_PURGED,
            subjectId: organizationId,
            payload: { logClass, cutoff, ...batch },
          },
          now,
        );
      }
      return batch;
    });
    batches.add(gone);
    if (!batches.full(gone)) return;
  }
}

/**
 * Finished webhook deliveries of the months wholly before the cutoff, batch by batch, each batch on
 * the chain. `dropped` (the sweep's partition drops) are counted in.
 */
async function purgeWebhookDeliveries(
  db: Database,
  organizationId: string,
  options: { retainDays: number; cutoff: number; now: number; dryRun: boolean; dropped: DroppedPartition[] },
): Promise<RowPurge> {
  const { retainDays, now, dryRun } = options;
  const cutoff = Math.min(options.cutoff, now - MINIMUM_LOG_RETENTION_MS);
  const purgedBefore = monthStart(cutoff);
  const total: RowPurge = {
    status: "nothing_to_purge",
    retainDays,
    dryRun,
    cutoff,
    purgedBefore,
    deliveriesPurged: 0,
    attemptsPurged: 0,
    eventsPurged: 0,
    partitionsDropped: [],
    deliveriesDropped: 0,
    attemptsDropped: 0,
    eventsDropped: 0,
    oldestPurgedAt: null,
    newestPurgedAt: null,
  };
  const widen = (oldest: number | null, newest: number | null) => {
    if (oldest === null || newest === null) return;
    total.oldestPurgedAt = Math.min(total.oldestPurgedAt ?? Infinity, oldest);
    total.newestPurgedAt = Math.max(total.newestPurgedAt ?? -Infinity, newest);
  };
  for (const partition of options.dropped) {
    const share = partition.shares.find((s) => s.organizationId === organizationId);
    if (partition.logClass !== "webhook_deliveries" || !share) continue;
    total.partitionsDropped.push(...partition.partitions);
    total.deliveriesDropped += share.counts.deliveries ?? 0;
    total.attemptsDropped += share.counts.attempts ?? 0;
    total.eventsDropped += share.counts.events ?? 0;
    if (!dryRun) widen(share.oldestCreatedAt, share.newestCreatedAt);
  }
  const dropped = total.deliveriesDropped + total.eventsDropped > 0;
  if (dryRun) {
    // The months the sweep would drop are still there, and counted as dropped.
    const rows = await countFinishedDeliveriesBefore(db, organizationId, purgedBefore);
    total.deliveriesPurged = Math.max(0, rows - total.deliveriesDropped);
    return { ...total, status: total.deliveriesPurged > 0 || dropped ? "purged" : "nothing_to_purge" };
  }
  await purgeInBatches(
    db,
    { organizationId, logClass: "webhook_deliveries", cutoff, now },
    {
      deleteBatch: (tx) => deleteFinishedDeliveriesBefore(tx, organizationId, purgedBefore, PURGE_BATCH),
      removedAny: (gone) => gone.deliveries + gone.events > 0,
      full: (gone) => gone.deliveries >= PURGE_BATCH || gone.events >= PURGE_BATCH,
      add: (gone) => {
        total.deliveriesPurged += gone.deliveries;
        total.attemptsPurged += gone.attempts;
        total.eventsPurged += gone.events;
        widen(gone.oldestCreatedAt, gone.newestCreatedAt);
      },
    },
  );
  const purged = total.deliveriesPurged + total.eventsPurged > 0 || dropped;
  return { ...total, status: purged ? "purged" : "nothing_to_purge" };
}

/**
 * Purges what the organisation's policy allows at `now` (or, with `dryRun`, reports it). Month
 * partitions are dropped by the sweep only (runLogRetentionSweep): whether one may go depends on
 * every organisation with rows in it; `dropped` is what that sweep dropped, counted in the report.
 */
export async function purgeOrganizationLogs(
  db: Database,
  organizationId: string,
  options: { now: number; keys: AuditKeys; dryRun?: boolean; dropped?: DroppedPartition[] },
): Promise<LogPurgeReport> {
  const { now, keys } = options;
  const dryRun = options.dryRun ?? false;
  const policy = await readLogRetentionPolicy(db, organizationId);
  const classes: Record<string, ClassPurge> = {};
  for (const logClass of LOG_CLASSES) {
    const retainDays = policy[logClass].retainDays;
    const field = FIELD_OF[logClass];
    if (retainDays === null) {
      classes[field] = { status: "kept_forever" };
      continue;
    }
    if (logClass === "audit_entries") {
      // The month is the unit, as for the other partitioned logs: a chain purged day by day would
      // empty each month row by row before the sweep could drop it (README.md, "Partitioning").
      const cutoff = Math.min(now - retainDays * DAY_MS, now - MINIMUM_LOG_RETENTION_MS);
      const purged = await purgeAuditChain(db, organizationId, {
        cutoff: monthStart(cutoff),
        now,
        keys,
        dryRun,
      });
      const partitionsDropped: string[] = [];
      let entriesDropped = 0;
      for (const partition of options.dropped ?? []) {
        const share = partition.shares.find((s) => s.organizationId === organizationId);
        if (partition.logClass !== "audit_entries" || !share) continue;
        partitionsDropped.push(...partition.partitions);
        entriesDropped += share.counts.entries ?? 0;
      }
      classes[field] = { retainDays, ...purged, partitionsDropped, entriesDropped };
      continue;
    }
    if (logClass === "webhook_deliveries") {
      const cutoff = now - retainDays * DAY_MS;
      classes[field] = await purgeWebhookDeliveries(db, organizationId, {
        retainDays,
        cutoff,
        now,
        dryRun,
        dropped: options.dropped ?? [],
      });
      continue;
    }
    if (logClass === "gate_decisions") {
      const cutoff = now - retainDays * DAY_MS;
      classes[field] = await purgeGateDecisions(db, organizationId, {
        retainDays,
        cutoff,
        now,
        dryRun,
        dropped: options.dropped ?? [],
      });
      continue;
    }
    classes[field] = { status: "not_purged", retainDays, reason: NOT_PURGED[logClass] };
  }
  return { organizationId, dryRun, now, classes };
}

/**
 * One pass: first the month partitions every organisation with rows in them may purge whole are
 * dropped (partitions.ts), then every organisation with a purge period set is purged (its report
 * counting what the drops took of its logs).
 */
export async function runLogRetentionSweep(
  db: Database,
  options: {
    now: number;
    keys: AuditKeys;
    dryRun?: boolean;
    stopping?: () => boolean;
    onReport?: (report: LogPurgeReport) => void;
  },
): Promise<LogPurgeReport[]> {
  const reports: LogPurgeReport[] = [];
  const dropped = await dropPartitionsPastPolicy(db, {
    now: options.now,
    keys: options.keys,
    dryRun: options.dryRun,
  });
  // A disabled organisation's logs are kept whole until it is enabled (accounts/README.md).
  const disabled = new Set(await disabledOrganizationIds(db));
  let after = "";
  for (;;) {
    const ids = await organizationsWithPurgePeriods(db, after, 100);
    if (ids.length === 0) return reports;
    after = ids[ids.length - 1]!;
    for (const organizationId of ids) {
      if (options.stopping?.()) return reports;
      if (disabled.has(organizationId)) continue;
      const report = await purgeOrganizationLogs(db, organizationId, {
        now: options.now,
        keys: options.keys,
        dryRun: options.dryRun,
        dropped,
      });
      options.onReport?.(report);
      reports.push(report);
    }
  }
}

/** Starts this instance's sweep (see the top of this file). */
export function startLogRetentionSweep(options: {
  db: Database;
  clock: Clock;
  keys: AuditKeys;
  intervalMs?: number;
  onReport?: (report: LogPurgeReport) => void;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    intervalMs: options.intervalMs ?? LOG_RETENTION_SWEEP_INTERVAL_MS,
    onError: options.onError,
    run: (stopping) =>
      runLogRetentionSweep(options.db, {
        now: options.clock.now(),
        keys: options.keys,
        stopping,
        onReport: options.onReport,
      }),
  });
}
