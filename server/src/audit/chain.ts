// The per-organisation audit hash chain (ARCHITECTURE.md decision 7). Every piece of evidence a
// domain writes (consent events, DSR transitions, parental verifications, ...) is queued here in
// the writer's own transaction, so the evidence and its entry commit together or not at all. The
// sequencer (sequencer.ts) links committed entries into the chain in batches; nothing about the
// chain is kept in process memory, and writers never wait on one another for the chain.
import { createHash } from "node:crypto";
import { afterCommit, type Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { queueEntries, queueEntry } from "./store.js";

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

export interface QueuedEntry {
  /** The entry's reference: the record it commits to points at it by this. */
  entryRef: number;
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

type QueueListener = (organizationId: string) => void;
const queueListeners = new Set<QueueListener>();

/**
 * Registers a callback run after every commit that queued entries in this process, with the
 * organisation whose chain they are for, so the local sequencer links them without waiting for its
 * next poll (and without looking for which organisations have entries). Returns the unsubscribe
 * function.
 */
export function onEntryQueued(listener: QueueListener): () => void {
  queueListeners.add(listener);
  return () => queueListeners.delete(listener);
}

function wakeSequencers(organizationId: string): void {
  for (const listener of queueListeners) listener(organizationId);
}

/**
 * Queues one entry for the organisation's chain through `tx` (the caller's transaction): it is
 * linked (given its position and hash) by the sequencer once `tx` has committed. Takes no lock, so
 * writers of one organisation commit side by side.
 */
export async function appendAuditEntry(
  tx: Queryable,
  input: AuditEntryInput,
  now: number,
): Promise<QueuedEntry> {
  const entryRef = await queueEntry(tx, input.organizationId, {
    entryType: input.entryType,
    subjectId: input.subjectId,
    payload: canonicalJson(input.payload),
    createdAt: now,
  });
  afterCommit(tx, () => wakeSequencers(input.organizationId));
  return { entryRef };
}

/**
 * Queues several entries of one organisation through `tx` in a fixed number of statements (for a
 * writer that records a batch, such as a synced batch of offline captures); their references, in
 * the order given. Linked by the sequencer once `tx` has committed, as appendAuditEntry's are.
 */
export async function appendAuditEntries(
  tx: Queryable,
  organizationId: string,
  inputs: readonly Omit<AuditEntryInput, "organizationId">[],
  now: number,
): Promise<QueuedEntry[]> {
  if (inputs.length === 0) return [];
  const refs = await queueEntries(
    tx,
    organizationId,
    inputs.map((input) => ({
      entryType: input.entryType,
      subjectId: input.subjectId,
      payload: canonicalJson(input.payload),
      createdAt: now,
    })),
  );
  afterCommit(tx, () => wakeSequencers(organizationId));
  return refs.map((entryRef) => ({ entryRef }));
}
