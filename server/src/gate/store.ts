// The Consent Gate's tables (migration 0107): gate_decision_runs (what verify writes, a row per run
// of one organisation's and one key's decisions in one group), gate_decision_blocks (where
// compaction moves runs, a row per organisation, key and 10-second bucket) and gate_consent_refs
// (the consents the blocks name by integer); the view gate_decisions shows both tiers a row per
// decision. Only this module reads or writes them; every statement filters by the caller's
// organization_id. Statements reading both tiers are hand-written: they unnest arrays laterally,
// which the query builder cannot say more clearly than the SQL does.
import { randomBytes } from "node:crypto";
import type { Database, Queryable } from "../db/database.js";
import { first, qb, sql } from "../db/query.js";
import { consentStandsSql } from "../consent/store.js";

/** One logged decision, as stored. */
export interface StoredDecision {
  decisionId: string;
  consentId: string;
  apiKeyId: string;
  allowed: boolean;
  decidedAt: number;
}

/** A block's time span: its decisions lie in [bucket_start, bucket_start + BUCKET_MS). */
export const BUCKET_MS = 10_000;
/** At most this many decisions start a new block within a bucket (a run, ≤ 500, may top it up). */
const BLOCK_DECISIONS = 32_000;

// ---------------------------------------------------------------------------------------------
// Decision ids

/**
 * A run's nonce: 63 random bits (a non-negative BIGINT), as 16 hex digits and as the decimal text
 * the group statement casts to BIGINT.
 */
export function newRunNonce(): { hex: string; decimal: string } {
  const bytes = randomBytes(8);
  bytes[0] = (bytes[0] as number) & 0x7f;
  const hex = bytes.toString("hex");
  return { hex, decimal: BigInt(`0x${hex}`).toString() };
}

/**
 * A decision's id, derived rather than stored: its decided_at, its run's nonce and its position in
 * the run (1-based). The same text as the view gate_decisions computes (migration 0107) and as
 * DECISION_ID below; `gate.test.ts` checks that an answered id is the logged one on both tiers.
 */
export function decisionIdOf(decidedAt: number, nonceHex: string, position: number): string {
  return `gdc_${decidedAt.toString(16).padStart(11, "0")}${nonceHex}${position.toString(16).padStart(3, "0")}`;
}

/** DECISION_ID in SQL: `legacy` (an id kept from before 0107) or the derived one. */
const decisionIdSql = (legacy: string, decidedAt: string, nonce: string, position: string) =>
  `coalesce(${legacy}, 'gdc_' || lpad(to_hex(${decidedAt}), 11, '0') || lpad(to_hex(${nonce}), 16, '0')
                 || lpad(to_hex(${position}), 3, '0'))`;

/**
 * A block's decisions, a row each, for a lateral join on the block `b`: decided_at, its run's
 * nonce, run_position (in the run, 1-based), position (in the block, 1-based) and allowed.
 */
const BLOCK_DECISIONS_SQL = `
  SELECT r.decided_at, r.nonce, p.i AS run_position, r.before + p.i AS position,
         dn.position IS NULL AS allowed
    FROM (SELECT b.bucket_start + u.run_offset AS decided_at, u.nonce, u.size,
                 (sum(u.size) OVER (ORDER BY u.k) - u.size)::int AS before
            FROM unnest(b.run_offsets, b.run_sizes, b.run_nonces) WITH ORDINALITY
                 AS u (run_offset, size, nonce, k)) AS r
   CROSS JOIN generate_series(1, r.size::int) AS p (i)
    LEFT JOIN unnest(b.denied_positions) AS dn (position) ON dn.position = r.before + p.i`;

// ---------------------------------------------------------------------------------------------
// The group statement (verify's hot path)

