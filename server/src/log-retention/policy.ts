// An organisation's log-retention policy: per class of log, how many days it is kept before the
// retention job may purge it, or "forever". DPDP Rules 2025 r.8(3) sets the floor (processing logs
// kept at least one year), so a period under 365 days is refused naming the class; there is no
// upper bound beyond a sanity limit. Without a policy every class is kept forever: the statute
// sets a minimum, not a maximum, and deleting evidence is the organisation's choice to make.
import type { Queryable } from "../db/database.js";
import { MINIMUM_LOG_RETENTION_DAYS } from "../audit/purge.js";
import { validationError } from "../lib/failure.js";
import { readPolicyRows, upsertPolicyRow, type LogClass } from "./store.js";

export type { LogClass } from "./store.js";
export { MINIMUM_LOG_RETENTION_DAYS } from "../audit/purge.js";

export const LOG_CLASSES: readonly LogClass[] = [
  "audit_entries",
  "consent_events",
  "gate_decisions",
  "webhook_deliveries",
];

/** A class's name on the wire and in findings (`auditEntries`), as field names are spelt. */
export const FIELD_OF: Record<LogClass, string> = {
  audit_entries: "auditEntries",
  consent_events: "consentEvents",
  gate_decisions: "gateDecisions",
  webhook_deliveries: "webhookDeliveries",
};

/** A hundred years: a longer period is a typing error, not a policy. */
export const MAXIMUM_RETAIN_DAYS = 36_500;

export interface ClassPolicy {
  /** Days kept before the job may purge; null: kept forever. */
  retainDays: number | null;
  /** When and by whom the class's period was last set (null: never set, the default applies). */
  updatedAt: number | null;
  updatedBy: string | null;
}

export type LogRetentionPolicy = Record<LogClass, ClassPolicy>;

/** The organisation's policy, every class present (the default, forever, where none is set). */
export async function readLogRetentionPolicy(
  db: Queryable,
  organizationId: string,
): Promise<LogRetentionPolicy> {
  const policy = Object.fromEntries(
    LOG_CLASSES.map((logClass) => [logClass, { retainDays: null, updatedAt: null, updatedBy: null }]),
  ) as LogRetentionPolicy;
  for (const row of await readPolicyRows(db, organizationId)) {
    if (!LOG_CLASSES.includes(row.logClass)) continue;
    policy[row.logClass] = { retainDays: row.retainDays, updatedAt: row.updatedAt, updatedBy: row.updatedBy };
  }
  return policy;
}

/**
 * A class's period as given: a whole number of days from 365 up, or null / "forever" for no purge.
 * Anything else is a VALIDATION_ERROR naming `field`.
 */
export function parseRetainDays(field: string, value: unknown): number | null {
  if (value === null || value === "forever") return null;
  const days = typeof value === "string" && /^\d+$/.test(value.trim()) ? Number(value.trim()) : value;
  if (typeof days !== "number" || !Number.isInteger(days)) {
    throw validationError(
      field,
      `${field} must be a whole number of days (at least ${MINIMUM_LOG_RETENTION_DAYS}) or "forever"`,
    );
  }
  if (days < MINIMUM_LOG_RETENTION_DAYS) {
    throw validationError(
      field,
      `${field} must be at least ${MINIMUM_LOG_RETENTION_DAYS} days: processing logs are kept at least one year (DPDP Rules 2025 r.8(3))`,
    );
  }
  if (days > MAXIMUM_RETAIN_DAYS) {
    throw validationError(
      field,
      `${field} must be at most ${MAXIMUM_RETAIN_DAYS} days; use "forever" to keep logs without limit`,
    );
  }
  return days;
}

/**
 * Sets the periods of the classes named in `changes` (keyed by wire field name, `auditEntries`
 * ...; classes not named keep theirs), all or none: every value is checked before any is stored.
 * The updated policy.
 */
export async function setLogRetentionPolicy(
  tx: Queryable,
  organizationId: string,
  changes: Partial<Record<string, unknown>>,
  actor: string,
  now: number,
): Promise<LogRetentionPolicy> {
  const known = new Map(LOG_CLASSES.map((logClass) => [FIELD_OF[logClass], logClass]));
  const parsed: [LogClass, number | null][] = [];
  for (const [field, value] of Object.entries(changes)) {
    if (value === undefined) continue;
    const logClass = known.get(field);
    if (!logClass) {
      throw validationError(field, `${field} is not a log class; use ${[...known.keys()].join(", ")}`);
    }
    parsed.push([logClass, parseRetainDays(field, value)]);
  }
  if (parsed.length === 0) {
    throw validationError("policy", `name at least one log class: ${[...known.keys()].join(", ")}`);
  }
  for (const [logClass, days] of parsed)
    await upsertPolicyRow(tx, organizationId, logClass, days, now, actor);
  return readLogRetentionPolicy(tx, organizationId);
}
