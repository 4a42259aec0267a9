// Response periods an organisation publishes for DSRs and grievances. DPDP Rules 2025, r. 14(3):
// the period for responding to grievances is published and may not exceed ninety days; Guard
// applies the same ceiling to DSRs, which are answered through the same redressal system.
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { announceInvalidation, processInvalidations } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { validationError } from "../lib/failure.js";
import type { Actor } from "./history.js";
import { findStoredPeriods, lockStoredPeriods, updateStoredPeriods } from "./store/settings.js";

export const DEFAULT_DSR_RESPONSE_DAYS = 30;
export const DEFAULT_GRIEVANCE_RESPONSE_DAYS = 30;
/** Rule 14(3) ceiling. */
export const MAX_RESPONSE_DAYS = 90;
export const DAY_MS = 86_400_000;
/**
 * The share of its period after which an open item counts as nearly due (clocks.ts); the staff
 * queues and the sweep compute the same instant in SQL (store/queue.ts).
 */
export const DUE_SOON_FRACTION = { numerator: 4, denominator: 5 } as const;

export interface ResponsePeriods {
  dsrResponseDays: number;
  grievanceResponseDays: number;
  /** Epoch ms of the last change; null while the defaults apply. */
  updatedAt: number | null;
}

export async function getResponsePeriods(db: Queryable, organizationId: string): Promise<ResponsePeriods> {
  return (
    (await findStoredPeriods(db, organizationId)) ?? {
      dsrResponseDays: DEFAULT_DSR_RESPONSE_DAYS,
      grievanceResponseDays: DEFAULT_GRIEVANCE_RESPONSE_DAYS,
      updatedAt: null,
    }
  );
}

// Every filing reads the periods, so filings are served from a per-instance cache that a change
// announces in its transaction (as the consent settings are, consent/settings.ts). A filing on
// another instance in the moment before the announcement arrives uses the previous periods, as a
// filing committed just before the change would; its deadline is computed from the period it used
// and stored with it, which is what `guard audit verify` compares.
const periodsCache = new ReadThroughCache<{ organizationId: string; periods: ResponsePeriods }>(
  processInvalidations,
  { topic: "response_periods", max: 10_000, ttlMs: 60_000 },
);

/** The periods a new DSR or grievance is filed under (cached; see above). */
export async function periodsForFiling(db: Queryable, organizationId: string): Promise<ResponsePeriods> {
  const entry = await periodsCache.get(organizationId, async () => ({
    organizationId,
    periods: await getResponsePeriods(db, organizationId),
  }));
  return entry!.periods;
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
  await lockStoredPeriods(
    tx,
    input.organizationId,
    { dsrResponseDays: DEFAULT_DSR_RESPONSE_DAYS, grievanceResponseDays: DEFAULT_GRIEVANCE_RESPONSE_DAYS },
    now,
  );
  const current = await getResponsePeriods(tx, input.organizationId);
  const dsr = input.dsrResponseDays ?? current.dsrResponseDays;
  const grievance = input.grievanceResponseDays ?? current.grievanceResponseDays;
  // The same values again change nothing and add nothing to the audit chain.
  if (dsr === current.dsrResponseDays && grievance === current.grievanceResponseDays) return current;
  await announceInvalidation(tx, { topic: "response_periods", organizationId: input.organizationId });
  await updateStoredPeriods(tx, {
    organizationId: input.organizationId,
    dsrResponseDays: dsr,
    grievanceResponseDays: grievance,
    updatedBy: input.actor.id,
    now,
  });
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
