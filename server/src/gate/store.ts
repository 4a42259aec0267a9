// The Consent Gate's table: gate_decision_groups, the decision log, one row per organisation per
// group-committed statement holding that group's decisions as parallel arrays (decision_ids,
// consent_ids, api_key_ids, allowed); the view gate_decisions shows it a row per decision, for
// reading by hand. Only this module reads or writes them; every statement filters by the
// caller's organization_id.
import type { Queryable } from "../db/database.js";
import { execute, first, qb, rows, sql } from "../db/query.js";
import { consentStandsSql } from "../consent/store.js";

/** One logged decision, as stored. */
export interface StoredDecision {
  decisionId: string;
  consentId: string;
  apiKeyId: string;
  allowed: boolean;
  decidedAt: number;
}

// A decision group unnested: one row per decision, named d.
const unnestDecisions = sql<{
  decision_id: string;
  consent_id: string;
  api_key_id: string;
  allowed: boolean;
}>`unnest(g.decision_ids, g.consent_ids, g.api_key_ids, g.allowed)`.as<"d">(
  sql`d (decision_id, consent_id, api_key_id, allowed)`,
);

// ---------------------------------------------------------------------------------------------
// The group statement (verify's hot path)

/**
 * The group statement, hand-written and prepared by name: it runs for every group, so each
 * connection (each session, on PGlite) parses and plans it once. It reads each consent through
 * the consent store's lookup expression and logs the decisions here, in one round trip: the
 * consent domain owns that expression's text, the gate owns the rest. Inputs, one list element
 * per verification, each organisation's verifications contiguous: $1 organization_id,
 * $2 consent_id, $3 decision_id, $4 api_key_id; $5 the group's decided_at; and one element per
 * run of verifications to log (an organisation that records decisions): $6 its organization_id,
 * $7 and $8 its first and last position (1-based). Each run becomes one row of
 * gate_decision_groups. Output: one row, `answers`, a boolean array in input order: true (allow),
 * false (deny), null (no such consent in that organisation: 404, not logged). Figures for each
 * choice below, and the alternatives tried: bench/README.md.
 *
 * - The id lists go in as comma-separated text split by `string_to_array`, not as array
 *   parameters, which node-postgres quotes element by element and the server parses back with its
 *   general array input. Ids are contract `Id`s (letters, digits and one `_`, never a comma): the
 *   gate answers 404 for a consent id with a comma and `idList` refuses any other.
 * - A run is logged as slices of the lists, so nothing is built per decision. A run holding a
 *   consent that was not found is not logged here (a 404 is not a decision, so the slices would
 *   be wrong): the caller logs it, without the 404s, with `logDecisionRun` before answering, so
 *   only that rare case pays for it, not every group.
 * - Each list is split through a scalar subquery, `unnest((SELECT string_to_array($1, ',')))`, so
 *   that the statement keeps one generic plan. Given the bare parameter, a custom plan (made with
 *   the values) sees the list's real length while the generic plan assumes 10 elements; for small
 *   groups the custom plan then always looks cheaper, and PostgreSQL's plan cache re-plans the
 *   statement on every execution. Through the subquery both see the same estimate.
 * - The consent lookup is a scalar subquery with `LIMIT 1` (one primary-key probe per
 *   verification), not a join: for a join the planner, expecting 100 input rows, hashes the whole
 *   consents table until it holds tens of thousands of rows, a sequential scan for every group
 *   however small, kept until the session re-plans (after ANALYZE: autovacuum's on a server, the
 *   embedded statistics job's on PGlite, db/embedded-statistics.ts).
 */
