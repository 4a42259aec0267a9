// retention_sweep_marks and retention_principal_checks: how far the sweep has read, per policy, and
// when each candidate principal must be read again (migration 0118). Neither is evidence: losing
// them costs the next sweep a full pass, nothing more.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows } from "../../db/query.js";

export interface SweepMark {
  organizationId: string;
  policyId: string;
  /** The policy's updated_at when the mark was written: terms changed since mean a full pass. */
  policyUpdatedAt: number;
  fullPassAt: number;
  consentsReadTo: number;
  eventsReadTo: number;
}

export async function findSweepMark(
  db: Queryable,
  organizationId: string,
  policyId: string,
): Promise<SweepMark | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("retention_sweep_marks")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("policy_id", "=", policyId),
  );
  return (
    row && {
      organizationId: row.organization_id,
      policyId: row.policy_id,
      policyUpdatedAt: Number(row.policy_updated_at),
      fullPassAt: Number(row.full_pass_at),
      consentsReadTo: Number(row.consents_read_to),
      eventsReadTo: Number(row.events_read_to),
    }
  );
}

export async function saveSweepMark(db: Queryable, mark: SweepMark): Promise<void> {
  await execute(
    db,
    qb
      .insertInto("retention_sweep_marks")
      .values({
        organization_id: mark.organizationId,
        policy_id: mark.policyId,
        policy_updated_at: mark.policyUpdatedAt,
        full_pass_at: mark.fullPassAt,
        consents_read_to: mark.consentsReadTo,
        events_read_to: mark.eventsReadTo,
      })
      .onConflict((oc) =>
        oc.columns(["organization_id", "policy_id"]).doUpdateSet({
          policy_updated_at: mark.policyUpdatedAt,
          full_pass_at: mark.fullPassAt,
          consents_read_to: mark.consentsReadTo,
          events_read_to: mark.eventsReadTo,
        }),
      ),
  );
}

/** Sets when each of these principals is next read under the policy. */
export async function setRechecks(
  db: Queryable,
  organizationId: string,
  policyId: string,
  rechecks: readonly { principalId: string; recheckAt: number }[],
): Promise<void> {
  if (rechecks.length === 0) return;
  await execute(
    db,
    qb
      .insertInto("retention_principal_checks")
      .values(
        rechecks.map((r) => ({
          organization_id: organizationId,
          policy_id: policyId,
          principal_id: r.principalId,
          recheck_at: r.recheckAt,
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "policy_id", "principal_id"])
          .doUpdateSet((eb) => ({ recheck_at: eb.ref("excluded.recheck_at") })),
      ),
  );
}

/**
 * Up to `limit` principals due to be read under the policy at `now`, by (recheck_at, principal_id)
 * after `after`: one range of retention_principal_checks_due.
 */
export async function principalsDueForCheck(
  db: Queryable,
  organizationId: string,
  policyId: string,
  now: number,
  after: readonly [number, string] | null,
  limit: number,
): Promise<{ principalId: string; recheckAt: number }[]> {
  let query = qb
    .selectFrom("retention_principal_checks")
    .select(["principal_id", "recheck_at"])
    .where("organization_id", "=", organizationId)
    .where("policy_id", "=", policyId)
    .where("recheck_at", "<=", now);
  if (after)
    query = query.where((eb) => eb(eb.refTuple("recheck_at", "principal_id"), ">", eb.tuple(...after)));
  const found = await rows(db, query.orderBy("recheck_at").orderBy("principal_id").limit(limit));
  return found.map((r) => ({ principalId: r.principal_id, recheckAt: Number(r.recheck_at) }));
}
