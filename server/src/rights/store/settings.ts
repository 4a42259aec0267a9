// rights_settings: the response periods an organisation publishes, one row per organisation once
// it changes them (none while the defaults apply). The table's CHECKs repeat the 90-day ceiling.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb } from "../../db/query.js";

export interface StoredPeriods {
  dsrResponseDays: number;
  grievanceResponseDays: number;
  updatedAt: number;
}

/** The organisation's periods; undefined while it has never set them. */
export async function findStoredPeriods(
  db: Queryable,
  organizationId: string,
): Promise<StoredPeriods | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("rights_settings")
      .select(["dsr_response_days", "grievance_response_days", "updated_at"])
      .where("organization_id", "=", organizationId),
  );
  return (
    row && {
      dsrResponseDays: row.dsr_response_days,
      grievanceResponseDays: row.grievance_response_days,
      updatedAt: row.updated_at,
    }
  );
}

/**
 * Who last changed the periods (the actor id the change recorded), or undefined without a row;
 * audit verify compares it with the last change on the chain.
 */
export async function findPeriodsUpdatedBy(
  db: Queryable,
  organizationId: string,
): Promise<string | null | undefined> {
  const row = await first(
    db,
    qb.selectFrom("rights_settings").select("updated_by").where("organization_id", "=", organizationId),
  );
  return row?.updated_by;
}

/**
 * Makes the organisation's row exist (with `defaults` when new), then locks it until the
 * transaction ends, so concurrent partial updates (one field each) take turns and both apply.
 */
export async function lockStoredPeriods(
  tx: Queryable,
  organizationId: string,
  defaults: { dsrResponseDays: number; grievanceResponseDays: number },
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .insertInto("rights_settings")
      .values({
        organization_id: organizationId,
        dsr_response_days: defaults.dsrResponseDays,
        grievance_response_days: defaults.grievanceResponseDays,
        updated_at: now,
      })
      .onConflict((oc) => oc.column("organization_id").doNothing()),
  );
  await execute(
    tx,
    qb
      .selectFrom("rights_settings")
      .select("organization_id")
      .where("organization_id", "=", organizationId)
      .forUpdate(),
  );
}

export async function updateStoredPeriods(
  tx: Queryable,
  input: {
    organizationId: string;
    dsrResponseDays: number;
    grievanceResponseDays: number;
    updatedBy: string | null;
    now: number;
  },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("rights_settings")
      .set({
        dsr_response_days: input.dsrResponseDays,
        grievance_response_days: input.grievanceResponseDays,
        updated_at: input.now,
        updated_by: input.updatedBy,
      })
      .where("organization_id", "=", input.organizationId),
  );
}
