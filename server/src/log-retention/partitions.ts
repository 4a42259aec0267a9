// Time partitions of the high-volume logs (issue 27, item 4; rules and decisions:
// log-retention/README.md, "Partitioning"). Each partitioned log is range-partitioned by month on
// its BIGINT epoch-ms time column, with a DEFAULT partition that catches any row no month holds
// yet (its migration made the months of the rows it moved, and the current month and the next
// two). This module:
//
// - keeps the months in place (`ensurePartitions`, at start and daily on every instance): the
//   current month and the next PARTITION_MONTHS_AHEAD, and every month the DEFAULT partition holds
//   rows of, whose rows it moves out of the default into the new month in the same transaction
//   (PostgreSQL refuses a new partition whose range the default holds rows of);
// - drops a month (`dropPartitionsPastPolicy`, from the retention sweep) once every organisation
//   with rows in it may purge all of them, recording each organisation's share on its chain.
//
// The DDL is generic, read from the catalogue (pg_inherits, the partition bounds); what a log
// class is made of is in PARTITIONED_LOGS. Cross-instance safe: each pass over a log holds a
// transaction-scoped advisory lock of its own, taken with pg_try_ (a busy lock means another
// instance is doing the same work, so this one skips it), and the parent tables in SHARE ROW
// EXCLUSIVE mode while it creates partitions, so no row can land in a default between moving its
// rows out and attaching the month (writers wait for that short transaction; readers do not).
import type { Database, Queryable } from "../db/database.js";
import { disabledOrganizationIds } from "../accounts/store/organizations.js";
import { appendAuditEntry } from "../audit/chain.js";
import { LOG_RETENTION_PURGED } from "../audit/evidence/log-retention.js";
import type { AuditKeys } from "../audit/keys.js";
import { MINIMUM_LOG_RETENTION_MS } from "../audit/purge-floor.js";
import { purgeChainsForMonth } from "../audit/purge.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { readLogRetentionPolicy, type LogClass } from "./policy.js";

const DAY_MS = 24 * 60 * 60 * 1000;

/** Months created ahead of the current one, so a month's rows never land in the default. */
export const PARTITION_MONTHS_AHEAD = 2;

/** Every instance checks the months at start and then daily. */
export const PARTITION_MAINTENANCE_INTERVAL_MS = DAY_MS;

export interface PartitionedTable {
  table: string;
  /** The BIGINT epoch-ms partition key. */
  column: string;
}

/**
 * A class of log and its partitioned tables, referenced before referencing: a month of each is
 * created together and dropped together (a foreign key between them holds within a month).
 */
export interface PartitionedLog {
  logClass: LogClass;
  tables: readonly PartitionedTable[];
  /** Whether the retention job may drop its months (consent events are never purged). */
  droppable: boolean;
  /**
   * What a purge records per organisation: payload field, the table and the SQL aggregate over
   * the month's rows of it.
   */
  counts: Record<string, { table: string; aggregate: string }>;
  /** The table whose oldest and newest times the purge records, and its newest time as SQL. */
  times: { table: string; oldest: string; newest: string };
  /** Rows (SQL aggregate over a table's month) that keep the month whole while above zero. */
  held?: { table: string; aggregate: string };
  /**
   * The audit chain itself: a month goes only behind a checkpoint per organisation, which is its
   * record of the purge (`audit.purged`) instead of a `log_retention.purged` entry
   * (audit/purge.ts `purgeChainsForMonth`).
   */
  chained?: true;
}

