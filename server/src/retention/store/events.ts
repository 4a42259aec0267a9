// retention_events: anchor events and interactions the fiduciary reports (Guard cannot observe an
// account closing, a purpose being served, or the principal logging in). Append-only.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

export const RETENTION_EVENT_KINDS = ["account_closed", "purpose_served", "interaction"] as const;
export type RetentionEventKind = (typeof RETENTION_EVENT_KINDS)[number];

export interface RetentionEventRecord {
  organizationId: string;
  eventId: string;
  principalId: string;
  kind: RetentionEventKind;
  purpose: string | null;
  occurredAt: number;
  recordedAt: number;
  recordedBy: string;
}

export async function insertRetentionEvent(tx: Queryable, e: RetentionEventRecord): Promise<void> {
  await first(
    tx,
    qb
      .insertInto("retention_events")
      .values({
        organization_id: e.organizationId,
        event_id: e.eventId,
        principal_id: e.principalId,
        kind: e.kind,
        purpose: e.purpose,
        occurred_at: e.occurredAt,
        recorded_at: e.recordedAt,
        recorded_by: e.recordedBy,
      })
      .returning("event_id"),
  );
}

/** The latest event of each (principal, kind, purpose) among these principals. */
export async function latestRetentionEvents(
  db: Queryable,
  organizationId: string,
  principalIds: readonly string[],
): Promise<{ principalId: string; kind: RetentionEventKind; purpose: string | null; latest: number }[]> {
  if (principalIds.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("retention_events")
      .select((eb) => ["principal_id", "kind", "purpose", eb.fn.max("occurred_at").as("latest")])
      .where("organization_id", "=", organizationId)
      .where("principal_id", "in", [...principalIds])
      .groupBy(["principal_id", "kind", "purpose"]),
  );
  return found.map((r) => ({
    principalId: r.principal_id,
    kind: r.kind as RetentionEventKind,
    purpose: r.purpose,
    latest: Number(r.latest),
  }));
}

/**
 * Up to `limit` principals with ids after `after` with an event of `kind` (and, for
 * `purpose_served`, of that purpose), by id.
 */
export async function principalsWithRetentionEvent(
  db: Queryable,
  organizationId: string,
  kind: RetentionEventKind,
  purpose: string | null,
  after: string,
  limit: number,
): Promise<string[]> {
  let query = qb
    .selectFrom("retention_events")
    .select("principal_id")
    .distinct()
    .where("organization_id", "=", organizationId)
    .where("kind", "=", kind)
    .where("principal_id", ">", after);
  if (purpose !== null) query = query.where("purpose", "=", purpose);
  const found = await rows(db, query.orderBy("principal_id").limit(limit));
  return found.map((r) => r.principal_id);
}

/**
 * Up to `limit` principals with ids after `after` with an event of `kind` (and, for
 * `purpose_served`, of that purpose) recorded at or after `since`, by id: the sweep's read of what
 * was reported since its last pass (retention_events_by_recorded).
 */
export async function principalsWithRetentionEventSince(
  db: Queryable,
  organizationId: string,
  kind: RetentionEventKind,
  purpose: string | null,
  since: number,
  after: string,
  limit: number,
): Promise<string[]> {
  let query = qb
    .selectFrom("retention_events")
    .select("principal_id")
    .distinct()
    .where("organization_id", "=", organizationId)
    .where("kind", "=", kind)
    .where("recorded_at", ">=", since)
    .where("principal_id", ">", after);
  if (purpose !== null) query = query.where("purpose", "=", purpose);
  const found = await rows(db, query.orderBy("principal_id").limit(limit));
  return found.map((r) => r.principal_id);
}
