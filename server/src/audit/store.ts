// The audit domain's tables: audit_queue (entries written, not yet linked), audit_chain_heads (one
// row per organisation: the chain's head, the sequencer's lock) and audit_entries (the chain
// itself). Only this module reads or writes them.
import type { Queryable } from "../db/database.js";
import { execute, first, qb, rows } from "../db/query.js";

export interface ChainHead {
  lastSeq: number;
  lastHash: string;
}

export interface StoredAuditEntry {
  seq: number;
  /** The reference it was queued under; the record it commits to points at it by this. */
  entryRef: number;
  entryType: string;
  subjectId: string;
  /** The canonical JSON text that was hashed. */
  payload: string;
  prevHash: string;
  entryHash: string;
  createdAt: number;
}

// The queue statement runs inside every evidence-writing transaction (every consent write) and the
// linking statements in every sequencer batch, so they are hand-written and prepared once per
// connection.

export interface QueuedAuditEntry {
  entryRef: number;
  entryType: string;
  subjectId: string;
  /** The canonical JSON text that will be hashed. */
  payload: string;
  createdAt: number;
}

/** Queues one entry for the sequencer; its reference, by which the record it commits to points at it. */
export async function queueEntry(
  tx: Queryable,
  organizationId: string,
  entry: Omit<QueuedAuditEntry, "entryRef">,
): Promise<number> {
  const [queued] = await tx.query<{ entry_ref: number }>(
    `INSERT INTO audit_queue (organization_id, entry_type, subject_id, payload, created_at)
     VALUES ($1, $2, $3, $4, $5) RETURNING entry_ref`,
    [organizationId, entry.entryType, entry.subjectId, entry.payload, entry.createdAt],
    { preparedAs: "audit_queue_entry" },
  );
  return queued!.entry_ref;
}

/**
 * Queues several entries of one organisation in two statements, whatever their number (a synced
 * batch of offline captures queues one per session); their references, in the order given. The
 * references are drawn from the sequence first, so the order does not rest on RETURNING's.
 */
export async function queueEntries(
  tx: Queryable,
  organizationId: string,
  entries: readonly Omit<QueuedAuditEntry, "entryRef">[],
): Promise<number[]> {
  if (entries.length === 0) return [];
  const refs = await tx.query<{ entry_ref: number }>(
    "SELECT nextval('audit_entry_refs') AS entry_ref FROM generate_series(1, $1)",
    [entries.length],
  );
  const entryRefs = refs.map((row) => Number(row.entry_ref));
  await tx.query(
    `INSERT INTO audit_queue (organization_id, entry_ref, entry_type, subject_id, payload, created_at)
     SELECT $1, e.entry_ref, e.entry_type, e.subject_id, e.payload, e.created_at
       FROM unnest($2::bigint[], $3::text[], $4::text[], $5::text[], $6::bigint[])
         AS e(entry_ref, entry_type, subject_id, payload, created_at)`,
    [
      organizationId,
      entryRefs,
      entries.map((e) => e.entryType),
      entries.map((e) => e.subjectId),
      entries.map((e) => e.payload),
      entries.map((e) => e.createdAt),
    ],
  );
  return entryRefs;
}

/**
 * Organisations with queued entries, up to `limit` of them. The queue churns (every write adds to
 * it, every pass deletes), so between vacuums it is mostly dead rows: a `SELECT DISTINCT` read
 * them all on every sweep. This walks the primary key from one organisation to the next (a
 * "loose index scan", which PostgreSQL 15 does not plan by itself): one descent per organisation
 * found, over index entries earlier scans have already marked dead (bench/README.md, "Write path").
 */
export async function organizationsWithQueuedEntries(db: Queryable, limit: number): Promise<string[]> {
  const found = await db.query<{ organization_id: string }>(
    `WITH RECURSIVE queued (organization_id) AS (
       (SELECT organization_id FROM audit_queue ORDER BY organization_id LIMIT 1)
       UNION ALL
       SELECT (SELECT q.organization_id FROM audit_queue q
                WHERE q.organization_id > queued.organization_id
                ORDER BY q.organization_id LIMIT 1)
         FROM queued
        WHERE queued.organization_id IS NOT NULL
     )
     SELECT organization_id FROM queued WHERE organization_id IS NOT NULL LIMIT $1`,
    [limit],
  );
  return found.map((row) => row.organization_id);
}