export const PARTITIONED_LOGS: readonly PartitionedLog[] = [
  {
    logClass: "gate_decisions",
    // A block covers [bucket_start, bucket_start + 10 000); month bounds are multiples of 10 s.
    tables: [{ table: "gate_decision_blocks", column: "bucket_start" }],
    droppable: true,
    counts: {
      blocks: { table: "gate_decision_blocks", aggregate: "count(*)" },
      decisions: { table: "gate_decision_blocks", aggregate: "sum(decision_count)" },
    },
    times: { table: "gate_decision_blocks", oldest: "min(bucket_start)", newest: "max(bucket_start) + 9999" },
  },
  {
    logClass: "webhook_deliveries",
    // A delivery is made at its event's instant and its attempts carry its time (migration 0112).
    tables: [
      { table: "webhook_events", column: "created_at" },
      { table: "webhook_deliveries", column: "created_at" },
      { table: "webhook_delivery_attempts", column: "delivery_created_at" },
    ],
    droppable: true,
    counts: {
      deliveries: { table: "webhook_deliveries", aggregate: "count(*)" },
      attempts: { table: "webhook_delivery_attempts", aggregate: "count(*)" },
      events: { table: "webhook_events", aggregate: "count(*)" },
    },
    times: { table: "webhook_events", oldest: "min(created_at)", newest: "max(created_at)" },
    // A delivery still queued or being sent is never purged.
    held: {
      table: "webhook_deliveries",
      aggregate: "count(*) FILTER (WHERE status IN ('pending', 'sending'))",
    },
  },
  {
    logClass: "audit_entries",
    // Partitioned on the time the writer queued the entry (migration 0114); a month goes only when
    // every organisation in it can purge its chain past it (README.md, "Partitioning").
    tables: [{ table: "audit_entries", column: "created_at" }],
    droppable: true,
    chained: true,
    counts: {
      entries: { table: "audit_entries", aggregate: "count(*)" },
      lastSeq: { table: "audit_entries", aggregate: "max(seq)" },
    },
    times: { table: "audit_entries", oldest: "min(created_at)", newest: "max(created_at)" },
  },
  {
    logClass: "consent_events",
    // Partitioned (migration 0113), never dropped: each event is the evidence of a consent still
    // held (README.md, "What each class's purge does").
    tables: [{ table: "consent_events", column: "occurred_at" }],
    droppable: false,
    counts: { events: { table: "consent_events", aggregate: "count(*)" } },
    times: { table: "consent_events", oldest: "min(occurred_at)", newest: "max(occurred_at)" },
  },
];

/** The first instant (UTC) of the month holding `time`. */
export function monthStart(time: number): number {
  const date = new Date(time);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
}

/** The first instant (UTC) of the month after the one holding `time`. */
export function nextMonthStart(time: number): number {
  const date = new Date(time);
  return Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
}

/** `<table>_pYYYYMM`, the month starting at `lo`. */
export function partitionName(table: string, lo: number): string {
  const date = new Date(lo);
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  return `${table}_p${String(date.getUTCFullYear()).padStart(4, "0")}${month}`;
}

export const defaultPartitionName = (table: string) => `${table}_default`;

