// The shape every evidence checker of `guard audit verify` has. A checker owns some entry types of
// the chain and the tables those entries commit to; the verifier walks the chain once, handing each
// page to `checkEntries` (entry -> row: the row exists and holds what the entry recorded), then calls
// `checkRows` (row -> entry: every row has its entry, and the state the chain gives is the state
// stored). Both read in keyset pages, so memory stays bounded however large the organisation is.
import type { Queryable } from "../../db/database.js";
import type { Findings } from "../findings.js";
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
