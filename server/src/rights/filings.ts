// What filing a DSR or a grievance writes beside the record itself, in the filing's transaction:
// the record's first move (from nothing to its first status) in the history, and so on the audit
// chain, and per organisation its `*.created` webhook events. One statement set for a whole group
// of filings (a group commit's, db/write-group.ts), whatever their organisations.
import type { Queryable } from "../db/database.js";
import { groupBy } from "../lib/group-by.js";
import { enqueueEvents } from "../webhooks/outbox.js";
import { recordTransitions, type Actor } from "./history.js";

/** How one kind of filed record is evidenced. */
export interface FiledKind<R> {
  subjectKind: "dsr" | "grievance";
  /** The status a filed record starts in. */
  firstStatus: string;
  eventType: "dsr.created" | "grievance.created";
  idOf(record: R): string;
  /** Extra audit facts for the first move (ids and codes only, never personal data). */
  evidenceOf(record: R): Record<string, unknown>;
  eventPayloadOf(record: R): Record<string, unknown>;
}

/** Records the first move and the `*.created` event of each of `records`, filed by `actors[i]`. */
export async function recordFiled<R extends { organizationId: string; principalId: string }>(
  tx: Queryable,
  kind: FiledKind<R>,
  records: readonly R[],
  actors: readonly Actor[],
  now: number,
): Promise<void> {
  await recordTransitions(
    tx,
    records.map((record, i) => ({
      organizationId: record.organizationId,
      subjectKind: kind.subjectKind,
      subjectId: kind.idOf(record),
      principalId: record.principalId,
      from: null,
      to: kind.firstStatus,
      actor: actors[i]!,
      evidence: kind.evidenceOf(record),
    })),
    now,
  );
  for (const [organizationId, ofOrganization] of groupBy(records, (r) => r.organizationId)) {
    await enqueueEvents(
      tx,
      organizationId,
      ofOrganization.map((record) => ({ eventType: kind.eventType, payload: kind.eventPayloadOf(record) })),
      now,
    );
  }
}