export interface RangePartition {
  name: string;
  /** Inclusive lower and exclusive upper bound, epoch ms. */
  lo: number;
  hi: number;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;

/** The table's range partitions, oldest first (the default partition is not one of them). */
export async function listPartitions(db: Queryable, table: string): Promise<RangePartition[]> {
  const found = await db.query<{ name: string; bound: string }>(
    `SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
      WHERE i.inhparent = to_regclass($1)`,
    [table],
  );
  const partitions: RangePartition[] = [];
  for (const { name, bound } of found) {
    const range = /FROM \('?(-?\d+)'?\) TO \('?(-?\d+)'?\)/.exec(bound);
    if (range) partitions.push({ name, lo: Number(range[1]), hi: Number(range[2]) });
  }
  return partitions.sort((a, b) => a.lo - b.lo);
}

/** Takes the log's maintenance lock (named by its first table) for the transaction; false when another session holds it. */
async function tryPartitionLock(tx: Queryable, table: string): Promise<boolean> {
  const [row] = await tx.query<{ locked: boolean }>(
    "SELECT pg_try_advisory_xact_lock(hashtext('guard.partitions.' || $1)) AS locked",
    [table],
  );
  return row?.locked === true;
}

/** The months (their starts) the table's default partition holds rows of. */
async function monthsInDefault(tx: Queryable, { table, column }: PartitionedTable): Promise<number[]> {
  const found = await tx.query<{ month: string | number }>(
    `SELECT DISTINCT (extract(epoch FROM date_trunc('month', to_timestamp(${quote(column)} / 1000.0)
                       AT TIME ZONE 'UTC')) * 1000)::bigint AS month
       FROM ${quote(defaultPartitionName(table))}`,
  );
  return found.map((row) => Number(row.month));
}

/**
 * Creates the month [lo, hi) of each of `tables` (those of one log missing it), moving the rows
 * their default partitions hold of it into it: each made standalone (the parent's columns,
 * defaults and CHECKs), filled from its default, referencing tables first (so a referenced row
 * leaves the default only once nothing in the partitioned tables refers to it), then attached,
 * referenced tables first (attaching builds the parent's indexes on it and checks its rows and
 * foreign keys).
 */
async function createMonth(
  tx: Queryable,
  tables: readonly PartitionedTable[],
  lo: number,
  hi: number,
): Promise<string[]> {
  for (const { table } of tables) {
    await tx.query(
      `CREATE TABLE ${quote(partitionName(table, lo))} (LIKE ${quote(table)} INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION)`,
    );
  }
  for (const { table, column } of [...tables].reverse()) {
    await tx.query(
      `WITH moved AS (
         DELETE FROM ${quote(defaultPartitionName(table))}
          WHERE ${quote(column)} >= ${lo} AND ${quote(column)} < ${hi} RETURNING *)
       INSERT INTO ${quote(partitionName(table, lo))} SELECT * FROM moved`,
    );
  }
  for (const { table } of tables) {
    await tx.query(
      `ALTER TABLE ${quote(table)} ATTACH PARTITION ${quote(partitionName(table, lo))} FOR VALUES FROM (${lo}) TO (${hi})`,
    );
  }
  return tables.map(({ table }) => partitionName(table, lo));
}

/**
 * Makes sure each of `log`'s tables has a partition for the month of `now`, the next
 * `monthsAhead`, and every month one of its default partitions holds rows of. The partitions it
 * created (none when another instance holds the log's lock: that one is doing it).
 */
export async function ensureLogPartitions(
  db: Database,
  log: PartitionedLog,
  now: number,
  monthsAhead: number = PARTITION_MONTHS_AHEAD,
): Promise<string[]> {
  return db.transaction(async (tx) => {
    if (!(await tryPartitionLock(tx, log.tables[0]!.table))) return [];
    const wanted = new Set<number>();
    for (let month = monthStart(now), i = 0; i <= monthsAhead; i++, month = nextMonthStart(month))
      wanted.add(month);
    for (const table of log.tables) for (const month of await monthsInDefault(tx, table)) wanted.add(month);
    const existing = new Map<string, RangePartition[]>();
    for (const { table } of log.tables) existing.set(table, await listPartitions(tx, table));
    // Per month, the tables missing it; a range a partition already overlaps (one made by hand,
    // say) is left as it is.
    const missing = [...wanted]
      .sort((a, b) => a - b)
      .map((lo) => {
        const hi = nextMonthStart(lo);
        const tables = log.tables.filter(
          ({ table }) => !existing.get(table)!.some((p) => p.lo < hi && lo < p.hi),
        );
        return { lo, hi, tables };
      })
      .filter((month) => month.tables.length > 0);
    if (missing.length === 0) return [];
    for (const { table } of log.tables)
      await tx.query(`LOCK TABLE ${quote(table)} IN SHARE ROW EXCLUSIVE MODE`);
    const created: string[] = [];
    for (const { lo, hi, tables } of missing) created.push(...(await createMonth(tx, tables, lo, hi)));
    return created;
  });
}

/** ensureLogPartitions for every partitioned log; the partitions created. */
export async function ensurePartitions(
  db: Database,
  now: number,
  monthsAhead: number = PARTITION_MONTHS_AHEAD,
): Promise<string[]> {
  const created: string[] = [];
  for (const log of PARTITIONED_LOGS) created.push(...(await ensureLogPartitions(db, log, now, monthsAhead)));
  return created;
}

/** Starts this instance's partition maintenance: now, then daily. */
export function startPartitionMaintenance(options: {
  db: Database;
  clock: Clock;
  intervalMs?: number;
  onCreated?: (partitions: string[]) => void;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    intervalMs: options.intervalMs ?? PARTITION_MAINTENANCE_INTERVAL_MS,
    onError: options.onError,
    run: async () => {
      const created = await ensurePartitions(options.db, options.clock.now());
      if (created.length > 0) options.onCreated?.(created);
    },
  });
}

