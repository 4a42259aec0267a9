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
  /** Set when the decision was logged. */
  decisionId: string | undefined;
}

/**
 * The group statement, prepared by name so that each connection (each session, on PGlite) parses
 * and plans it once. Inputs, one list element per verification, each organisation's verifications
 * contiguous: $1 organization_id, $2 consent_id, $3 decision_id, $4 api_key_id; $5 the group's
 * decided_at; and one element per run of verifications to log (an organisation that records
 * decisions): $6 its organization_id, $7 and $8 its first and last position (1-based). Each
 * consent is read by primary key within its caller's organisation; each run becomes one row of
 * gate_decision_groups. Output: one row, `answers`, a boolean array in input order: true (allow),
 * false (deny), null (no such consent in that organisation: 404, not logged).
 *
 * The id lists go in as comma-separated text, split by `string_to_array`. Ids are contract `Id`s
 * (letters, digits and one `_`, never a comma): `verifyConsents` answers 404 for a consent id with
 * a comma and `idList` refuses any other. Array parameters cost more on both sides: node-postgres
 * quotes and escapes every element into an array literal, and the server parses it back with its
 * general array input. Measured on PGlite, a group of 48 cost 506–630 µs with lists against
 * 583–893 with arrays (a JSON document of records, earlier, cost 30% more than arrays); at 64
 * connections the gate gained 7% on PGlite and 16% on PostgreSQL. A run is logged as slices of
 * the lists, so nothing is built per decision. A run holding a consent that was not found is not
 * logged by this statement (a 404 is not a decision, so the slices would be wrong):
 * `verifyConsents` logs it, without the 404s, by a second statement before answering its
 * callers. That is the rare case; a second branch in this statement to rebuild such runs cost
 * every group 35–40 µs on PGlite, used or not.
 *
 * Each list is split through a scalar subquery, `unnest((SELECT string_to_array($1, ',')))`, so
 * that the statement keeps one generic plan. Given the bare parameter, a custom plan (made with
 * the values) sees the list's real length while the generic plan assumes 10 elements; for small
 * groups the custom plan then always looks cheaper, and the server re-plans the statement on every
 * execution (PostgreSQL's plan cache compares the two). Through the subquery both see the same
 * estimate and the generic plan is kept after the first five executions. Measured on PGlite, per
 * group of 1: 210–230 µs against 500–540 re-planned; groups of 12 and 40 were not re-planned and
 * cost the same.
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
    SELECT i.ord,
           (SELECT withdrawn_at IS NULL FROM consents
             WHERE organization_id = i.o AND consent_id = i.c LIMIT 1) AS allowed
      FROM unnest((SELECT string_to_array($1, ',')), (SELECT string_to_array($2, ','))) WITH ORDINALITY AS i (o, c, ord)
  ), answers AS (
    SELECT array_agg(allowed ORDER BY ord) AS allowed FROM found
  ), runs AS (
    SELECT r.o, r.lo, r.hi, a.allowed[r.lo:r.hi] AS allowed
      FROM answers a, unnest((SELECT string_to_array($6, ',')), (SELECT $7::int[]), (SELECT $8::int[])) AS r (o, lo, hi)
  ), logged AS (
    INSERT INTO gate_decision_groups
      (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
    SELECT o, d[lo], $5::bigint, hi - lo + 1, d[lo:hi], c[lo:hi], k[lo:hi], allowed
      FROM runs, (SELECT string_to_array($3, ',') AS d, string_to_array($2, ',') AS c,
                         string_to_array($4, ',') AS k) AS lists
     WHERE array_position(allowed, NULL) IS NULL
  )
  SELECT allowed AS answers FROM answers`;

/** One organisation's decisions, logged as one row of gate_decision_groups. */
export const LOG_DECISION_RUN_SQL = `
  INSERT INTO gate_decision_groups
    (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`;

/**
 * Decides and logs a group of verifications, all with the decision time `decidedAt`: one
 * statement (and so one transaction), and a second one only when a run to log holds a consent
 * that was not found. Each consent is read by primary key within its caller's organisation.
 * Answers are in input order; undefined where the organisation has no such consent (404 to that
 * caller, nothing logged). When this resolves, every logged decision has committed.
 */
