// The audit domain's tables: audit_chain_heads (one row per organisation: the chain's head, the
// appenders' lock) and audit_entries (the chain itself). Only this module reads or writes them.
import type { Queryable } from "../db/database.js";
import { first, qb, rows } from "../db/query.js";

export interface ChainHead {
  lastSeq: number;
  lastHash: string;
}

export interface StoredAuditEntry {
  seq: number;
  entryType: string;
  subjectId: string;
  /** The canonical JSON text that was hashed. */
  payload: string;
  prevHash: string;
  entryHash: string;
  createdAt: number;
}

// The four chain-append statements below run inside every evidence-writing transaction (every
// consent write), so they are hand-written and prepared once per connection.

/** Locks the organisation's chain head until the transaction ends; undefined before its first entry. */
export async function lockChainHead(tx: Queryable, organizationId: string): Promise<ChainHead | undefined> {
  const [head] = await tx.query<{ last_seq: number; last_hash: string }>(
    "SELECT last_seq, last_hash FROM audit_chain_heads WHERE organization_id = $1 FOR UPDATE",
    [organizationId],
    { preparedAs: "audit_lock_head" },
  );
  return head && { lastSeq: head.last_seq, lastHash: head.last_hash };
}

/**
 * Creates the organisation's head at `genesisHash` unless it exists. Concurrent first appends race
 * on the primary key; the losers then wait on the winner's row lock like any later append.
 */
export async function createChainHead(
  tx: Queryable,
  organizationId: string,
  genesisHash: string,
  now: number,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_chain_heads (organization_id, last_seq, last_hash, updated_at) VALUES ($1, 0, $2, $3)
     ON CONFLICT (organization_id) DO NOTHING`,
    [organizationId, genesisHash, now],
    { preparedAs: "audit_create_head" },
  );
}

/** Writes one chain entry and moves the (locked) head to it. */
export async function insertChainEntry(
  tx: Queryable,
  organizationId: string,
  entry: StoredAuditEntry,
): Promise<void> {
  await tx.query(
    `INSERT INTO audit_entries
       (organization_id, seq, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      organizationId,
      entry.seq,
      entry.entryType,
      entry.subjectId,
      entry.payload,
      entry.prevHash,
      entry.entryHash,
      entry.createdAt,
    ],
    { preparedAs: "audit_insert_entry" },
  );
  await tx.query(
    "UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3, updated_at = $4 WHERE organization_id = $1",
    [organizationId, entry.seq, entry.entryHash, entry.createdAt],
    { preparedAs: "audit_move_head" },
  );
}

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
    qb
      .selectFrom("audit_entries")
      .select(["seq", "entry_type", "subject_id", "payload", "prev_hash", "entry_hash", "created_at"])
      .where("organization_id", "=", organizationId)
      .where("seq", ">=", fromSeq)
      .orderBy("seq")
      .limit(limit),
  );
  return page.map((row) => ({
    seq: row.seq,
    entryType: row.entry_type,
    subjectId: row.subject_id,
    payload: row.payload,
    prevHash: row.prev_hash,
    entryHash: row.entry_hash,
    createdAt: row.created_at,
  }));
}

/** The subject of each chain entry at these positions (positions with no entry are absent). */
export async function chainSubjectsAt(
  db: Queryable,
  organizationId: string,
  seqs: readonly number[],
): Promise<Map<number, string>> {
  if (seqs.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("audit_entries")
      .select(["seq", "subject_id"])
      .where("organization_id", "=", organizationId)
      .where("seq", "in", seqs),
  );
  return new Map(found.map((row) => [row.seq, row.subject_id]));
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
    qb
      .selectFrom("audit_entries")
      .select(["seq", "entry_type", "subject_id", "payload", "prev_hash", "entry_hash", "created_at"])
      .where("organization_id", "=", organizationId)
      .where("subject_id", "in", subjectIds)
      .where("entry_type", "in", entryTypes)
      .orderBy("seq"),
  );
  return found.map((row) => ({
    seq: row.seq,
    entryType: row.entry_type,
    subjectId: row.subject_id,
    payload: row.payload,
    prevHash: row.prev_hash,
    entryHash: row.entry_hash,
    createdAt: row.created_at,
  }));
}