/**
 * Per month (its first table's partition), the organisation this process last found keeping it
 * (forever, a longer period, or disabled). While that organisation still keeps it and still has
 * rows in it, a sweep passes the month over without counting it again (a scan of the month each
 * day otherwise). A hint only: the check reads the policy and probes the month's index afresh.
 */
const keptBy = new Map<string, string>();

/** Whether the organisation last found keeping this month still does (see keptBy). */
async function stillKept(
  db: Queryable,
  log: PartitionedLog,
  partitions: readonly string[],
  options: { hi: number; now: number; disabled: ReadonlySet<string> },
): Promise<boolean> {
  const keeper = keptBy.get(partitions[0]!);
  if (keeper === undefined) return false;
  if (!options.disabled.has(keeper)) {
    const cutoff = await cutoffOf(db, keeper, log.logClass, options.now);
    if (cutoff !== null && options.hi <= cutoff) return false;
  }
  for (const partition of partitions) {
    // Every table's key leads with organization_id: one index probe.
    const found = await db
      .query(`SELECT 1 FROM ${quote(partition)} WHERE organization_id = $1 LIMIT 1`, [keeper])
      .catch(() => []);
    if (found.length > 0) return true;
  }
  keptBy.delete(partitions[0]!);
  return false;
}

/** How long the drop of a month of the chain waits for a lock (a reader of the month, a head). */
export const CHAINED_LOCK_TIMEOUT = "5s";

/**
 * SQLSTATEs after which a chained month is left to the next sweep: undefined_table (dropped
 * meanwhile), lock_not_available (the lock timeout), serialization_failure and deadlock_detected.
 */
const CHAINED_SKIPPED_STATES = new Set(["42P01", "55P03", "40001", "40P01"]);

const sqlState = (error: unknown): string | undefined =>
  typeof error === "object" && error !== null && "code" in error && typeof error.code === "string"
    ? error.code
    : undefined;

/** One organisation's rows in a month of a log, as a purge records them. */
export interface PartitionShare {
  organizationId: string;
  /** The organisation's cutoff (now minus its period, never later than now minus a year). */
  cutoff: number;
  /** Per PartitionedLog.counts field. */
  counts: Record<string, number>;
  oldestCreatedAt: number | null;
  newestCreatedAt: number | null;
  /** Rows that keep the month whole (PartitionedLog.held). */
  held: number;
}

export interface DroppedPartition {
  logClass: LogClass;
  /** The month's partition of each of the log's tables. */
  partitions: string[];
  lo: number;
  hi: number;
  /** Every organisation that had rows in it. */
  shares: PartitionShare[];
}

/** Per organisation, what the month (its partition of each of the log's tables) holds. */
async function sharesOf(
  tx: Queryable,
  log: PartitionedLog,
  lo: number,
): Promise<Omit<PartitionShare, "cutoff">[]> {
  const shares = new Map<string, Omit<PartitionShare, "cutoff">>();
  const shareOf = (organizationId: string) => {
    let share = shares.get(organizationId);
    if (!share) {
      share = {
        organizationId,
        counts: Object.fromEntries(Object.keys(log.counts).map((field) => [field, 0])),
        oldestCreatedAt: null,
        newestCreatedAt: null,
        held: 0,
      };
      shares.set(organizationId, share);
    }
    return share;
  };
  for (const { table } of log.tables) {
    const columns: string[] = [];
    for (const [field, count] of Object.entries(log.counts)) {
      if (count.table === table) columns.push(`(${count.aggregate})::bigint AS ${quote(`count_${field}`)}`);
    }
    if (log.times.table === table) {
      columns.push(`(${log.times.oldest})::bigint AS oldest`, `(${log.times.newest})::bigint AS newest`);
    }
    if (log.held?.table === table) columns.push(`(${log.held.aggregate})::bigint AS held`);
    // Every table is read, so that an organisation with rows in only one of them is counted.
    const found = await tx.query<Record<string, string | number | null>>(
      `SELECT organization_id${columns.map((c) => `, ${c}`).join("")}
         FROM ${quote(partitionName(table, lo))} GROUP BY organization_id`,
    );
    for (const row of found) {
      const share = shareOf(String(row.organization_id));
      for (const [field, count] of Object.entries(log.counts)) {
        if (count.table === table) share.counts[field] = Number(row[`count_${field}`]);
      }
      if (log.times.table === table) {
        share.oldestCreatedAt = Number(row.oldest);
        share.newestCreatedAt = Number(row.newest);
      }
      if (log.held?.table === table) share.held = Number(row.held);
    }
  }
  return [...shares.values()].sort((a, b) => (a.organizationId < b.organizationId ? -1 : 1));
}