export async function verifyConsents(
  db: Queryable,
  inputs: readonly VerifyInput[],
  decidedAt: number,
): Promise<(VerifyOutcome | undefined)[]> {
  // Each organisation's verifications contiguous (arrival order within it), so that each run to
  // log is one slice of the arrays. A group usually holds one organisation: nothing moves.
  const order = inputs.map((_, index) => index);
  if (inputs.some((input) => input.organizationId !== inputs[0]?.organizationId)) {
    order.sort((a, b) => {
      const [x, y] = [(inputs[a] as VerifyInput).organizationId, (inputs[b] as VerifyInput).organizationId];
      return x < y ? -1 : x > y ? 1 : a - b;
    });
  }
  const sorted = order.map((index) => inputs[index] as VerifyInput);
  const decisionIds = sorted.map(() => newId("gdc"));
  const runs = { organizationIds: [] as string[], first: [] as number[], last: [] as number[] };
  sorted.forEach((input, position) => {
    if (!input.record) return;
    const previous = position > 0 ? sorted[position - 1] : undefined;
    if (previous?.record && previous.organizationId === input.organizationId) {
      runs.last[runs.last.length - 1] = position + 1;
    } else {
      runs.organizationIds.push(input.organizationId);
      runs.first.push(position + 1);
      runs.last.push(position + 1);
    }
  });
  // A comma cannot be in an id, so no consent has one: such an id is sent as "" (which matches no
  // consent either) and its caller gets a 404, without shifting the rest of the list.
  const consentIds = sorted.map((input) => (input.consentId.includes(",") ? "" : input.consentId));
  const apiKeyIds = sorted.map((input) => input.apiKeyId);
  const [result] = await db.query<{ answers: (boolean | null)[] | null }>(
    RECORD_DECISIONS_SQL,
    [
      idList(sorted.map((input) => input.organizationId)),
      idList(consentIds),
      idList(decisionIds),
      idList(apiKeyIds),
      decidedAt,
      idList(runs.organizationIds),
      runs.first,
      runs.last,
    ],
    { preparedAs: "gate_record_decision_groups" },
  );
  const answers = result?.answers ?? [];
  // The statement left out the runs that hold a 404; each is logged here without its 404s.
  if (answers.includes(null)) {
    for (const [run, organizationId] of runs.organizationIds.entries()) {
      const indexes = range(runs.first[run] as number, runs.last[run] as number).map(
        (position) => position - 1,
      );
      const found = indexes.filter((index) => answers[index] != null);
      if (found.length === indexes.length || found.length === 0) continue;
      const pick = <T>(values: readonly T[]) => found.map((index) => values[index] as T);
      await db.query(
        LOG_DECISION_RUN_SQL,
        [
          organizationId,
          decisionIds[found[0] as number],
          decidedAt,
          found.length,
          pick(decisionIds),
          pick(consentIds),
          pick(apiKeyIds),
          pick(answers),
        ],
        { preparedAs: "gate_log_decision_run" },
      );
    }
  }
  const outcomes: (VerifyOutcome | undefined)[] = inputs.map(() => undefined);
  sorted.forEach((input, position) => {
    const allowed = answers[position];
    if (allowed === null || allowed === undefined) return;
    // Literals of one shape, not a spread plus a key: adding a key to a spread copy goes through
    // V8's slow path every time (about 4 000 instructions per decision by callgrind).
    outcomes[order[position] as number] = {
      decision: allowed ? "allow" : "deny",
      reason: allowed ? "consent_active" : "consent_withdrawn",
      decisionId: input.record ? decisionIds[position] : undefined,
    };
  });
  return outcomes;
}

/**
 * Ids as the group statement's comma-separated list. None of these holds a comma (the service's
 * own ids are contract `Id`s, and consent ids with one were replaced above); one that did would
 * shift every later element and misfile decisions, hence the check.
 */
function idList(ids: readonly string[]): string {
  for (const id of ids) if (id.includes(",")) throw new Error(`Not an id: ${JSON.stringify(id)}`);
  return ids.join(",");
}

/** first, first + 1, …, last. */
const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

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
