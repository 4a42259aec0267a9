// The Consent Gate: may processing that depends on a consent go ahead? The answer comes from the
// consent's own state (withdrawn_at), and every answer is durably logged before it is returned.
// Hot path, benchmarked: verifications are grouped (group-commit.ts) and each group is one
// statement that reads the consents by primary key and logs their decisions (a data-modifying
// CTE): one round trip and one commit for many verifications. The log keeps one row per
// organisation per group (gate_decision_groups, migration 0044), its decisions as arrays.
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
}

export interface VerifyOutcome {
  decision: GateDecision;
  reason: GateReason;
  /** Present when the decision was logged. */
  decisionId?: string;
}

/**
 * The group statement, prepared by name so that each connection (each session, on PGlite) parses
 * and plans it once. Inputs, one array element per verification: $1 organization_id, $2
 * consent_id, $3 decision_id, $4 api_key_id, $5 record the decision?; and $6, the group's
 * decided_at. Each consent is read by primary key within its caller's organisation; the decisions
 * of each organisation that records them become one row of gate_decision_groups. Output: one row,
 * `answers`, a boolean array in input order: true (allow), false (deny), null (no such consent
 * in that organisation: 404, not logged).
 *
 * The arrays go in as they are (PostgreSQL array parameters): parsing a JSON document of 40
 * records cost 30% more on PGlite. The logged arrays are aggregated without ORDER BY: aggregates
 * of one group see its rows in the same sequence, so the arrays stay parallel, which is all that
 * their order has to be.
 *
 * The consent lookup is a scalar subquery (one primary-key probe per verification) rather than a
 * join. For a join the planner, expecting 100 input rows, hashes the whole consents table until it
 * holds tens of thousands of rows: a sequential scan of the table for every group, however few
 * verifications the group holds, and the plan is kept until something makes the session re-plan
 * (ANALYZE on a server; once a minute on PGlite, see db/database.ts). Measured on PGlite with
 * 20 000 consents, 40 verifications per group: 104–116 µs per decision with the join, 30–35 with
 * the lookup.
 */
export const RECORD_DECISIONS_SQL = `
  WITH found AS (
    SELECT i.ord, i.o, i.c, i.d, i.k, i.r,
           (SELECT withdrawn_at IS NULL FROM consents
             WHERE organization_id = i.o AND consent_id = i.c LIMIT 1) AS allowed
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::boolean[])
           WITH ORDINALITY AS i (o, c, d, k, r, ord)
  ), logged AS (
    INSERT INTO gate_decision_groups
      (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
    SELECT o, min(d), $6::bigint, count(*), array_agg(d), array_agg(c), array_agg(k), array_agg(allowed)
      FROM found WHERE r AND allowed IS NOT NULL
     GROUP BY o
  )
  SELECT array_agg(allowed ORDER BY ord) AS answers FROM found`;

/**
 * Decides and logs a group of verifications in one statement (and so one transaction), all with
 * the decision time `decidedAt`. Each consent is read by primary key within its caller's
 * organisation. Answers are in input order; undefined where the organisation has no such consent
 * (404 to that caller, nothing logged). When this resolves, every logged decision has committed.
 */
export async function verifyConsents(
  db: Queryable,
  inputs: readonly VerifyInput[],
  decidedAt: number,
): Promise<(VerifyOutcome | undefined)[]> {
  const decisionIds = inputs.map(() => newId("gdc"));
  const [result] = await db.query<{ answers: (boolean | null)[] | null }>(
    RECORD_DECISIONS_SQL,
    [
      inputs.map((input) => input.organizationId),
      inputs.map((input) => input.consentId),
      decisionIds,
      inputs.map((input) => input.apiKeyId),
      inputs.map((input) => input.record),
      decidedAt,
    ],
    { preparedAs: "gate_record_decision_groups" },
  );
  const answers = result?.answers ?? [];
  return inputs.map((input, index): VerifyOutcome | undefined => {
    const allowed = answers[index];
    if (allowed === null || allowed === undefined) return undefined;
    const outcome: VerifyOutcome = allowed
      ? { decision: "allow", reason: "consent_active" }
      : { decision: "deny", reason: "consent_withdrawn" };
    return input.record ? { ...outcome, decisionId: decisionIds[index] as string } : outcome;
  });
}

export const DEFAULT_DECISION_LIMIT = 50;
export const MAX_DECISION_LIMIT = 200;

/**
 * The newest decisions of the organisation, newest first (by decidedAt, then decisionId). Each
 * group's newest decision is at least as new as every decision of an older group, so the newest N
 * decisions all lie in the groups down to the first one at which the groups' running count
 * reaches N (and any group decided at that same instant): `head` finds that cutoff from the
 * primary key and decision_count alone, and only the groups from it on are unnested.
 */
export const LIST_DECISIONS_SQL = `
  WITH head AS (
    SELECT decided_at, sum(decision_count) OVER (ORDER BY decided_at DESC, group_id DESC) AS running
      FROM gate_decision_groups WHERE organization_id = $1
     ORDER BY decided_at DESC, group_id DESC
     LIMIT $2
  ), cutoff AS (
    SELECT coalesce(max(decided_at) FILTER (WHERE running >= $2), min(decided_at)) AS decided_at FROM head
  )
  SELECT d.decision_id, d.consent_id, d.api_key_id, d.allowed, g.decided_at
    FROM gate_decision_groups g
   CROSS JOIN LATERAL unnest(g.decision_ids, g.consent_ids, g.api_key_ids, g.allowed)
         AS d (decision_id, consent_id, api_key_id, allowed)
   WHERE g.organization_id = $1 AND g.decided_at >= (SELECT decided_at FROM cutoff)
   ORDER BY g.decided_at DESC, d.decision_id DESC
   LIMIT $2`;

/** The newest decisions of the organisation, newest first; at most MAX_DECISION_LIMIT. */
export async function listDecisions(
  db: Queryable,
  organizationId: string,
  limit: number,
): Promise<GateDecisionRecord[]> {
  const rows = await db.query<{
    decision_id: string;
    consent_id: string;
    api_key_id: string;
    allowed: boolean;
    decided_at: number;
  }>(LIST_DECISIONS_SQL, [organizationId, Math.min(limit, MAX_DECISION_LIMIT)]);
  return rows.map((r) => ({
    decisionId: r.decision_id,
    consentId: r.consent_id,
    apiKeyId: r.api_key_id,
    ...(r.allowed
      ? { decision: "allow" as const, reason: "consent_active" as const }
      : { decision: "deny" as const, reason: "consent_withdrawn" as const }),
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
    // Reads only the groups holding a denial (the partial index gate_decision_groups_with_denials).
    `SELECT d.consent_id, count(*)::int AS deny_count, min(g.decided_at) AS first_at, max(g.decided_at) AS last_at
       FROM gate_decision_groups g
      CROSS JOIN LATERAL unnest(g.consent_ids, g.allowed) AS d (consent_id, allowed)
      WHERE g.organization_id = $1 AND false = ANY (g.allowed) AND g.decided_at > $2 AND g.decided_at <= $3
        AND NOT d.allowed
      GROUP BY d.consent_id
     HAVING count(*) >= $4
      ORDER BY max(g.decided_at) DESC, d.consent_id`,
    [organizationId, now - settings.windowMs, now, settings.denyThreshold],
  );
  return rows.map((r) => ({
    consentId: r.consent_id,
    denyCount: r.deny_count,
    firstDeniedAt: r.first_at,
    lastDeniedAt: r.last_at,
  }));
}