/**
 * The cutoff of `logClass` for the organisation at `now` (null: kept forever): now minus its
 * period, never later than now minus a year.
 */
async function cutoffOf(
  db: Queryable,
  organizationId: string,
  logClass: LogClass,
  now: number,
): Promise<number | null> {
  const retainDays = (await readLogRetentionPolicy(db, organizationId))[logClass].retainDays;
  if (retainDays === null) return null;
  return Math.min(now - retainDays * DAY_MS, now - MINIMUM_LOG_RETENTION_MS);
}

/**
 * The months every table of the log has a partition for, with the same bounds: only those can go
 * whole (a month of a referenced table cannot be dropped while another table's rows of it refer to
 * it from the default).
 */
async function wholeMonths(db: Queryable, log: PartitionedLog): Promise<{ lo: number; hi: number }[]> {
  const lists: RangePartition[][] = [];
  for (const { table } of log.tables) lists.push(await listPartitions(db, table));
  return lists[0]!
    .filter((p) => p.name === partitionName(log.tables[0]!.table, p.lo))
    .filter(({ lo, hi }) =>
      log.tables.every(({ table }, i) =>
        lists[i]!.some((q) => q.lo === lo && q.hi === hi && q.name === partitionName(table, lo)),
      ),
    )
    .map(({ lo, hi }) => ({ lo, hi }));
}

/**
 * Drops (DETACH, then DROP, one transaction) every month of the droppable logs whose rows all
 * belong to organisations whose policy lets them all go: the month ends no later than each one's
 * cutoff, and none of its rows is held (a delivery still queued). In the same transaction each of
 * those organisations gets a `log_retention.purged` entry for its share (class, cutoff, the
 * partitions, counts, time range). A month an organisation keeps (forever, or a longer period)
 * stays whole; the retention job deletes the other organisations' rows inside it instead. An empty
 * month past the year's floor is dropped with no entry: it held nothing. With `dryRun`, what would
 * be dropped, and nothing is.
 */