/**
 * The group statement, hand-written and prepared by name: it runs for every group, so each
 * connection (each session, on PGlite) parses and plans it once. It reads each consent through
 * the consent store's lookup expression and logs the decisions here, in one round trip: the
 * consent domain owns that expression's text, the gate owns the rest. Inputs, one list element
 * per verification, each run's verifications contiguous: $1 organization_id, $2 consent_id; one
 * element per run to log (an organisation and API key that record decisions): $3 its
 * organization_id, $4 its nonce, $5 and $6 its first and last position (1-based), $7 its
 * api_key_id; and $8 the group's decided_at. Each run becomes one row of gate_decision_runs.
 * Output: one row, `answers`, a boolean array in input order: true (allow), false (deny), null
 * (no such consent in that organisation: 404, not logged). Figures for each choice below, and the
 * alternatives tried: bench/README.md.
 *
 * - The lists go in as comma-separated text split by `string_to_array`, not as array parameters,
 *   which node-postgres quotes element by element and the server parses back with its general
 *   array input. Ids are contract `Id`s (letters, digits and one `_`, never a comma): the gate
 *   answers 404 for a consent id with a comma and `idList` refuses any other.
 * - A run is logged as a slice of the lists, so nothing is built per decision. A run holding a
 *   consent that was not found is not logged here (a 404 is not a decision, so the slice would be
 *   wrong): the caller logs it, without the 404s, with `logDecisionRun` before answering, so only
 *   that rare case pays for it, not every group.
 * - Decision ids are not sent: each is derived from decided_at, the run's nonce and the position
 *   (decisionIdOf).
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
    SELECT r.o, r.nonce, r.lo, r.hi, r.k, a.allowed[r.lo:r.hi] AS allowed
      FROM answers a,
           unnest((SELECT string_to_array($3, ',')), (SELECT string_to_array($4, ',')),
                  (SELECT $5::int[]), (SELECT $6::int[]), (SELECT string_to_array($7, ',')))
           AS r (o, nonce, lo, hi, k)
  ), logged AS (
    INSERT INTO gate_decision_runs (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed)
    SELECT o, $8::bigint, nonce::bigint, k, c[lo:hi], allowed
      FROM runs, (SELECT string_to_array($2, ',') AS c) AS lists
     WHERE array_position(allowed, NULL) IS NULL
  )
  SELECT allowed AS answers FROM answers`;

/** A group of verifications as the group statement takes them (see RECORD_DECISIONS_SQL). */
export interface DecisionGroup {
  organizationIds: readonly string[];
  consentIds: readonly string[];
  decidedAt: number;
  /** The runs to log: each one's organisation, nonce (decimal), first and last position (1-based) and key. */
  runs: {
    organizationIds: readonly string[];
    nonces: readonly string[];
    first: readonly number[];
    last: readonly number[];
    apiKeyIds: readonly string[];
  };
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
      idList(group.runs.organizationIds),
      group.runs.nonces.join(","),
      group.runs.first,
      group.runs.last,
      idList(group.runs.apiKeyIds),
      group.decidedAt,
    ],
    { preparedAs: "gate_record_decision_runs" },
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

/** Logs one run: one organisation's and key's decisions, decided together, as one row. */
export async function logDecisionRun(
  db: Queryable,
  organizationId: string,
  run: { decidedAt: number; nonce: string; apiKeyId: string; consentIds: string[]; allowed: boolean[] },
): Promise<void> {
  // Hand-written: the nonce is a 63-bit integer, sent as decimal text and cast by the server.
  await db.query(
    `INSERT INTO gate_decision_runs (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed)
     VALUES ($1, $2, $3::bigint, $4, $5, $6)`,
    [organizationId, run.decidedAt, run.nonce, run.apiKeyId, run.consentIds, run.allowed],
  );
}

// ---------------------------------------------------------------------------------------------
// Compaction: runs into blocks

/**
 * Moves up to `maxRuns` runs decided before `decidedBefore` into blocks, in one statement (so in
 * one transaction a decision is in exactly one tier), and names their consents' new references
 * first. Returns how many runs moved, or null when another instance's compaction holds the lock
 * (the pass is skipped: two at once would only split blocks). The lock also makes this the only
 * writer of gate_consent_refs, so "not yet referenced" cannot race.
 *
 * Within a block, runs are in (decided_at, nonce) order and decisions in run order, so a block's
 * positions follow the log's own order (decided_at, then decision id) for derived ids. A block is
 * one organisation, key and bucket; a bucket holding more than BLOCK_DECISIONS decisions (a
 * backlog, or saturation) is cut into several blocks at run boundaries, each under 32 767.
 */