/**
 * Locks the organisation's chain head until the transaction ends, creating it (at `genesisHash`)
 * before the organisation's first entry. "busy" when another session holds the lock: the caller
 * leaves this organisation to that session instead of queueing behind it.
 */
export async function lockChainHeadUnlessBusy(
  tx: Queryable,
  organizationId: string,
  genesisHash: string,
  now: number,
): Promise<ChainHead | "busy"> {
  const [head] = await tx.query<{ last_seq: number; last_hash: string }>(
    "SELECT last_seq, last_hash FROM audit_chain_heads WHERE organization_id = $1 FOR UPDATE SKIP LOCKED",
    [organizationId],
    { preparedAs: "audit_lock_head" },
  );
  if (head) return { lastSeq: head.last_seq, lastHash: head.last_hash };
  // Either no head yet or a locked one. A created head is locked by this transaction; a conflict
  // means the head exists and another session holds it.
  const created = await tx.query(
    `INSERT INTO audit_chain_heads (organization_id, last_seq, last_hash, updated_at) VALUES ($1, 0, $2, $3)
     ON CONFLICT (organization_id) DO NOTHING RETURNING organization_id`,
    [organizationId, genesisHash, now],
  );
  return created.length > 0 ? { lastSeq: 0, lastHash: genesisHash } : "busy";
}

/** The organisation's oldest queued entries (by reference), at most `limit`. */
export async function readQueuedEntries(
  tx: Queryable,
  organizationId: string,
  limit: number,
): Promise<QueuedAuditEntry[]> {
  const found = await tx.query<{
    entry_ref: number;
    entry_type: string;
    subject_id: string;
    payload: string;
    created_at: number;
  }>(
    `SELECT entry_ref, entry_type, subject_id, payload, created_at FROM audit_queue
     WHERE organization_id = $1 ORDER BY entry_ref LIMIT $2`,
    [organizationId, limit],
    { preparedAs: "audit_read_queue" },
  );
  return found.map((row) => ({
    entryRef: row.entry_ref,
    entryType: row.entry_type,
    subjectId: row.subject_id,
    payload: row.payload,
    createdAt: row.created_at,
  }));
}

/**
 * Moves the (locked) head from `from` to the last of the linked entries, then moves exactly those
 * entries (by reference: an entry queued meanwhile stays queued) from the queue into the chain in
 * one statement: the chain row is the queued row (type, subject, payload, time) with its position
 * and hashes, so the payload is not sent back from Node. The entries are the queue's, read under
 * the head's lock, and queued rows are never changed, so what is written is what was hashed.
 * Throws, so the caller's transaction rolls back, unless the head was still at `from` and every
 * entry was still queued: audit_entries is partitioned by month (migration 0114), so its unique
 * indexes hold within a month, and these two checks are what refuse, whatever the caller did, a
 * position given twice or an entry linked twice (README.md, "Partitions").
 */
