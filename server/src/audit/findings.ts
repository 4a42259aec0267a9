// What `guard audit verify` found: one problem per record that disagrees with the audit chain,
// naming the table and the row. The verifier streams through the database, so the findings keep a
// bounded sample of problems (and the earliest by chain position) while counting all of them.
import { canonicalJson } from "../lib/canonical-json.js";

export interface AuditProblem {
  /** The table holding the record that disagrees with the chain (`audit_entries` for the chain itself). */
  table: string;
  /** The row: its id (request, transition, consent event, ...), `seq N` for a chain entry. */
  recordId: string;
  /** Audit-chain position the problem is attached to; null when none can be named. */
  seq: number | null;
  /** What differs, naming the column and both values where there are values to name. */
  reason: string;
}

/** How many problems a report lists; all of them are counted. */
export const LISTED_PROBLEMS = 100;

const bySeq = (a: AuditProblem, b: AuditProblem) => (a.seq ?? Infinity) - (b.seq ?? Infinity);

export class Findings {
  private readonly listed: AuditProblem[] = [];
  private earliest: AuditProblem | null = null;
  count = 0;

  add(problem: AuditProblem): void {
    this.count += 1;
    if (this.listed.length < LISTED_PROBLEMS) this.listed.push(problem);
    if (this.earliest === null || bySeq(problem, this.earliest) < 0) this.earliest = problem;
  }

  /** The earliest problem in chain order (problems without a position come last). */
  first(): AuditProblem | null {
    return this.earliest;
  }

  /** The listed problems in chain order. */
  problems(): AuditProblem[] {
    return [...this.listed].sort(bySeq);
  }
}

/**
 * "column is X; the chain gives Y" for every column whose stored value differs from the value the
 * chain commits to; values are compared as canonical JSON (object keys sorted).
 */
export function differences(stored: Record<string, unknown>, expected: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [column, value] of Object.entries(expected)) {
    const actual = stored[column] === undefined ? null : stored[column];
    if (canonicalJson(actual) !== canonicalJson(value)) {
      out.push(`${column} is ${JSON.stringify(actual)}; the chain gives ${JSON.stringify(value)}`);
    }
  }
  return out;
}