export async function dropPartitionsPastPolicy(
  db: Database,
  options: { now: number; keys: AuditKeys; dryRun?: boolean; logs?: readonly PartitionedLog[] },
): Promise<DroppedPartition[]> {
  const { now } = options;
  const dropped: DroppedPartition[] = [];
  // A disabled organisation's records are kept whole until it is enabled (accounts/README.md).
  const disabled = new Set(await disabledOrganizationIds(db));
  for (const log of options.logs ?? PARTITIONED_LOGS) {
    if (!log.droppable) continue;
    // Per organisation, the first position its chain was found unable to purge through in this
    // pass: purging more never frees a record, so its later months need no trial.
    const heldFrom = new Map<string, number>();
    for (const { lo, hi } of await wholeMonths(db, log)) {
      if (hi > now - MINIMUM_LOG_RETENTION_MS) continue;
      const partitions = log.tables.map(({ table }) => partitionName(table, lo));
      if (await stillKept(db, log, partitions, { hi, now, disabled })) continue;
      const drop = db.transaction(async (tx): Promise<DroppedPartition | null> => {
        if (log.chained) {
          // The chain's purge verifies each chain, so it wants one snapshot (REPEATABLE READ), and
          // the month locked before that snapshot is taken (LOCK takes none): no entry can arrive
          // in it unseen. A sweep waits on nobody for long: a lock not had within
          // CHAINED_LOCK_TIMEOUT leaves the month to the next sweep.
          await tx.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
          await tx.query(`SET LOCAL lock_timeout = '${CHAINED_LOCK_TIMEOUT}'`);
          await tx.query(`LOCK TABLE ${quote(partitions[0]!)} IN SHARE MODE`);
        }
        if (!(await tryPartitionLock(tx, log.tables[0]!.table))) return null;
        // Still there (another instance may have dropped it meanwhile)?
        if (!(await wholeMonths(tx, log)).some((m) => m.lo === lo)) return null;
        // No row may arrive while the shares are counted; reads go on until the DETACH.
        for (const partition of partitions) await tx.query(`LOCK TABLE ${quote(partition)} IN SHARE MODE`);
        const shares: PartitionShare[] = [];
        for (const share of await sharesOf(tx, log, lo)) {
          if (share.held > 0) return null;
          const keeps = () => {
            keptBy.set(partitions[0]!, share.organizationId);
            return null;
          };
          if (disabled.has(share.organizationId)) return keeps();
          const cutoff = await cutoffOf(tx, share.organizationId, log.logClass, now);
          if (cutoff === null || hi > cutoff) return keeps();
          if (
            share.counts.lastSeq !== undefined &&
            share.counts.lastSeq >= (heldFrom.get(share.organizationId) ?? Infinity)
          )
            return null;
          shares.push({ ...share, cutoff });
        }
        const found: DroppedPartition = { logClass: log.logClass, partitions, lo, hi, shares };
        if (log.chained) {
          // Each organisation's chain is purged through its last entry of the month, behind a
          // checkpoint and its `audit.purged` entry (the record of this drop); its entries before
          // the month's that lie outside it go as rows. Any chain that cannot go that far keeps it.
          const checkpoints = await purgeChainsForMonth(tx, {
            lo,
            hi,
            shares: shares.map((share) => ({
              organizationId: share.organizationId,
              cutoff: share.cutoff,
              lastSeq: share.counts.lastSeq!,
            })),
            now,
            keys: options.keys,
            dryRun: options.dryRun,
          });
          // The month stays; what commits is only the linking of what was queued (the
          // sequencer's work), the trials having been rolled back to their savepoints.
          if ("keptBy" in checkpoints) {
            const { keptBy: organizationId, throughSeq } = checkpoints;
            heldFrom.set(organizationId, Math.min(heldFrom.get(organizationId) ?? Infinity, throughSeq));
            return null;
          }
        }
        if (options.dryRun) return found;
        // Referencing tables first: a partition still referred to cannot be detached.
        for (const [i, { table }] of [...log.tables.entries()].reverse()) {
          await tx.query(`ALTER TABLE ${quote(table)} DETACH PARTITION ${quote(partitions[i]!)}`);
          await tx.query(`DROP TABLE ${quote(partitions[i]!)}`);
        }
        for (const share of log.chained ? [] : shares) {
          await appendAuditEntry(
            tx,
            {
              organizationId: share.organizationId,
              entryType: LOG_RETENTION_PURGED,
              subjectId: share.organizationId,
              payload: {
                logClass: log.logClass,
                cutoff: share.cutoff,
                partitions,
                ...share.counts,
                oldestCreatedAt: share.oldestCreatedAt,
                newestCreatedAt: share.newestCreatedAt,
              },
            },
            now,
          );
        }
        return found;
      });
      // A chained month's partition gone meanwhile, or a lock not had in time: the next sweep.
      const result = await drop.catch((error: unknown) => {
        if (log.chained && CHAINED_SKIPPED_STATES.has(sqlState(error) ?? "")) return null;
        throw error;
      });
      if (result) {
        dropped.push(result);
        keptBy.delete(partitions[0]!);
      }
    }
  }
  return dropped;
}
