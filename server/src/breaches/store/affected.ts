// breach_affected_principals: who a breach affected, and when each was told. The only code that
// touches the table; ../principals.ts holds the rules (add by list or by purpose, notify).
import type { Queryable } from "../../db/database.js";
import { first, qb, rows, sql } from "../../db/query.js";

export interface AffectedPrincipal {
  principalId: string;
  addedAt: number;
  notifiedAt: number | null;
  notificationId: string | null;
}

type AffectedRow = {
  principal_id: string;
  added_at: number | string;
  notified_at: number | string | null;
  notification_id: string | null;
};

const affectedOf = (row: AffectedRow): AffectedPrincipal => ({
  principalId: row.principal_id,
  addedAt: Number(row.added_at),
  notifiedAt: row.notified_at === null ? null : Number(row.notified_at),
  notificationId: row.notification_id,
});

/**
 * Adds these principals to the breach; answers the ids that were not already on it (ON CONFLICT
 * DO NOTHING: adding a principal twice, or concurrently, keeps the first row and its times).
 */
export async function insertAffectedPrincipals(
  tx: Queryable,
  input: { organizationId: string; breachId: string; principalIds: readonly string[]; addedAt: number },
): Promise<string[]> {
  if (input.principalIds.length === 0) return [];
  const inserted = await rows(
    tx,
    qb
      .insertInto("breach_affected_principals")
      .values(
        input.principalIds.map((principalId) => ({
          organization_id: input.organizationId,
          breach_id: input.breachId,
          principal_id: principalId,
          added_at: input.addedAt,
        })),
      )
      .onConflict((oc) => oc.columns(["organization_id", "breach_id", "principal_id"]).doNothing())
      .returning("principal_id"),
  );
  return inserted.map((r) => r.principal_id).sort();
}

/** Up to `limit` principals of the breach not yet told, by principal id. */
export async function pendingAffectedPrincipals(
  db: Queryable,
  organizationId: string,
  breachId: string,
  limit: number,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("breach_affected_principals")
      .select("principal_id")
      .where("organization_id", "=", organizationId)
      .where("breach_id", "=", breachId)
      .where("notified_at", "is", null)
      .orderBy("principal_id")
      .limit(limit),
  );
  return found.map((r) => r.principal_id);
}

/** Records that the principal was told (once: a row already marked keeps its first time). */
export async function markAffectedNotified(
  tx: Queryable,
  input: {
    organizationId: string;
    breachId: string;
    principalId: string;
    notifiedAt: number;
    notificationId: string | null;
  },
): Promise<boolean> {
  const row = await first(
    tx,
    qb
      .updateTable("breach_affected_principals")
      .set({ notified_at: input.notifiedAt, notification_id: input.notificationId })
      .where("organization_id", "=", input.organizationId)
      .where("breach_id", "=", input.breachId)
      .where("principal_id", "=", input.principalId)
      .where("notified_at", "is", null)
      .returning("principal_id"),
  );
  return row !== undefined;
}

/** How many principals each breach affected, and how many of them have been told; by breach id. */
export async function affectedCounts(
  db: Queryable,
  organizationId: string,
  breachIds: readonly string[],
): Promise<Map<string, { total: number; notified: number }>> {
  if (breachIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("breach_affected_principals")
      .select([
        "breach_id",
        sql<number | string>`count(*)`.as("total"),
        sql<number | string>`count(notified_at)`.as("notified"),
      ])
      .where("organization_id", "=", organizationId)
      .where("breach_id", "in", [...breachIds])
      .groupBy("breach_id"),
  );
  return new Map(found.map((r) => [r.breach_id, { total: Number(r.total), notified: Number(r.notified) }]));
}

/** Up to `limit` of the breach's principals after `afterPrincipalId`, by principal id. */
export async function pageAffectedPrincipals(
  db: Queryable,
  organizationId: string,
  breachId: string,
  afterPrincipalId: string,
  limit: number,
): Promise<AffectedPrincipal[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("breach_affected_principals")
      .select(["principal_id", "added_at", "notified_at", "notification_id"])
      .where("organization_id", "=", organizationId)
      .where("breach_id", "=", breachId)
      .where("principal_id", ">", afterPrincipalId)
      .orderBy("principal_id")
      .limit(limit),
  );
  return found.map(affectedOf);
}
