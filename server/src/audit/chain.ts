// The per-organisation audit hash chain (ARCHITECTURE.md decision 7). Every piece of evidence a
// domain writes (consent events, DSR transitions, parental verifications, ...) is appended here in
// the writer's own transaction, so the evidence and its chain entry commit together or not at all.
//
// The chain head is a row in audit_chain_heads, locked FOR UPDATE by the appender: appends from
// several server instances take turns on that row lock and can never fork the chain. Nothing about
// the chain is kept in process memory.
import { createHash } from "node:crypto";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";

/** prev_hash of the first entry of every chain. */
export const GENESIS_HASH = "0".repeat(64);

/** Version tag inside every entry hash, so the hashing rule can change without ambiguity. */
const CHAIN_FORMAT = "guard-audit-chain/1";

export interface AuditEntryInput {
  organizationId: string;
  /** What happened, dotted: `consent.given`, `dsr.status_changed`, ... */
  entryType: string;
  /** Id of the record the entry is about (consent id, DSR id, ...). */
  subjectId: string;
  /** Evidence: JSON of strings, finite numbers, booleans, null, arrays and objects. */
  payload: Record<string, unknown>;
}

export interface AppendedEntry {
  seq: number;
  entryHash: string;
}

/**
 * The hash of one entry. The parts are framed as a JSON array, so no two different entries share
 * the hashed text whatever characters their fields hold.
 */
export function entryHash(entry: {
  prevHash: string;
  seq: number;
  organizationId: string;
  entryType: string;
  subjectId: string;
  createdAt: number;
  payload: string;
}): string {
  const framed = JSON.stringify([
    CHAIN_FORMAT,
    entry.prevHash,
    entry.seq,
    entry.organizationId,
    entry.entryType,
    entry.subjectId,
    entry.createdAt,
    entry.payload,
  ]);
  return createHash("sha256").update(framed, "utf8").digest("hex");
}

/**
 * Appends one entry to the organisation's chain through `tx` (the caller's transaction). Holds the
 * chain head's row lock until that transaction ends, so keep the rest of the transaction short.
 */
export async function appendAuditEntry(
  tx: Queryable,
  input: AuditEntryInput,
  now: number,
): Promise<AppendedEntry> {
  const payload = canonicalJson(input.payload);
  const lockHead = () =>
    tx.query<{ last_seq: number; last_hash: string }>(
      "SELECT last_seq, last_hash FROM audit_chain_heads WHERE organization_id = $1 FOR UPDATE",
      [input.organizationId],
    );
  let [head] = await lockHead();
  if (!head) {
    // First entry of this organisation: concurrent first appends race on the primary key, and
    // the losers then wait on the winner's row lock like any later append.
    await tx.query(
      `INSERT INTO audit_chain_heads (organization_id, last_seq, last_hash, updated_at) VALUES ($1, 0, $2, $3)
       ON CONFLICT (organization_id) DO NOTHING`,
      [input.organizationId, GENESIS_HASH, now],
    );
    [head] = await lockHead();
  }
  const seq = head!.last_seq + 1;
  const hash = entryHash({
    prevHash: head!.last_hash,
    seq,
    organizationId: input.organizationId,
    entryType: input.entryType,
    subjectId: input.subjectId,
    createdAt: now,
    payload,
  });
  await tx.query(
    `INSERT INTO audit_entries
       (organization_id, seq, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [input.organizationId, seq, input.entryType, input.subjectId, payload, head!.last_hash, hash, now],
  );
  await tx.query(
    "UPDATE audit_chain_heads SET last_seq = $2, last_hash = $3, updated_at = $4 WHERE organization_id = $1",
    [input.organizationId, seq, hash, now],
  );
  return { seq, entryHash: hash };
}