export async function linkEntries(
  tx: Queryable,
  organizationId: string,
  from: ChainHead,
  entries: readonly StoredAuditEntry[],
): Promise<void> {
  const last = entries[entries.length - 1];
  if (!last) return;
  if (entries[0]!.seq !== from.lastSeq + 1 || entries[0]!.prevHash !== from.lastHash) {
    throw new Error(`audit chain: a batch must start right after the head (seq ${from.lastSeq})`);
  }
  const moved = await tx.query(
    `UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3, updated_at = $4
      WHERE organization_id = $1 AND last_seq = $5 AND last_hash = $6 RETURNING 1`,
    [organizationId, last.seq, last.entryHash, last.createdAt, from.lastSeq, from.lastHash],
    { preparedAs: "audit_move_head" },
  );
  if (moved.length !== 1) {
    throw new Error(`audit chain: the head moved from seq ${from.lastSeq} while this batch was linked`);
  }
  const [written] = await tx.query<{ n: number }>(
    `WITH linked AS (
       SELECT * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[])
         AS l(entry_ref, seq, prev_hash, entry_hash)
     ), unqueued AS (
       DELETE FROM audit_queue q USING linked l
        WHERE q.organization_id = $1 AND q.entry_ref = l.entry_ref
       RETURNING q.organization_id, l.seq, q.entry_ref, q.entry_type, q.subject_id, q.payload,
                 l.prev_hash, l.entry_hash, q.created_at
     ), chained AS (
       INSERT INTO audit_entries
         (organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
       SELECT * FROM unqueued
       RETURNING 1
     )
     SELECT count(*)::int AS n FROM chained`,
    [
      organizationId,
      entries.map((e) => e.entryRef),
      entries.map((e) => e.seq),
      entries.map((e) => e.prevHash),
      entries.map((e) => e.entryHash),
    ],
    { preparedAs: "audit_link_queued" },
  );
  if (written!.n !== entries.length) {
    throw new Error(
      `audit chain: ${entries.length - written!.n} of the entries being linked are no longer queued`,
    );
  }
}

/** How many entries of the organisation are queued and not yet linked. */
export async function countQueuedEntries(db: Queryable, organizationId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_queue WHERE organization_id = $1",
    [organizationId],
  );
  return row!.n;
}

const selectEntries = qb
  .selectFrom("audit_entries")
  .select([
    "seq",
    "entry_ref",
    "entry_type",
    "subject_id",
    "payload",
    "prev_hash",
    "entry_hash",
    "created_at",
  ]);

type EntryRow = Awaited<ReturnType<typeof rows<typeof selectEntries>>>[number];

const toStoredEntry = (row: EntryRow): StoredAuditEntry => ({
  seq: row.seq,
  entryRef: row.entry_ref,
  entryType: row.entry_type,
  subjectId: row.subject_id,
  payload: row.payload,
  prevHash: row.prev_hash,
  entryHash: row.entry_hash,
  createdAt: row.created_at,
});

/** The organisation's chain head as stored (no lock); undefined before its first entry. */
export async function readChainHead(db: Queryable, organizationId: string): Promise<ChainHead | undefined> {
  const head = await first(
    db,
    qb
      .selectFrom("audit_chain_heads")
      .select(["last_seq", "last_hash"])
      .where("organization_id", "=", organizationId),
  );
  return head && { lastSeq: head.last_seq, lastHash: head.last_hash };
}

/** Up to `limit` chain entries from `fromSeq` on, in chain order. */
export async function readChainPage(
  db: Queryable,
  organizationId: string,
  fromSeq: number,
  limit: number,
): Promise<StoredAuditEntry[]> {
  const page = await rows(
    db,
    selectEntries
      .where("organization_id", "=", organizationId)
      .where("seq", ">=", fromSeq)
      .orderBy("seq")
      .limit(limit),
  );
  return page.map(toStoredEntry);
}

/** The position and subject of each linked entry among these references (queued ones are absent). */
export async function chainEntriesAtRefs(
  db: Queryable,
  organizationId: string,
  refs: readonly number[],
): Promise<Map<number, { seq: number; subjectId: string }>> {
  if (refs.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("audit_entries")
      .select(["entry_ref", "seq", "subject_id"])
      .where("organization_id", "=", organizationId)
      .where("entry_ref", "in", refs),
  );
  return new Map(found.map((row) => [row.entry_ref, { seq: row.seq, subjectId: row.subject_id }]));
}

/**
 * The entries of these types about these subjects, in chain order (the by-subject index). The
 * verifier asks this for one page of records at a time, so the answer stays page-sized.
 */
export async function chainEntriesAbout(
  db: Queryable,
  organizationId: string,
  subjectIds: readonly string[],
  entryTypes: readonly string[],
): Promise<StoredAuditEntry[]> {
  if (subjectIds.length === 0) return [];
  const found = await rows(
    db,
    selectEntries
      .where("organization_id", "=", organizationId)
      .where("subject_id", "in", subjectIds)
      .where("entry_type", "in", entryTypes)
      .orderBy("seq"),
  );
  return found.map(toStoredEntry);
}

