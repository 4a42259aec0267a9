// The retention job: purges, per organisation, what its log-retention policy (policy.ts) allows,
// never anything younger than a year. Every instance runs the sweep (server.ts); it is safe side by
// side because each class's purge is: the audit chain's under its head lock, taken SKIP LOCKED
// (audit/purge.ts), so two instances never purge one chain; the others by deleting only what is
// past the cutoff, which a second deleter finds already gone. `guard logs purge` runs the same
// code for one organisation or all, with --dry-run to see what would go.
//
// Per class:
// - audit_entries: the chain's oldest entries up to the cutoff, as far as no kept record needs
//   them, leaving a checkpoint and an `audit.purged` entry with the range and count (audit/purge.ts),
//   so `guard audit verify` still passes and still detects tampering.
// - webhook_deliveries: finished deliveries (delivered, dead, cancelled) created before the cutoff,
//   with their attempts, and the events left without deliveries; in batches, each batch recorded
//   on the chain as a `log_retention.purged` entry (counts and time range) in its transaction.
//   A delivery still queued or being sent is never purged.
// - consent_events: never purged on their own. Each event is the evidence of a consent the
//   organisation still holds, checked against its `consent.*` entry; it can go only with its
//   consent and that entry, and Guard keeps consent records (rights/erasure.ts). The period is
//   stored and reported.
// - gate_decisions: the decision log's layout is the gate's (gate/); its purge is left to it.
import type { Database } from "../db/database.js";
import { appendAuditEntry } from "../audit/chain.js";
import { LOG_RETENTION_PURGED } from "../audit/evidence/log-retention.js";
import { MINIMUM_LOG_RETENTION_MS, purgeAuditChain, type ChainPurgeResult } from "../audit/purge.js";
import type { AuditKeys } from "../audit/keys.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { readLogRetentionPolicy, FIELD_OF, LOG_CLASSES, type LogClass } from "./policy.js";
import { organizationsWithPurgePeriods } from "./store.js";
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
  /** Deleted (or, on a dry run, that would be). */
  deliveriesPurged: number;
  attemptsPurged: number;
  eventsPurged: number;
  /** Creation times of the oldest and newest delivery purged (null on a dry run). */
  oldestPurgedAt: number | null;
  newestPurgedAt: number | null;
}

export type ClassPurge =
  | { status: "kept_forever" }
  | { status: "not_purged"; retainDays: number; reason: string }
  | ({ retainDays: number } & ChainPurgeResult)
  | RowPurge;

export interface LogPurgeReport {
  organizationId: string;
  dryRun: boolean;
  now: number;
  /** Per class, keyed by its wire name (`auditEntries`, ...). */
  classes: Record<string, ClassPurge>;
}

const NOT_PURGED: Record<Exclude<LogClass, "audit_entries" | "webhook_deliveries">, string> = {
  consent_events:
    "consent events are the evidence of consents the organisation still holds; each goes only with its consent and its audit entry",
  gate_decisions: "the gate decision log is purged by the gate domain, not yet by this job",
};

/** Finished webhook deliveries created before `cutoff`, batch by batch, each batch on the chain. */
async function purgeWebhookDeliveries(
  db: Database,
  organizationId: string,
  options: { retainDays: number; cutoff: number; now: number; dryRun: boolean },
): Promise<RowPurge> {
  const { retainDays, now, dryRun } = options;
  const cutoff = Math.min(options.cutoff, now - MINIMUM_LOG_RETENTION_MS);
  const total: RowPurge = {
    status: "nothing_to_purge",
    retainDays,
    dryRun,
    cutoff,
    deliveriesPurged: 0,
    attemptsPurged: 0,
    eventsPurged: 0,
    oldestPurgedAt: null,
    newestPurgedAt: null,
  };
  if (dryRun) {
    total.deliveriesPurged = await countFinishedDeliveriesBefore(db, organizationId, cutoff);
    return { ...total, status: total.deliveriesPurged > 0 ? "purged" : "nothing_to_purge" };
  }
  for (;;) {
    const batch = await db.transaction(async (tx) => {
      const gone = await deleteFinishedDeliveriesBefore(tx, organizationId, cutoff, PURGE_BATCH);
      if (gone.deliveries + gone.events > 0) {
        await appendAuditEntry(
          tx,
          {
            organizationId,
            entryType: LOG_RETENTION_PURGED,
            subjectId: organizationId,
            payload: { logClass: "webhook_deliveries", cutoff, ...gone },
          },
          now,
        );
      }
      return gone;
    });
    total.deliveriesPurged += batch.deliveries;
    total.attemptsPurged += batch.attempts;
    total.eventsPurged += batch.events;
    if (batch.oldestCreatedAt !== null) {
      total.oldestPurgedAt = Math.min(total.oldestPurgedAt ?? Infinity, batch.oldestCreatedAt);
      total.newestPurgedAt = Math.max(total.newestPurgedAt ?? -Infinity, batch.newestCreatedAt!);
    }
    if (batch.deliveries < PURGE_BATCH && batch.events < PURGE_BATCH) break;
  }
  const purged = total.deliveriesPurged + total.eventsPurged > 0;
  return { ...total, status: purged ? "purged" : "nothing_to_purge" };
}

/** Purges what the organisation's policy allows at `now` (or, with `dryRun`, reports it). */
export async function purgeOrganizationLogs(
  db: Database,
  organizationId: string,
  options: { now: number; keys: AuditKeys; dryRun?: boolean },
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
      const purged = await purgeAuditChain(db, organizationId, {
        cutoff: now - retainDays * DAY_MS,
        now,
        keys,
        dryRun,
      });
      classes[field] = { retainDays, ...purged };
      continue;
    }
    if (logClass === "webhook_deliveries") {
      const cutoff = now - retainDays * DAY_MS;
      classes[field] = await purgeWebhookDeliveries(db, organizationId, { retainDays, cutoff, now, dryRun });
      continue;
    }
    classes[field] = { status: "not_purged", retainDays, reason: NOT_PURGED[logClass] };
  }
  return { organizationId, dryRun, now, classes };
}

/** One pass over every organisation with a purge period set. */
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
  let after = "";
  for (;;) {
    const ids = await organizationsWithPurgePeriods(db, after, 100);
    if (ids.length === 0) return reports;
    after = ids[ids.length - 1]!;
    for (const organizationId of ids) {
      if (options.stopping?.()) return reports;
      const report = await purgeOrganizationLogs(db, organizationId, {
        now: options.now,
        keys: options.keys,
        dryRun: options.dryRun,
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
