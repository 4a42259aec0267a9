// Disabling an organisation: the deployment's operator stops everything acting for one tenant
// (unpaid, compromised, under investigation) without touching what it holds. Under the DPDP Act
// the records are the fiduciary's evidence, so nothing is deleted: while disabled its service keys,
// principal tokens and staff sessions are refused (403), staff cannot sign in, its public pages
// and banner answer as for an unknown organisation (404), every capability-gated behaviour is off,
// and background jobs leave it alone (webhook deliveries stay queued, retention schedules and
// notifies nothing). Enabling restores all of it: nothing was ended or rewritten.
//
// The state is one row (organizations.disabled_*) read on the request path through the instance's
// CapabilityCache, so a change is announced on its topic in the writing transaction and every
// instance drops the entry when it commits (db/invalidation.ts). Each change is an entry on the
// organisation's audit chain saying who and why (audit/evidence/organization-status.ts).
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { announceInvalidation } from "../db/invalidation.js";
import { Failure, validationError } from "../lib/failure.js";
import {
  clearOrganizationDisabled,
  findOrganizationById,
  setOrganizationDisabled,
  type Organization,
} from "./store.js";

export const ORGANIZATION_DISABLED_ENTRY = "organization.disabled";
export const ORGANIZATION_ENABLED_ENTRY = "organization.enabled";

const MAX_REASON = 500;
const MAX_ACTOR = 200;

/**
 * What a credential of a disabled organisation gets. FORBIDDEN (403), not UNAUTHORIZED: the key,
 * token or session is still good, so a client must not discard it; its holder is told why.
 */
export const organizationDisabled = () =>
  new Failure(
    "FORBIDDEN",
    "This organisation is disabled by the deployment's operator; its records are kept. Ask the operator to enable it again.",
  );

export interface StatusChange {
  organization: Organization;
  /** False when the organisation already was in the state asked for (nothing was recorded). */
  changed: boolean;
}

function checkedText(field: string, value: unknown, max: number): string {
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") throw validationError(field, `${field} is required and must not be blank`);
  if (text.length > max) throw validationError(field, `${field} must be at most ${max} characters`);
  return text;
}

/**
 * Disables the organisation, recording who (`by`) and why (`reason`, required); a second call
 * keeps the first disabling and records nothing. Undefined when there is no such organisation.
 * Run it in a transaction: the change, its audit entry and its announcement commit together.
 */
export async function disableOrganization(
  tx: Queryable,
  input: { organizationId: string; reason: unknown; by: string },
  now: number,
): Promise<StatusChange | undefined> {
  const reason = checkedText("reason", input.reason, MAX_REASON);
  const by = checkedText("by", input.by, MAX_ACTOR);
  // The row lock orders concurrent disable/enable calls, so each change is recorded exactly once.
  const current = await findOrganizationById(tx, input.organizationId, { forUpdate: true });
  if (!current) return undefined;
  if (current.disabledAt !== null) return { organization: current, changed: false };
  const organization = await setOrganizationDisabled(tx, input.organizationId, { at: now, reason, by });
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: ORGANIZATION_DISABLED_ENTRY,
      subjectId: input.organizationId,
      payload: { organizationId: input.organizationId, disabledAt: now, reason, by },
    },
    now,
  );
  await announceInvalidation(tx, { topic: "capabilities", organizationId: input.organizationId });
  return { organization: organization!, changed: true };
}

/**
 * Enables a disabled organisation again, recording who and (optionally) why; an enabled one is
 * left as it is and nothing is recorded. Undefined when there is no such organisation. Run it in a
 * transaction.
 */
export async function enableOrganization(
  tx: Queryable,
  input: { organizationId: string; reason?: unknown; by: string },
  now: number,
): Promise<StatusChange | undefined> {
  const reason =
    input.reason === undefined || input.reason === null
      ? null
      : checkedText("reason", input.reason, MAX_REASON);
  const by = checkedText("by", input.by, MAX_ACTOR);
  const current = await findOrganizationById(tx, input.organizationId, { forUpdate: true });
  if (!current) return undefined;
  if (current.disabledAt === null) return { organization: current, changed: false };
  const organization = await clearOrganizationDisabled(tx, input.organizationId);
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: ORGANIZATION_ENABLED_ENTRY,
      subjectId: input.organizationId,
      payload: {
        organizationId: input.organizationId,
        enabledAt: now,
        disabledAt: current.disabledAt,
        reason,
        by,
      },
    },
    now,
  );
  await announceInvalidation(tx, { topic: "capabilities", organizationId: input.organizationId });
  return { organization: organization!, changed: true };
}
