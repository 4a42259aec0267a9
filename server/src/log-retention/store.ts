// log_retention_policies: how long each organisation keeps each class of log. The only code that
// touches the table; policy.ts holds the rules (the one-year floor), purge.ts reads it.
import type { Queryable } from "../db/database.js";
import { execute, qb, rows } from "../db/query.js";

export type LogClass = "audit_entries" | "consent_events" | "gate_decisions" | "webhook_deliveries";

export interface StoredPolicyRow {
  logClass: LogClass;
  /** null: kept forever. */
  retainDays: number | null;
  updatedAt: number;
  updatedBy: string;
}

/** The organisation's stored policy rows (classes without a row are kept forever). */
export async function readPolicyRows(db: Queryable, organizationId: string): Promise<StoredPolicyRow[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("log_retention_policies")
      .select(["log_class", "retain_days", "updated_at", "updated_by"])
      .where("organization_id", "=", organizationId)
      .orderBy("log_class"),
  );
  return found.map((row) => ({
    logClass: row.log_class as LogClass,
    retainDays: row.retain_days === null ? null : Number(row.retain_days),
    updatedAt: Number(row.updated_at),
    updatedBy: row.updated_by,
  }));
}

export async function upsertPolicyRow(
  tx: Queryable,
  organizationId: string,
  logClass: LogClass,
  retainDays: number | null,
  now: number,
  updatedBy: string,
): Promise<void> {
  await execute(
    tx,
    qb
      .insertInto("log_retention_policies")
      .values({
        organization_id: organizationId,
        log_class: logClass,
        retain_days: retainDays,
        updated_at: now,
        updated_by: updatedBy,
      })
      .onConflict((oc) =>
        oc.columns(["organization_id", "log_class"]).doUpdateSet({
          retain_days: retainDays,
          updated_at: now,
          updated_by: updatedBy,
        }),
      ),
  );
}

/**
 * Organisations (after `after`, in id order, at most `limit`) with a purge period set for at least
 * one class: the retention sweep visits only these.
 */
export async function organizationsWithPurgePeriods(
  db: Queryable,
  after: string,
  limit: number,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("log_retention_policies")
      .select("organization_id")
      .distinct()
      .where("retain_days", "is not", null)
      .where("organization_id", ">", after)
      .orderBy("organization_id")
      .limit(limit),
  );
  return found.map((row) => row.organization_id);
}
