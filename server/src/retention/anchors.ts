// When a principal's retention window under a policy starts: the policy's anchor event, read from
// the domains that hold it (through their stores), never earlier than the policy's floor.
//
// "Last interaction" is the latest time the principal approached the fiduciary or exercised her
// rights (DPDP Rules 2025 r.8(1)) that Guard can see or is told of: her first appearance (the
// principal row, made when the fiduciary first brokered a token for her), each consent she gave or
// that was withdrawn, each DSR or grievance she filed, and each `interaction` the fiduciary reports
// (a log-in, a contact; POST /api/v1/staff/retention/events).
import { findPrincipalsByIds } from "../accounts/store.js";
import { consentTimesOfPrincipals, type ConsentTimes } from "../consent/store.js";
import type { Queryable } from "../db/database.js";
import { latestFilingsOfPrincipals } from "../rights/store/dsr.js";
import { latestRetentionEvents, type RetentionEventKind } from "./store/events.js";
import type { PolicyRecord } from "./store/policies.js";

export interface PrincipalFacts {
  principalId: string;
  externalId: string;
  firstSeenAt: number;
  consents: ConsentTimes[];
  lastFilingAt: number | null;
  events: { kind: RetentionEventKind; purpose: string | null; latest: number }[];
}

/** What the anchors of these principals are computed from, by principal (unknown ones left out). */
export async function factsOf(
  db: Queryable,
  organizationId: string,
  principalIds: readonly string[],
): Promise<Map<string, PrincipalFacts>> {
  const ids = [...new Set(principalIds)];
  if (ids.length === 0) return new Map();
  // One after another: `db` may be a transaction, whose connection runs one statement at a time.
  const principals = await findPrincipalsByIds(
    db,
    ids.map((principalId) => ({ organizationId, principalId })),
  );
  const consents = await consentTimesOfPrincipals(db, organizationId, ids);
  const filings = await latestFilingsOfPrincipals(db, organizationId, ids);
  const events = await latestRetentionEvents(db, organizationId, ids);
  const out = new Map<string, PrincipalFacts>();
  for (const p of principals) {
    out.set(p.principalId, {
      principalId: p.principalId,
      externalId: p.externalId,
      firstSeenAt: p.createdAt,
      consents: consents.filter((c) => c.principalId === p.principalId),
      lastFilingAt: filings.get(p.principalId) ?? null,
      events: events.filter((e) => e.principalId === p.principalId),
    });
  }
  return out;
}

/** The latest interaction of the principal Guard knows of (see the file comment). */
export function lastInteractionOf(facts: PrincipalFacts): number {
  let latest = facts.firstSeenAt;
  for (const c of facts.consents) latest = Math.max(latest, c.lastGivenAt, c.lastWithdrawnAt ?? 0);
  if (facts.lastFilingAt !== null) latest = Math.max(latest, facts.lastFilingAt);
  for (const e of facts.events) if (e.kind === "interaction") latest = Math.max(latest, e.latest);
  return latest;
}

/**
 * When the principal's window under the policy starts, or null when the policy does not (now)
 * apply to her:
 * - `last_interaction`: she holds or held a consent for the purpose; her last interaction.
 * - `consent_withdrawn`: she has no active consent for the purpose and withdrew one; the latest
 *   withdrawal (a new consent for the purpose ends the window).
 * - `account_closed`: the latest reported closure of her account.
 * - `purpose_served`: the latest report that the purpose was served for her.
 * Never before the policy's floor.
 */
export function anchorOf(policy: PolicyRecord, facts: PrincipalFacts): number | null {
  const forPurpose = facts.consents.find((c) => c.purpose === policy.purpose);
  let anchor: number | null = null;
  switch (policy.anchorEvent) {
    case "last_interaction":
      anchor = forPurpose ? lastInteractionOf(facts) : null;
      break;
    case "consent_withdrawn":
      anchor = forPurpose && !forPurpose.active ? forPurpose.lastWithdrawnAt : null;
      break;
    case "account_closed":
      anchor = latestEvent(facts, "account_closed", null);
      break;
    case "purpose_served":
      anchor = latestEvent(facts, "purpose_served", policy.purpose);
      break;
  }
  if (anchor === null) return null;
  return policy.windowFloorAt === null ? anchor : Math.max(anchor, policy.windowFloorAt);
}

function latestEvent(facts: PrincipalFacts, kind: RetentionEventKind, purpose: string | null): number | null {
  let latest: number | null = null;
  for (const e of facts.events)
    if (e.kind === kind && (purpose === null || e.purpose === purpose))
      latest = Math.max(latest ?? 0, e.latest);
  return latest;
}
