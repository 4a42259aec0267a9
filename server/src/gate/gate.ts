// The Consent Gate: may processing that depends on a consent go ahead? The answer comes from the
// consent's own state (withdrawn_at), and every answer is durably logged before it is returned.
// Hot path, benchmarked: verifications are grouped (group-commit.ts) and each group is one
// statement that reads the consents by primary key and inserts their decision rows (a
// data-modifying CTE): one round trip and one commit for many verifications.
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

export interface VerifyInput {
  organizationId: string;
  consentId: string;
  apiKeyId: string;
  /** False while the organisation has switched decision recording off: decide, log nothing. */
  record: boolean;
  decidedAt: number;
}

export interface VerifyOutcome {
  decision: GateDecision;
  reason: GateReason;
  /** Present when the decision was logged. */
  decisionId?: string;
}

/**
 * The group statement, prepared by name so that each connection (each session, on PGlite) parses
 * and plans it once. Input $1: a JSON array of {o: organization_id, c: consent_id, d: decision_id,
 * k: api_key_id, r: record the decision?, t: decided_at}. Each consent is read by primary key
 * within its caller's organisation; a decision row is inserted for each one found whose caller
 * records decisions. Output: one row, `answers`, a JSON array of [decision_id, active] for the
 * consents found ([] when none is).
 *
 * The consent lookup is a LATERAL subquery with LIMIT 1 (the key is unique, so the limit changes
 * nothing but the plan) rather than a join. For a join the planner, expecting 100 input rows,
 * hashes the whole consents table until it holds tens of thousands of rows: a sequential scan of
 * the table for every group, however few verifications the group holds, and the plan is kept
 * until something makes the session re-plan (ANALYZE on a server; once a minute on PGlite, see
 * db/database.ts). Measured on PGlite with 20 000 consents, 40 verifications per group: 104–116 µs
 * per decision with the join, 30–35 with the lookup.
 */
export const RECORD_DECISIONS_SQL = `
  WITH input AS (
    SELECT * FROM json_to_recordset($1::json) AS i (o text, c text, d text, k text, r boolean, t bigint)
  ), found AS (
    SELECT i.*, c.active
      FROM input i
      CROSS JOIN LATERAL (
        SELECT withdrawn_at IS NULL AS active FROM consents
         WHERE organization_id = i.o AND consent_id = i.c
         LIMIT 1
      ) c
  ), logged AS (
    INSERT INTO gate_decisions (organization_id, decision_id, consent_id, api_key_id, decision, reason, decided_at)
    SELECT o, d, c, k,
           CASE WHEN active THEN 'allow' ELSE 'deny' END,
           CASE WHEN active THEN 'consent_active' ELSE 'consent_withdrawn' END,
           t
      FROM found WHERE r
  )
  SELECT coalesce(json_agg(json_build_array(d, active)), '[]'::json) AS answers FROM found`;

/**
 * Decides and logs a batch of verifications in one statement (and so one transaction): each
 * consent is read by primary key within its caller's organisation, and a decision row is inserted
 * for each one found whose organisation records decisions. Answers are in input order; undefined
 * where the organisation has no such consent (404 to that caller, nothing logged). When this
 * resolves, every logged decision has committed.
 */
export async function verifyConsents(
  db: Queryable,
  inputs: readonly VerifyInput[],
): Promise<(VerifyOutcome | undefined)[]> {
  const decisionIds = inputs.map(() => newId("gdc"));
  // The group travels as one JSON document and the answers come back as one: the driver then does
  // two native JSON calls instead of building six array literals and one row object per item.
  const group = inputs.map((input, index) => ({
    o: input.organizationId,
    c: input.consentId,
    d: decisionIds[index],
    k: input.apiKeyId,
    r: input.record,
    t: input.decidedAt,
  }));
  const [result] = await db.query<{ answers: [string, boolean][] }>(
    RECORD_DECISIONS_SQL,
    [JSON.stringify(group)],
    { preparedAs: "gate_record_decisions" },
  );
  // [decisionId, active] pairs for the consents found.
  const activeByDecision = new Map(result?.answers ?? []);
  return inputs.map((input, index): VerifyOutcome | undefined => {
    const decisionId = decisionIds[index] as string;
    const active = activeByDecision.get(decisionId);
    if (active === undefined) return undefined;
    const outcome: VerifyOutcome = active
      ? { decision: "allow", reason: "consent_active" }
      : { decision: "deny", reason: "consent_withdrawn" };
    return input.record ? { ...outcome, decisionId } : outcome;
  });
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