export async function compactDecisions(
  db: Database,
  decidedBefore: number,
  maxRuns: number,
): Promise<number | null> {
  return db.transaction(async (tx) => {
    const [lock] = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1) AS locked", [
      COMPACTION_LOCK_ID,
    ]);
    if (!lock?.locked) return null;
    // Left to itself the planner joins the pass's decisions to their consent references by sorting
    // both on the consent id, the statement's largest cost; hashing them is cheaper on either engine
    // (bench/README.md, "Decision log storage"). For this transaction only.
    await tx.query("SET LOCAL enable_mergejoin = off");
    const [moved] = await tx.query<{ runs: number }>(COMPACT_SQL, [
      decidedBefore,
      maxRuns,
      BUCKET_MS,
      BLOCK_DECISIONS,
    ]);
    return moved?.runs ?? 0;
  });
}

/** pg_try_advisory_xact_lock key of the gate's compaction ("gate-cmp" as ASCII). */
const COMPACTION_LOCK_ID = 0x676174652d636d70n.toString();

const COMPACT_SQL = `
  WITH moved AS (
    DELETE FROM gate_decision_runs
     WHERE (organization_id, decided_at, nonce) IN (
           SELECT organization_id, decided_at, nonce FROM gate_decision_runs
            WHERE decided_at < $1::bigint ORDER BY decided_at LIMIT $2::int)
    RETURNING organization_id, api_key_id, decided_at, nonce, consent_ids, allowed, legacy_decision_ids
  ), runs AS (
    SELECT m.*, m.decided_at - m.decided_at % $3::bigint AS bucket_start,
           cardinality(m.consent_ids) AS size
      FROM moved m
  ), chunked AS (
    SELECT runs.*,
           (sum(size) OVER (PARTITION BY organization_id, api_key_id, bucket_start
                            ORDER BY decided_at, nonce) - size) / $4::int AS chunk
      FROM runs
  ), decisions AS (
    SELECT c.organization_id, c.api_key_id, c.bucket_start, c.chunk, c.decided_at, d.consent_id,
           d.allowed, c.legacy_decision_ids[d.i] AS legacy_id,
           row_number() OVER (PARTITION BY c.organization_id, c.api_key_id, c.bucket_start, c.chunk
                              ORDER BY c.decided_at, c.nonce, d.i) AS position
      FROM chunked c
     CROSS JOIN LATERAL unnest(c.consent_ids, c.allowed) WITH ORDINALITY AS d (consent_id, allowed, i)
  ), new_refs AS (
    INSERT INTO gate_consent_refs (organization_id, consent_id)
    SELECT DISTINCT x.organization_id, x.consent_id FROM decisions x
     WHERE NOT EXISTS (SELECT 1 FROM gate_consent_refs k
                        WHERE k.organization_id = x.organization_id AND k.consent_id = x.consent_id)
    RETURNING organization_id, consent_id, consent_ref
  ), refs AS (
    SELECT k.organization_id, k.consent_id, k.consent_ref FROM gate_consent_refs k
     WHERE (k.organization_id, k.consent_id) IN (SELECT organization_id, consent_id FROM decisions)
    UNION ALL
    SELECT organization_id, consent_id, consent_ref FROM new_refs
  ), block_runs AS (
    SELECT organization_id, api_key_id, bucket_start, chunk,
           (array_agg(nonce ORDER BY decided_at, nonce))[1] AS block_nonce,
           array_agg((decided_at - bucket_start)::smallint ORDER BY decided_at, nonce) AS run_offsets,
           array_agg(size::smallint ORDER BY decided_at, nonce) AS run_sizes,
           array_agg(nonce ORDER BY decided_at, nonce) AS run_nonces
      FROM chunked
     GROUP BY organization_id, api_key_id, bucket_start, chunk
  ), block_decisions AS (
    SELECT x.organization_id, x.api_key_id, x.bucket_start, x.chunk,
           count(*)::int AS decision_count,
           (count(*) FILTER (WHERE NOT x.allowed))::int AS deny_count,
           array_agg(f.consent_ref ORDER BY x.position) AS consent_refs,
           coalesce(array_agg(x.position::smallint ORDER BY x.position) FILTER (WHERE NOT x.allowed),
                    '{}') AS denied_positions,
           coalesce(array_agg((x.decided_at - x.bucket_start)::smallint ORDER BY x.position)
                      FILTER (WHERE NOT x.allowed), '{}') AS denied_offsets,
           CASE WHEN bool_or(x.legacy_id IS NOT NULL)
                THEN array_agg(x.legacy_id ORDER BY x.position) END AS legacy_decision_ids
      FROM decisions x
      JOIN refs f ON f.organization_id = x.organization_id AND f.consent_id = x.consent_id
     GROUP BY x.organization_id, x.api_key_id, x.bucket_start, x.chunk
  ), blocks AS (
    INSERT INTO gate_decision_blocks
      (bucket_start, block_nonce, decision_count, deny_count, organization_id, api_key_id, run_offsets,
       run_sizes, run_nonces, consent_refs, denied_positions, denied_offsets, legacy_decision_ids)
    SELECT r.bucket_start, r.block_nonce, d.decision_count, d.deny_count, r.organization_id,
           r.api_key_id, r.run_offsets, r.run_sizes, r.run_nonces, d.consent_refs, d.denied_positions,
           d.denied_offsets, d.legacy_decision_ids
      FROM block_runs r
      JOIN block_decisions d USING (organization_id, api_key_id, bucket_start, chunk)
  )
  SELECT count(*)::int AS runs FROM moved`;

