// The shape every evidence checker of `guard audit verify` has. A checker owns some entry types of
// the chain and the tables those entries commit to; the verifier walks the chain once, handing each
// page to `checkEntries` (entry -> row: the row exists and holds what the entry recorded), then calls
// `checkRows` (row -> entry: every row has its entry, and the state the chain gives is the state
// stored). Both read in keyset pages, so memory stays bounded however large the organisation is.
import type { Queryable } from "../../db/database.js";
import { differences, type Findings } from "../findings.js";
import type { AuditKeys } from "../keys.js";
import type { StoredAuditEntry } from "../store.js";

export interface CheckContext {
  db: Queryable;
  organizationId: string;
  keys: AuditKeys;
  findings: Findings;
  pageSize: number;
  /** Counts rows checked, per table, for the report. */
  checked(table: string, rows: number): void;
}

export interface EvidenceChecker {
  /** Chain entries of these types are this checker's to verify. */
  readonly entryTypes: readonly string[];
  /** Checks the entries of one chain page that are of this checker's types, in chain order. */
  checkEntries(entries: readonly StoredAuditEntry[]): Promise<void>;
  /** After the walk: every row of the covered tables against the chain. */
  checkRows(): Promise<void>;
}

export interface EvidenceKind {
  /** The tables whose rows this kind checks against the chain. */
  readonly tables: readonly string[];
  readonly entryTypes: readonly string[];
  start(context: CheckContext): EvidenceChecker;
}

/** The payload of an entry as an object (payloads are canonical JSON objects; the walk checked that). */
export function payloadOf(entry: StoredAuditEntry): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(entry.payload);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Groups entries (in chain order) by subject. */
export function bySubject(entries: readonly StoredAuditEntry[]): Map<string, StoredAuditEntry[]> {
  const out = new Map<string, StoredAuditEntry[]>();
  for (const entry of entries) {
    const list = out.get(entry.subjectId) ?? [];
    list.push(entry);
    out.set(entry.subjectId, list);
  }
  return out;
}

/** How `checkEntriesNameRows` finds the row each entry names. */
export interface RowsNamedBySubject {
  /** The payload field holding the row's id, which is also the entry's subject. */
  idField: string;
  /** The table the rows live in, as findings name it. */
  table: string;
  /** What the row is, for the findings ("breach", "POS request"). */
  noun: string;
  /** The rows with these ids (any map-like answer). */
  load(ids: string[]): Promise<{ has(id: string): boolean }>;
}

/**
 * Entry -> row for evidence whose content is compared in `checkRows`, where all of a row's entries
 * are at hand: each entry names its subject in `idField`, and that row exists. An entry naming no
 * id, or another than its subject, and a row the chain recorded that is gone, are findings.
 */
export async function checkEntriesNameRows(
  findings: Findings,
  entries: readonly StoredAuditEntry[],
  rows: RowsNamedBySubject,
): Promise<void> {
  if (entries.length === 0) return;
  const ids = entries.map((entry) => payloadOf(entry)[rows.idField]);
  const found = await rows.load(ids.filter((id): id is string => typeof id === "string"));
  for (const [i, entry] of entries.entries()) {
    const id = ids[i];
    if (typeof id !== "string" || id !== entry.subjectId) {
      findings.add({
        table: "audit_entries",
        recordId: `seq ${entry.seq}`,
        seq: entry.seq,
        reason: `the ${rows.noun} entry names no ${rows.idField}, or another than its subject`,
      });
    } else if (!found.has(id)) {
      findings.add({
        table: rows.table,
        recordId: id,
        seq: entry.seq,
        reason: `the ${rows.noun} recorded in the chain (${entry.entryType}) is missing from ${rows.table}`,
      });
    }
  }
}

/** How `checkEntriesAgainstRows` finds and compares the row each entry names. */
export interface RowsNamedByEntries<Row> {
  /** The payload field holding the row's id (e.g. `transitionId`). */
  idField: string;
  /** The table the rows live in, as findings name it. */
  table: string;
  /** What the row is, for the findings ("the move", "the verification"). */
  noun: string;
  /** The rows with these ids, by id. */
  load(ids: string[]): Promise<Map<string, Row>>;
  /** The row's committed columns as stored, and as the entry recorded them (same keys). */
  stored(row: Row): Record<string, unknown>;
  committed(entry: StoredAuditEntry): Record<string, unknown>;
}

/**
 * Entry -> row for evidence whose entry names one row by id: an entry naming no id, a row the
 * chain recorded that is gone, and a row whose committed columns differ are findings.
 */
export async function checkEntriesAgainstRows<Row>(
  findings: Findings,
  entries: readonly StoredAuditEntry[],
  spec: RowsNamedByEntries<Row>,
): Promise<void> {
  const ids = entries.map((entry) => payloadOf(entry)[spec.idField]);
  const rows = await spec.load(ids.filter((id): id is string => typeof id === "string"));
  for (const [i, entry] of entries.entries()) {
    const id = ids[i];
    if (typeof id !== "string") {
      findings.add({
        table: "audit_entries",
        recordId: `seq ${entry.seq}`,
        seq: entry.seq,
        reason: `${spec.noun}'s entry names no ${spec.idField}`,
      });
      continue;
    }
    const row = rows.get(id);
    const problem = (reason: string) =>
      findings.add({ table: spec.table, recordId: id, seq: entry.seq, reason });
    if (!row) {
      problem(`${spec.noun} recorded in the chain is missing from ${spec.table}`);
      continue;
    }
    const differ = differences(spec.stored(row), spec.committed(entry));
    if (differ.length > 0) problem(differ.join("; "));
  }
}
