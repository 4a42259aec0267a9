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
import { createChainHead, insertChainEntry, lockChainHead } from "./store.js";

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
  let head = await lockChainHead(tx, input.organizationId);
  if (!head) {
    await createChainHead(tx, input.organizationId, GENESIS_HASH, now);
    head = await lockChainHead(tx, input.organizationId);
  }
  const { lastSeq, lastHash } = head!;
  const seq = lastSeq + 1;
  const hash = entryHash({
    prevHash: lastHash,
    seq,
    organizationId: input.organizationId,
    entryType: input.entryType,
    subjectId: input.subjectId,
    createdAt: now,
    payload,
  });
  await insertChainEntry(tx, input.organizationId, {
    seq,
    entryType: input.entryType,
    subjectId: input.subjectId,
    payload,
    prevHash: lastHash,
    entryHash: hash,
    createdAt: now,
  });
  return { seq, entryHash: hash };
}
