// Response periods an organisation publishes for DSRs and grievances. DPDP Rules 2025, r. 14(3):
// the period for responding to grievances is published and may not exceed ninety days; Guard
// applies the same ceiling to DSRs, which are answered through the same redressal system.
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { validationError } from "../lib/failure.js";
import type { Actor } from "./history.js";

export const DEFAULT_DSR_RESPONSE_DAYS = 30;
export const DEFAULT_GRIEVANCE_RESPONSE_DAYS = 30;
/** Rule 14(3) ceiling. */
export const MAX_RESPONSE_DAYS = 90;
export const DAY_MS = 86_400_000;

export interface ResponsePeriods {
  dsrResponseDays: number;
  grievanceResponseDays: number;
  /** Epoch ms of the last change; null while the defaults apply. */
  updatedAt: number | null;
}

export async function getResponsePeriods(db: Queryable, organizationId: string): Promise<ResponsePeriods> {
  const [row] = await db.query<{
    dsr_response_days: number;
    grievance_response_days: number;
    updated_at: number;
  }>(
    "SELECT dsr_response_days, grievance_response_days, updated_at FROM rights_settings WHERE organization_id = $1",
    [organizationId],
  );
  return row
    ? {
        dsrResponseDays: row.dsr_response_days,
        grievanceResponseDays: row.grievance_response_days,
        updatedAt: row.updated_at,
      }
    : {
        dsrResponseDays: DEFAULT_DSR_RESPONSE_DAYS,
        grievanceResponseDays: DEFAULT_GRIEVANCE_RESPONSE_DAYS,
        updatedAt: null,
      };
}

function checkDays(field: string, value: number): void {
  if (!Number.isInteger(value) || value < 1)
    throw validationError(field, `${field} must be a whole number of days, at least 1`);
  if (value > MAX_RESPONSE_DAYS) {
    throw validationError(
      field,
      `${field} must be at most ${MAX_RESPONSE_DAYS} days (DPDP Rules 2025, rule 14(3))`,
    );
  }
}

/**
 * Sets either or both periods (the other keeps its current value) through `tx`, and appends the
 * change to the audit chain. Changes apply to requests filed afterwards; a filed request keeps the
 * deadline it was given.
 */
export async function setResponsePeriods(
  tx: Queryable,
  input: {
    organizationId: string;
    dsrResponseDays?: number | undefined;
    grievanceResponseDays?: number | undefined;
    actor: Actor;
  },
  now: number,
): Promise<ResponsePeriods> {
  if (input.dsrResponseDays !== undefined) checkDays("dsrResponseDays", input.dsrResponseDays);
  if (input.grievanceResponseDays !== undefined)
    checkDays("grievanceResponseDays", input.grievanceResponseDays);
  // Make the row exist, then lock it, so concurrent partial updates (one field each) both apply.
  await tx.query(
    `INSERT INTO rights_settings (organization_id, dsr_response_days, grievance_response_days, updated_at)
     VALUES ($1, $2, $3, $4) ON CONFLICT (organization_id) DO NOTHING`,
    [input.organizationId, DEFAULT_DSR_RESPONSE_DAYS, DEFAULT_GRIEVANCE_RESPONSE_DAYS, now],
  );
  await tx.query("SELECT 1 FROM rights_settings WHERE organization_id = $1 FOR UPDATE", [
    input.organizationId,
  ]);
  const current = await getResponsePeriods(tx, input.organizationId);
  const dsr = input.dsrResponseDays ?? current.dsrResponseDays;
  const grievance = input.grievanceResponseDays ?? current.grievanceResponseDays;
  // The same values again change nothing and add nothing to the audit chain.
  if (dsr === current.dsrResponseDays && grievance === current.grievanceResponseDays) return current;
  await tx.query(
    `UPDATE rights_settings SET dsr_response_days = $2, grievance_response_days = $3, updated_at = $4, updated_by = $5
      WHERE organization_id = $1`,
    [input.organizationId, dsr, grievance, now, input.actor.id],
  );
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: "rights.response_periods_changed",
      subjectId: input.organizationId,
      payload: {
        from: {
          dsrResponseDays: current.dsrResponseDays,
          grievanceResponseDays: current.grievanceResponseDays,
        },
        to: { dsrResponseDays: dsr, grievanceResponseDays: grievance },
        actorKind: input.actor.kind,
        actorId: input.actor.id,
      },
    },
    now,
  );
  return { dsrResponseDays: dsr, grievanceResponseDays: grievance, updatedAt: now };
}