// ---- Checkpoints: what a purge of the chain's oldest entries leaves (purge.ts, verify.ts).

export interface ChainCheckpoint {
  checkpointId: string;
  /** Entries 1..throughSeq are purged; throughHash was entry throughSeq's hash. */
  throughSeq: number;
  throughHash: string;
  fromSeq: number;
  entriesPurged: number;
  cutoff: number;
  purgedAt: number;
  /** Position of the `audit.purged` entry that commits to this checkpoint. */
  entrySeq: number;
}

const selectCheckpoints = qb
  .selectFrom("audit_chain_checkpoints")
  .select([
    "checkpoint_id",
    "through_seq",
    "through_hash",
    "from_seq",
    "entries_purged",
    "cutoff",
    "purged_at",
    "entry_seq",
  ]);

type CheckpointRow = Awaited<ReturnType<typeof rows<typeof selectCheckpoints>>>[number];

const toCheckpoint = (row: CheckpointRow): ChainCheckpoint => ({
  checkpointId: row.checkpoint_id,
  throughSeq: row.through_seq,
  throughHash: row.through_hash,
  fromSeq: row.from_seq,
  entriesPurged: row.entries_purged,
  cutoff: row.cutoff,
  purgedAt: row.purged_at,
  entrySeq: row.entry_seq,
});

/** The checkpoint verification starts from: the one past the most entries; undefined before any purge. */
export async function latestCheckpoint(
  db: Queryable,
  organizationId: string,
): Promise<ChainCheckpoint | undefined> {
  const row = await first(
    db,
    selectCheckpoints.where("organization_id", "=", organizationId).orderBy("through_seq", "desc").limit(1),
  );
  return row && toCheckpoint(row);
}

/** The organisation's checkpoints with these ids, by id. */
export async function checkpointsWithIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, ChainCheckpoint>> {
  if (ids.length === 0) return new Map();
  const found = await rows(
    db,
    selectCheckpoints.where("organization_id", "=", organizationId).where("checkpoint_id", "in", ids),
  );
  return new Map(found.map((row) => [row.checkpoint_id, toCheckpoint(row)]));
}

/** Every checkpoint of the organisation (a purge leaves few: it deletes those it supersedes). */
export async function allCheckpoints(db: Queryable, organizationId: string): Promise<ChainCheckpoint[]> {
  const found = await rows(
    db,
    selectCheckpoints.where("organization_id", "=", organizationId).orderBy("through_seq"),
  );
  return found.map(toCheckpoint);
}

export async function insertCheckpoint(
  tx: Queryable,
  organizationId: string,
  checkpoint: ChainCheckpoint,
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("audit_chain_checkpoints").values({
      organization_id: organizationId,
      checkpoint_id: checkpoint.checkpointId,
      through_seq: checkpoint.throughSeq,
      through_hash: checkpoint.throughHash,
      from_seq: checkpoint.fromSeq,
      entries_purged: checkpoint.entriesPurged,
      cutoff: checkpoint.cutoff,
      purged_at: checkpoint.purgedAt,
      entry_seq: checkpoint.entrySeq,
    }),
  );
}

/** Deletes the checkpoints whose own `audit.purged` entry is at or before `throughSeq`. */
export async function deleteCheckpointsRecordedThrough(
  tx: Queryable,
  organizationId: string,
  throughSeq: number,
): Promise<number> {
  const deleted = await rows(
    tx,
    qb
      .deleteFrom("audit_chain_checkpoints")
      .where("organization_id", "=", organizationId)
      .where("entry_seq", "<=", throughSeq)
      .returning("checkpoint_id"),
  );
  return deleted.length;
}

/**
 * Deletes the chain entries at positions up to `throughSeq`, but those created in `keep` [lo, hi)
 * when given (a month whose partition the caller drops instead); how many it deleted.
 */