export const RECORD_DECISIONS_SQL = `
  WITH found AS (
    SELECT i.ord, ${consentStandsSql("i.o", "i.c")} AS allowed
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

/** A group of verifications as the group statement takes them (see RECORD_DECISIONS_SQL). */
export interface DecisionGroup {
  organizationIds: readonly string[];
  consentIds: readonly string[];
  decisionIds: readonly string[];
  apiKeyIds: readonly string[];
  decidedAt: number;
  /** The runs to log: each organisation's and its first and last position (1-based). */
  runs: { organizationIds: readonly string[]; first: readonly number[]; last: readonly number[] };
}

/**
 * Reads the group's consents and logs its runs (those without a 404) in one statement. Answers in
 * input order: true (allow), false (deny), null (no such consent in that organisation).
 */
export async function decideAndLogGroup(db: Queryable, group: DecisionGroup): Promise<(boolean | null)[]> {
  const [result] = await db.query<{ answers: (boolean | null)[] | null }>(
    RECORD_DECISIONS_SQL,
    [
      idList(group.organizationIds),
      idList(group.consentIds),
      idList(group.decisionIds),
      idList(group.apiKeyIds),
      group.decidedAt,
      idList(group.runs.organizationIds),
      group.runs.first,
      group.runs.last,
    ],
    { preparedAs: "gate_record_decision_groups" },
  );
  return result?.answers ?? [];
}

/**
 * Ids as the group statement's comma-separated list. None of these holds a comma (the service's
 * own ids are contract `Id`s, and the gate sends a consent id with one as ""); one that did would
 * shift every later element and misfile decisions, hence the check.
 */
function idList(ids: readonly string[]): string {
  for (const id of ids) if (id.includes(",")) throw new Error(`Not an id: ${JSON.stringify(id)}`);
  return ids.join(",");
}

/** Logs one organisation's decisions, decided together, as one row (its group id: the first decision's). */
export async function logDecisionRun(
  db: Queryable,
  organizationId: string,
  run: {
    decidedAt: number;
    decisionIds: string[];
    consentIds: string[];
    apiKeyIds: string[];
    allowed: boolean[];
  },
): Promise<void> {
  await execute(
    db,
    qb.insertInto("gate_decision_groups").values({
      organization_id: organizationId,
      group_id: run.decisionIds[0]!,
      decided_at: run.decidedAt,
      decision_count: run.decisionIds.length,
      decision_ids: run.decisionIds,
      consent_ids: run.consentIds,
      api_key_ids: run.apiKeyIds,
      allowed: run.allowed,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// Reading the log

/**
 * The newest `limit` decisions of the organisation, newest first (by decided_at, then decision
 * id). Each group's newest decision is at least as new as every decision of an older group, so
 * the newest N decisions all lie in the groups down to the first one at which the groups' running
 * count reaches N (and any group decided at that same instant): `head` finds that cutoff from the
 * primary key and decision_count alone, and only the groups from it on are unnested.
 *
 * With `before` (a page's last decision: its decided_at and id) it reads the decisions older than
 * that one. `head` then counts only the groups decided strictly earlier, whose decisions all
 * qualify; the groups at `before`'s own instant are read as well (the cutoff never passes it), and
 * the tuple comparison keeps just their older decisions.
 */
export async function newestDecisions(
  db: Queryable,
  organizationId: string,
  limit: number,
  before?: readonly [number, string],
): Promise<StoredDecision[]> {
  const found = await rows(
    db,
    qb
      .with("head", (w) =>
        w
          .selectFrom("gate_decision_groups")
          .select((eb) => [
            "decided_at",
            eb.fn
              .sum<number>("decision_count")
              .over((over) => over.orderBy("decided_at", "desc").orderBy("group_id", "desc"))
              .as("running"),
          ])
          .where("organization_id", "=", organizationId)
          .$if(before !== undefined, (q) => q.where("decided_at", "<", before![0]))
          .orderBy("decided_at", "desc")
          .orderBy("group_id", "desc")
          .limit(limit),
      )
      .with("cutoff", (w) =>
        w.selectFrom("head").select(
          // No older group at all: only `before`'s own instant is left (without a cursor, nothing).
          sql<number>`coalesce(max(decided_at) FILTER (WHERE running >= ${limit}), min(decided_at), ${before?.[0] ?? Number.MAX_SAFE_INTEGER}::bigint)`.as(
            "decided_at",
          ),
        ),
      )
      .selectFrom("gate_decision_groups as g")
      .crossJoinLateral(unnestDecisions)
      .select(["d.decision_id", "d.consent_id", "d.api_key_id", "d.allowed", "g.decided_at"])
      .where("g.organization_id", "=", organizationId)
      .where("g.decided_at", ">=", (eb) => eb.selectFrom("cutoff").select("cutoff.decided_at"))
      .$if(before !== undefined, (q) =>
        q.where((eb) =>
          eb(eb.refTuple("g.decided_at", "d.decision_id"), "<", eb.tuple(before![0], before![1])),
        ),
      )
      .orderBy("g.decided_at", "desc")
      .orderBy("d.decision_id", "desc")
      .limit(limit),
  );
  return found.map((r) => ({
    decisionId: r.decision_id,
    consentId: r.consent_id,
    apiKeyId: r.api_key_id,
    allowed: r.allowed,
    decidedAt: r.decided_at,
  }));
}

/**
 * Consents denied at least `minDenies` times with decided_at in (`after`, `until`], most recently
 * denied first. Reads only the groups holding a denial (the partial index
 * gate_decision_groups_with_denials).
 */
export async function repeatedDenials(
  db: Queryable,
  organizationId: string,
  window: { after: number; until: number; minDenies: number },
): Promise<{ consentId: string; denyCount: number; firstAt: number; lastAt: number }[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("gate_decision_groups as g")
      .crossJoinLateral(unnestDecisions)
      .select([
        "d.consent_id",
        sql<number>`count(*)::int`.as("deny_count"),
        sql<number>`min(g.decided_at)`.as("first_at"),
        sql<number>`max(g.decided_at)`.as("last_at"),
      ])
      .where("g.organization_id", "=", organizationId)
      .where(sql<boolean>`false = ANY (g.allowed)`)
      .where("g.decided_at", ">", window.after)
      .where("g.decided_at", "<=", window.until)
      .where(sql<boolean>`NOT d.allowed`)
      .groupBy("d.consent_id")
      .having(sql<boolean>`count(*) >= ${window.minDenies}`)
      .orderBy(sql`max(g.decided_at)`, "desc")
      .orderBy("d.consent_id"),
  );
  return found.map((r) => ({
    consentId: r.consent_id,
    denyCount: r.deny_count,
    firstAt: r.first_at,
    lastAt: r.last_at,
  }));
}

/**
 * Per consent: how often it was checked at the gate, the latest check and its decision. Served by
 * the GIN index gate_decision_groups_by_consent, so it reads only the groups that checked one of
 * these consents, not the organisation's whole log.
 */
export function gateChecksQuery(organizationId: string, consentIds: readonly string[]) {
  return qb
    .selectFrom("gate_decision_groups as g")
    .crossJoinLateral(unnestDecisions)
    .select([
      "d.consent_id",
      sql<number>`count(*)::int`.as("checks"),
      sql<number>`max(g.decided_at)`.as("last_checked_at"),
      sql<"allow" | "deny">`(array_agg(CASE WHEN d.allowed THEN 'allow' ELSE 'deny' END
                            ORDER BY g.decided_at DESC, d.decision_id DESC))[1]`.as("last_decision"),
    ])
    .where("g.organization_id", "=", organizationId)
    .where(sql<boolean>`g.consent_ids && ${consentIds}::text[]`)
    .where(sql<boolean>`d.consent_id = ANY (${consentIds}::text[])`)
    .groupBy("d.consent_id");
}

export interface GateChecks {
  checks: number;
  lastCheckedAt: number;
  lastDecision: "allow" | "deny";
}

/** How often each of these consents was checked at the gate, and the latest check (see gateChecksQuery). */
export async function gateChecksOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<Map<string, GateChecks>> {
  if (consentIds.length === 0) return new Map();
  const found = await rows(db, gateChecksQuery(organizationId, consentIds));
  return new Map(
    found.map((r) => [
      r.consent_id,
      { checks: r.checks, lastCheckedAt: r.last_checked_at, lastDecision: r.last_decision },
    ]),
  );
}

/**
 * How many decisions allowed and denied with decided_at in [`from`, `until`]. Counted per group
 * (its decision_count, and the false entries of `allowed`), so no group is unnested; the groups
 * are one range of the primary key (organization_id, decided_at, group_id).
 */
export const decisionCountsQuery = (organizationId: string, window: { from: number; until: number }) =>
  qb
    .selectFrom("gate_decision_groups")
    .select([
      sql<number>`coalesce(sum(decision_count), 0)::bigint`.as("total"),
      sql<number>`coalesce(sum(cardinality(array_positions(allowed, false))), 0)::bigint`.as("denied"),
    ])
    .where("organization_id", "=", organizationId)
    .where("decided_at", ">=", window.from)
    .where("decided_at", "<=", window.until);

/** decisionCountsQuery's counts. */
export async function decisionCounts(
  db: Queryable,
  organizationId: string,
  window: { from: number; until: number },
): Promise<{ allow: number; deny: number }> {
  const row = await first(db, decisionCountsQuery(organizationId, window));
  // An aggregate without GROUP BY always answers one row.
  return { allow: row!.total - row!.denied, deny: row!.denied };
}