/**
 * VACUUMs the runs table, so that the space of the runs compaction moved is reused (and the
 * table's empty tail given back) rather than the table growing: PGlite runs no autovacuum, and on
 * a server autovacuum would wait for 20% of the table to be dead. Outside any transaction.
 */
export async function vacuumRuns(db: Database): Promise<void> {
  await db.query("VACUUM gate_decision_runs");
}

// ---------------------------------------------------------------------------------------------
// Reading the log

/**
 * The newest `limit` decisions of the organisation, newest first (by decided_at, then decision
 * id), from both tiers. Each row (a run, or a block) spans [lo, lo + BUCKET_MS) at most: lo is the
 * run's decided_at or the block's bucket_start. `head` takes the newest rows whose decisions all
 * qualify (older than `before`, when given), newest first, until they hold `limit` decisions; the
 * oldest of those, T, bounds the answer from below (the `limit` newest decisions are at least as
 * new as T), so only the rows with lo ≥ T - BUCKET_MS can hold one of them, and only those are
 * unnested. Rows partly newer than `before` are read too (T never passes it), and the tuple
 * comparison keeps just their older decisions.
 */
export async function newestDecisions(
  db: Queryable,
  organizationId: string,
  limit: number,
  before?: readonly [number, string],
): Promise<StoredDecision[]> {
  const found = await db.query<{
    decision_id: string;
    consent_id: string;
    api_key_id: string;
    allowed: boolean;
    decided_at: number;
  }>(
    `WITH candidates AS (
       (SELECT decided_at AS lo, cardinality(consent_ids) AS n FROM gate_decision_runs
         WHERE organization_id = $1 AND decided_at < $2::bigint
         ORDER BY decided_at DESC LIMIT $4::int)
       UNION ALL
       (SELECT bucket_start, decision_count FROM gate_decision_blocks
         WHERE organization_id = $1 AND bucket_start < $2::bigint - $5::bigint + 1
         ORDER BY bucket_start DESC LIMIT $4::int)
     ), head AS (
       SELECT lo, sum(n) OVER (ORDER BY lo DESC ROWS UNBOUNDED PRECEDING) - n AS before_n
         FROM (SELECT lo, n FROM candidates ORDER BY lo DESC LIMIT $4::int) AS newest
     ), cutoff AS (
       SELECT least(coalesce(min(lo) FILTER (WHERE before_n < $4::int), $2::bigint), $2::bigint)
              - $5::bigint + 1 AS lo
         FROM head
     )
     SELECT d.decision_id, d.consent_id, d.api_key_id, d.allowed, d.decided_at
       FROM gate_decisions d
      WHERE d.organization_id = $1
        AND d.stored_at >= (SELECT lo FROM cutoff) AND d.stored_at <= $2::bigint
        AND (d.decided_at, d.decision_id) < ($2::bigint, $3::text)
      ORDER BY d.decided_at DESC, d.decision_id DESC
      LIMIT $4::int`,
    // Without a cursor: every decision is older than (the latest representable time, "").
    [organizationId, before?.[0] ?? Number.MAX_SAFE_INTEGER, before?.[1] ?? "", limit, BUCKET_MS],
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
 * denied first. Reads the runs holding a denial and, of the blocks, only those holding one (the
 * partial index gate_decision_blocks_with_denials) and in them only their denials.
 */
export async function repeatedDenials(
  db: Queryable,
  organizationId: string,
  window: { after: number; until: number; minDenies: number },
): Promise<{ consentId: string; denyCount: number; firstAt: number; lastAt: number }[]> {
  const found = await db.query<{ consent_id: string; deny_count: number; first_at: number; last_at: number }>(
    `SELECT consent_id, count(*)::int AS deny_count, min(at) AS first_at, max(at) AS last_at
       FROM (SELECT d.consent_id, r.decided_at AS at
               FROM gate_decision_runs r
              CROSS JOIN LATERAL unnest(r.consent_ids, r.allowed) AS d (consent_id, allowed)
              WHERE r.organization_id = $1 AND r.decided_at > $2::bigint AND r.decided_at <= $3::bigint
                AND false = ANY (r.allowed) AND NOT d.allowed
             UNION ALL
             SELECT k.consent_id, b.bucket_start + x.at_offset
               FROM gate_decision_blocks b
              CROSS JOIN LATERAL unnest(b.denied_positions, b.denied_offsets) AS x (position, at_offset)
               JOIN gate_consent_refs k
                 ON k.organization_id = b.organization_id AND k.consent_ref = b.consent_refs[x.position]
              WHERE b.organization_id = $1 AND b.deny_count > 0
                AND b.bucket_start > $2::bigint - $5::bigint AND b.bucket_start <= $3::bigint
                AND b.bucket_start + x.at_offset > $2::bigint AND b.bucket_start + x.at_offset <= $3::bigint
            ) AS denials
      GROUP BY consent_id
     HAVING count(*) >= $4::int
      ORDER BY max(at) DESC, consent_id`,
    [organizationId, window.after, window.until, window.minDenies, BUCKET_MS],
  );
  return found.map((r) => ({
    consentId: r.consent_id,
    denyCount: r.deny_count,
    firstAt: r.first_at,
    lastAt: r.last_at,
  }));
}

/**
 * Per consent: how often it was checked at the gate, the latest check and its decision. Of the
 * blocks it reads only those naming one of these consents (the GIN index
 * gate_decision_blocks_by_consent, probed with each consent's reference), not the organisation's
 * whole log; of the runs (seconds of decisions) those of the organisation.
 */
export const GATE_CHECKS_SQL = `
  SELECT consent_id, count(*)::int AS checks, max(decided_at) AS last_checked_at,
         (array_agg(CASE WHEN allowed THEN 'allow' ELSE 'deny' END
                    ORDER BY decided_at DESC, decision_id DESC))[1] AS last_decision
    FROM (SELECT d.consent_id, r.decided_at, d.allowed,
                 ${decisionIdSql("r.legacy_decision_ids[d.i]", "r.decided_at", "r.nonce", "d.i")} AS decision_id
            FROM gate_decision_runs r
           CROSS JOIN LATERAL unnest(r.consent_ids, r.allowed) WITH ORDINALITY AS d (consent_id, allowed, i)
           WHERE r.organization_id = $1 AND r.consent_ids && $2::text[] AND d.consent_id = ANY ($2::text[])
          UNION ALL
          SELECT k.consent_id, d.decided_at, d.allowed,
                 ${decisionIdSql("b.legacy_decision_ids[d.position]", "d.decided_at", "d.nonce", "d.run_position")}
            FROM gate_consent_refs k
            JOIN gate_decision_blocks b
              ON b.consent_refs @> ARRAY[k.consent_ref] AND b.organization_id = k.organization_id
           CROSS JOIN LATERAL (${BLOCK_DECISIONS_SQL}) AS d
           WHERE k.organization_id = $1 AND k.consent_id = ANY ($2::text[])
             AND b.consent_refs[d.position] = k.consent_ref
         ) AS checked
   GROUP BY consent_id`;

export interface GateChecks {
  checks: number;
  lastCheckedAt: number;
  lastDecision: "allow" | "deny";
}

/** How often each of these consents was checked at the gate, and the latest check (see GATE_CHECKS_SQL). */
export async function gateChecksOf(
  db: Queryable,
  organizationId: string,
  consentIds: readonly string[],
): Promise<Map<string, GateChecks>> {
  if (consentIds.length === 0) return new Map();
  const found = await db.query<{
    consent_id: string;
    checks: number;
    last_checked_at: number;
    last_decision: "allow" | "deny";
  }>(GATE_CHECKS_SQL, [organizationId, consentIds]);
  return new Map(
    found.map((r) => [
      r.consent_id,
      { checks: r.checks, lastCheckedAt: r.last_checked_at, lastDecision: r.last_decision },
    ]),
  );
}

/**
 * How many decisions allowed and denied with decided_at in [`from`, `until`]. Counted per row
 * where the row lies wholly in the window (a run's size and denials; a block's decision_count and
 * deny_count), and from a block's run offsets and denial offsets where the window cuts it, so no
 * block is unnested; the rows are one range of each table's primary key.
 */
export const decisionCountsQuery = (organizationId: string, window: { from: number; until: number }) =>
  qb.selectNoFrom([
    sql<number>`(SELECT coalesce(sum(cardinality(consent_ids)), 0) FROM gate_decision_runs
                  WHERE organization_id = ${organizationId}
                    AND decided_at >= ${window.from}::bigint AND decided_at <= ${window.until}::bigint)
              + (SELECT coalesce(sum(CASE WHEN bucket_start >= ${window.from}::bigint
                                           AND bucket_start + ${BUCKET_MS - 1} <= ${window.until}::bigint
                                          THEN decision_count
                                          ELSE (SELECT coalesce(sum(s), 0) FROM unnest(run_offsets, run_sizes) AS u (o, s)
                                                 WHERE bucket_start + o BETWEEN ${window.from}::bigint AND ${window.until}::bigint)
                                     END), 0)
                   FROM gate_decision_blocks
                  WHERE organization_id = ${organizationId}
                    AND bucket_start > ${window.from}::bigint - ${BUCKET_MS} AND bucket_start <= ${window.until}::bigint)`.as(
      "total",
    ),
    sql<number>`(SELECT coalesce(sum(cardinality(array_positions(allowed, false))), 0) FROM gate_decision_runs
                  WHERE organization_id = ${organizationId}
                    AND decided_at >= ${window.from}::bigint AND decided_at <= ${window.until}::bigint)
              + (SELECT coalesce(sum(CASE WHEN bucket_start >= ${window.from}::bigint
                                           AND bucket_start + ${BUCKET_MS - 1} <= ${window.until}::bigint
                                          THEN deny_count
                                          ELSE (SELECT count(*) FROM unnest(denied_offsets) AS u (o)
                                                 WHERE bucket_start + o BETWEEN ${window.from}::bigint AND ${window.until}::bigint)
                                     END), 0)
                   FROM gate_decision_blocks
                  WHERE organization_id = ${organizationId}
                    AND bucket_start > ${window.from}::bigint - ${BUCKET_MS} AND bucket_start <= ${window.until}::bigint)`.as(
      "denied",
    ),
  ]);

/** decisionCountsQuery's counts. */
export async function decisionCounts(
  db: Queryable,
  organizationId: string,
  window: { from: number; until: number },
): Promise<{ allow: number; deny: number }> {
  const row = await first(db, decisionCountsQuery(organizationId, window));
  // Sums of BIGINT and NUMERIC come back as text from some drivers; Number() reads either.
  const total = Number(row!.total);
  const denied = Number(row!.denied);
  return { allow: total - denied, deny: denied };
}

// ---------------------------------------------------------------------------------------------
// Purging the log (the log-retention job, log-retention/purge.ts)

export interface PurgedDecisions {
  blocks: number;
  runs: number;
  decisions: number;
  /** Lower bound of the oldest and upper bound of the newest purged row (null: none purged). */
  oldestCreatedAt: number | null;
  newestCreatedAt: number | null;
}

/**
 * Deletes up to `limit` of the organisation's blocks wholly before `before` (a multiple of
 * BUCKET_MS: a block then lies wholly before it), oldest first, and its runs decided before it
 * (compaction leaves none older than seconds; a run that old means compaction stopped). Rows
 * another purger holds are skipped, so two purgers never count a row twice.
 */
export async function deleteDecisionsBefore(
  tx: Queryable,
  organizationId: string,
  before: number,
  limit: number,
): Promise<PurgedDecisions> {
  const [gone] = await tx.query<{
    blocks: number;
    runs: number;
    decisions: string | number;
    oldest: string | number | null;
    newest: string | number | null;
  }>(
    `WITH doomed AS (
       SELECT bucket_start, block_nonce FROM gate_decision_blocks
        WHERE organization_id = $1 AND bucket_start <= $2::bigint - $4::bigint
        ORDER BY bucket_start LIMIT $3::int FOR UPDATE SKIP LOCKED
     ), gone_blocks AS (
       DELETE FROM gate_decision_blocks b USING doomed d
        WHERE b.organization_id = $1 AND b.bucket_start = d.bucket_start AND b.block_nonce = d.block_nonce
       RETURNING b.bucket_start AS lo, b.bucket_start + $4::bigint - 1 AS hi, b.decision_count AS n
     ), doomed_runs AS (
       SELECT decided_at, nonce FROM gate_decision_runs
        WHERE organization_id = $1 AND decided_at < $2::bigint
        ORDER BY decided_at LIMIT $3::int FOR UPDATE SKIP LOCKED
     ), gone_runs AS (
       DELETE FROM gate_decision_runs r USING doomed_runs d
        WHERE r.organization_id = $1 AND r.decided_at = d.decided_at AND r.nonce = d.nonce
       RETURNING r.decided_at AS lo, r.decided_at AS hi, cardinality(r.consent_ids) AS n
     ), gone AS (
       SELECT lo, hi, n, 1 AS block FROM gone_blocks UNION ALL SELECT lo, hi, n, 0 FROM gone_runs
     )
     SELECT count(*) FILTER (WHERE block = 1)::int AS blocks, count(*) FILTER (WHERE block = 0)::int AS runs,
            coalesce(sum(n), 0)::bigint AS decisions, min(lo) AS oldest, max(hi) AS newest
       FROM gone`,
    [organizationId, before, limit, BUCKET_MS],
  );
  return {
    blocks: gone!.blocks,
    runs: gone!.runs,
    decisions: Number(gone!.decisions),
    oldestCreatedAt: gone!.oldest === null ? null : Number(gone!.oldest),
    newestCreatedAt: gone!.newest === null ? null : Number(gone!.newest),
  };
}

/** How many of the organisation's logged decisions deleteDecisionsBefore would take (a dry run). */
export async function countDecisionsBefore(
  db: Queryable,
  organizationId: string,
  before: number,
): Promise<number> {
  const [row] = await db.query<{ n: string | number }>(
    `SELECT (SELECT coalesce(sum(decision_count), 0) FROM gate_decision_blocks
              WHERE organization_id = $1 AND bucket_start <= $2::bigint - $3::bigint)
          + (SELECT coalesce(sum(cardinality(consent_ids)), 0) FROM gate_decision_runs
              WHERE organization_id = $1 AND decided_at < $2::bigint) AS n`,
    [organizationId, before, BUCKET_MS],
  );
  return Number(row!.n);
}