export async function deleteEntriesThrough(
  tx: Queryable,
  organizationId: string,
  throughSeq: number,
  keep?: { lo: number; hi: number },
): Promise<number> {
  let query = qb
    .deleteFrom("audit_entries")
    .where("organization_id", "=", organizationId)
    .where("seq", "<=", throughSeq);
  if (keep)
    query = query.where((eb) => eb.or([eb("created_at", "<", keep.lo), eb("created_at", ">=", keep.hi)]));
  const deleted = await rows(tx, query.returning("seq"));
  return deleted.length;
}

/**
 * Positions, and references, the organisation's chain holds more than once (at most `limit` of
 * each, with the first position of each reference). The chain is partitioned by month (migration
 * 0114), so its unique indexes hold within a month; this asks for duplicates across months. Each is
 * one pass over an index, in key order (a merge of the months' indexes), holding nothing in memory.
 */
export async function duplicatedEntries(
  db: Queryable,
  organizationId: string,
  limit: number,
): Promise<{ seqs: number[]; refs: { entryRef: number; seq: number }[] }> {
  const seqs = await db.query<{ seq: string | number }>(
    `SELECT seq FROM audit_entries WHERE organization_id = $1
      GROUP BY seq HAVING count(*) > 1 ORDER BY seq LIMIT $2`,
    [organizationId, limit],
  );
  const refs = await db.query<{ entry_ref: string | number; seq: string | number }>(
    `SELECT entry_ref, min(seq) AS seq FROM audit_entries WHERE organization_id = $1
      GROUP BY entry_ref HAVING count(*) > 1 ORDER BY entry_ref LIMIT $2`,
    [organizationId, limit],
  );
  return {
    seqs: seqs.map((row) => Number(row.seq)),
    refs: refs.map((row) => ({ entryRef: Number(row.entry_ref), seq: Number(row.seq) })),
  };
}

/** The last position whose entry was created before `before`, or 0. */
export async function lastSeqCreatedBefore(
  db: Queryable,
  organizationId: string,
  before: number,
): Promise<number> {
  const row = await first(
    db,
    qb
      .selectFrom("audit_entries")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("organization_id", "=", organizationId)
      .where("created_at", "<", before),
  );
  return row?.seq === null || row?.seq === undefined ? 0 : Number(row.seq);
}

/** Entries held at positions in (afterSeq, throughSeq] (of those created in `month` [lo, hi), if given). */
export async function entriesUpTo(
  db: Queryable,
  organizationId: string,
  afterSeq: number,
  throughSeq: number,
  month?: { lo: number; hi: number },
): Promise<{ count: number; oldestCreatedAt: number | null; newestCreatedAt: number | null }> {
  let query = qb
    .selectFrom("audit_entries")
    .select((eb) => [
      eb.fn.countAll<number>().as("n"),
      eb.fn.min("created_at").as("oldest"),
      eb.fn.max("created_at").as("newest"),
    ])
    .where("organization_id", "=", organizationId)
    .where("seq", ">", afterSeq)
    .where("seq", "<=", throughSeq);
  if (month) query = query.where("created_at", ">=", month.lo).where("created_at", "<", month.hi);
  const row = await first(db, query);
  return {
    count: Number(row?.n ?? 0),
    oldestCreatedAt: row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest),
    newestCreatedAt: row?.newest === null || row?.newest === undefined ? null : Number(row.newest),
  };
}

/** The entry at one position, if held. */
export async function entryAt(
  db: Queryable,
  organizationId: string,
  seq: number,
): Promise<StoredAuditEntry | undefined> {
  const row = await first(
    db,
    selectEntries.where("organization_id", "=", organizationId).where("seq", "=", seq),
  );
  return row && toStoredEntry(row);
}

/** How many entries are held at or before `throughSeq` (a purge leaves none). */
export async function countEntriesThrough(
  db: Queryable,
  organizationId: string,
  throughSeq: number,
): Promise<number> {
  const row = await first(
    db,
    qb
      .selectFrom("audit_entries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("seq", "<=", throughSeq),
  );
  return Number(row?.n ?? 0);
}
