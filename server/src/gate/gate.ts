// The Consent Gate: may processing that depends on a consent go ahead? The answer comes from the
// consent's own state (withdrawn_at), and every answer is durably logged before it is returned.
// Hot path, benchmarked: one statement that reads the consent by its primary key and inserts the
// decision row (a data-modifying CTE), so a verify costs one round trip and one index lookup.
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";

export type GateDecision = "allow" | "deny";
export type GateReason = "consent_active" | "consent_withdrawn";

export interface GateDecisionRecord {
  decisionId: string;
  consentId: string;
  apiKeyId: string;
  decision: GateDecision;
  reason: GateReason;
  decidedAt: number;
}

/**
 * Decides and logs; undefined when the organisation has no such consent (404 to the caller). With
 * `record: false` (the organisation switched decision recording off) it only decides, and the
 * answer has no decisionId.
 */
export async function verifyConsent(
  db: Queryable,
  input: { organizationId: string; consentId: string; apiKeyId: string; record: boolean },
  now: number,
): Promise<(Omit<GateDecisionRecord, "decisionId"> & { decisionId?: string }) | undefined> {
  if (!input.record) {
    const [consent] = await db.query<{ withdrawn_at: number | null }>(
      "SELECT withdrawn_at FROM consents WHERE organization_id = $1 AND consent_id = $2",
      [input.organizationId, input.consentId],
    );
    if (!consent) return undefined;
    const active = consent.withdrawn_at === null;
    return {
      consentId: input.consentId,
      apiKeyId: input.apiKeyId,
      decision: active ? "allow" : "deny",
      reason: active ? "consent_active" : "consent_withdrawn",
      decidedAt: now,
    };
  }
  const decisionId = newId("gdc");
  const rows = await db.query<{ decision: GateDecision; reason: GateReason }>(
    `INSERT INTO gate_decisions (organization_id, decision_id, consent_id, api_key_id, decision, reason, decided_at)
     SELECT c.organization_id, $3, c.consent_id, $4,
            CASE WHEN c.withdrawn_at IS NULL THEN 'allow' ELSE 'deny' END,
            CASE WHEN c.withdrawn_at IS NULL THEN 'consent_active' ELSE 'consent_withdrawn' END,
            $5
       FROM consents c
      WHERE c.organization_id = $1 AND c.consent_id = $2
     RETURNING decision, reason`,
    [input.organizationId, input.consentId, decisionId, input.apiKeyId, now],
  );
  const row = rows[0];
  if (!row) return undefined;
  return { decisionId, consentId: input.consentId, apiKeyId: input.apiKeyId, ...row, decidedAt: now };
}

export const DEFAULT_DECISION_LIMIT = 50;
export const MAX_DECISION_LIMIT = 200;

/** The newest decisions of the organisation, newest first. */
export async function listDecisions(
  db: Queryable,
  organizationId: string,
  limit: number,
): Promise<GateDecisionRecord[]> {
  const rows = await db.query<{
    decision_id: string;
    consent_id: string;
    api_key_id: string;
    decision: GateDecision;
    reason: GateReason;
    decided_at: number;
  }>(
    `SELECT decision_id, consent_id, api_key_id, decision, reason, decided_at FROM gate_decisions
      WHERE organization_id = $1 ORDER BY decided_at DESC, decision_id DESC LIMIT $2`,
    [organizationId, Math.min(limit, MAX_DECISION_LIMIT)],
  );
  return rows.map((r) => ({
    decisionId: r.decision_id,
    consentId: r.consent_id,
    apiKeyId: r.api_key_id,
    decision: r.decision,
    reason: r.reason,
    decidedAt: r.decided_at,
  }));
}

export interface BypassAlert {
  consentId: string;
  denyCount: number;
  firstDeniedAt: number;
  lastDeniedAt: number;
}

/**
 * Consents denied at least `denyThreshold` times within the last `windowMs` (inclusive of now),
 * most recently denied first. Derived from the decision log; stores nothing.
 */
export async function listBypassAlerts(
  db: Queryable,
  organizationId: string,
  settings: { windowMs: number; denyThreshold: number },
  now: number,
): Promise<BypassAlert[]> {
  const rows = await db.query<{ consent_id: string; deny_count: number; first_at: number; last_at: number }>(
    `SELECT consent_id, count(*)::int AS deny_count, min(decided_at) AS first_at, max(decided_at) AS last_at
       FROM gate_decisions
      WHERE organization_id = $1 AND decision = 'deny' AND decided_at > $2 AND decided_at <= $3
      GROUP BY consent_id
     HAVING count(*) >= $4
      ORDER BY max(decided_at) DESC, consent_id`,
    [organizationId, now - settings.windowMs, now, settings.denyThreshold],
  );
  return rows.map((r) => ({
    consentId: r.consent_id,
    denyCount: r.deny_count,
    firstDeniedAt: r.first_at,
    lastDeniedAt: r.last_at,
  }));
}
