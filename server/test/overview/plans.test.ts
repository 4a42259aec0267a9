// The overview's aggregates read the window, not the history: on an organisation with 400 days of
// consent events, closed requests and gate decisions (and another organisation's), each statement
// is planned as a range of an index made for it (migration 0091, or the gate log's primary key),
// never a sequential scan of the table. Consent events and gate blocks are partitioned by month
// (migrations 0111, 0113): there a statement reads only the window's months, and may read a month
// the window covers whole from start to end, the cheapest way to read all of it.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CompiledQuery } from "kysely";
import { consentEventsPerDayQuery } from "../../src/consent/store.js";
import { compactDecisions, decisionCountsQuery } from "../../src/gate/store.js";
import { dsrQueueHealthQuery } from "../../src/rights/store/dsr.js";
import { grievanceQueueHealthQuery } from "../../src/rights/store/grievances.js";
import { ensurePartitions } from "../../src/log-retention/partitions.js";
import { publishTestNotice } from "../support/consent-fixtures.js";
import { seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 23, 9, 0, 0);
const ROWS = 8_000;
/** The partitions of a month-partitioned table the window (29 days before NOW) may read. */
const windowMonths = (table: string) => new RegExp(`^${table}_(p202610|p202611|default)$`);

/** A node of `EXPLAIN (FORMAT JSON)`. */
type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };

function scansOf(node: PlanNode, into: { type: string; relation?: string; index?: string }[] = []) {
  if (node["Relation Name"] !== undefined || node["Index Name"] !== undefined) {
    into.push({ type: node["Node Type"], relation: node["Relation Name"], index: node["Index Name"] });
  }
  for (const child of node.Plans ?? []) scansOf(child, into);
  return into;
}

describe("overview query plans", () => {
  let t: TestApp;
  let orgs: SeededOrg[];

  /** `ROWS` rows per organisation, spread evenly over the 400 days before NOW. */
  async function seed(org: SeededOrg, index: number): Promise<void> {
    const id = org.org.organizationId;
    const { noticeId } = await publishTestNotice(t, org);
    const step = Math.floor((400 * DAY) / ROWS);
    await t.db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version, purpose,
                             data_types, source, given_at, audit_hash, audit_key_version)
       SELECT $1, 'cns_plan' || g, 'plan-guest-' || g, $2, 1, 'Account', '["email"]', 'anonymous',
              $3::bigint - g * $4::bigint, 'not-a-real-hash', 1
         FROM generate_series(1, ${ROWS}) AS g`,
      [id, noticeId, NOW, step],
    );
    await t.db.query(
      `INSERT INTO consent_events (organization_id, event_id, consent_id, event_type, occurred_at, anonymous_id,
                                   notice_id, notice_version, purpose, data_types, given_at, source,
                                   audit_hash, audit_key_version, audit_ref)
       SELECT organization_id, 'cev_plan' || substr(consent_id, 9), consent_id, 'given', given_at, anonymous_id,
              notice_id, notice_version, purpose, data_types, given_at, source, audit_hash, 1,
              substr(consent_id, 9)::bigint
         FROM consents WHERE organization_id = $1`,
      [id],
    );
    await t.db.query(
      "INSERT INTO principals (organization_id, principal_id, external_id, created_at) VALUES ($1, $2, $3, 0)",
      [id, `prn_plan${index}`, `plan-${index}`],
    );
    // Closed long ago, all but the last 20, which are open.
    for (const [table, idColumn, closed, open, extra] of [
      ["dsr_requests", "request_id", "completed", "pending", "type, "],
      ["grievances", "grievance_id", "resolved", "open", "subject, description, "],
    ] as const) {
      const extraValues = table === "dsr_requests" ? "'summary', " : "'s', 'd', ";
      await t.db.query(
        `INSERT INTO ${table} (organization_id, ${idColumn}, principal_id, ${extra}status, response_period_days,
                               created_at, due_at, updated_at, closed_at)
         SELECT $1, 'plan' || g, $2, ${extraValues}
                CASE WHEN g <= 20 THEN '${open}' ELSE '${closed}' END, 30,
                $3::bigint - g * $4::bigint, $3::bigint - g * $4::bigint + 30 * ${DAY}::bigint,
                $3::bigint - g * $4::bigint,
                CASE WHEN g <= 20 THEN NULL ELSE $3::bigint - g * $4::bigint + ${DAY}::bigint END
           FROM generate_series(1, ${ROWS}) AS g`,
        [id, `prn_plan${index}`, NOW, step],
      );
    }
    // The gate's log: runs of two decisions; those older than 200 days compacted into blocks.
    await t.db.query(
      `INSERT INTO gate_decision_runs (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed)
       SELECT $1, $2::bigint - g * $3::bigint, g, 'key_plan', ARRAY['cns_plan' || g, 'cns_plan' || g],
              ARRAY[true, false]
         FROM generate_series(1, ${ROWS}) AS g`,
      [id, NOW, step],
    );
    await compactDecisions(t.db, NOW - 200 * DAY, 100_000);
  }

  async function scans(query: { compile(): CompiledQuery }) {
    const compiled = query.compile();
    const [row] = await t.db.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${compiled.sql}`,
      compiled.parameters as unknown[],
    );
    return scansOf(row!["QUERY PLAN"][0]!.Plan);
  }

  before(async () => {
    t = await startTestApp();
    orgs = [await seedOrganization(t), await seedOrganization(t)];
    for (const [i, org] of orgs.entries()) await seed(org, i);
    // Rows of the 400 days are split into their months, as the partition maintenance does.
    await ensurePartitions(t.db, NOW);
    for (const table of [
      "consent_events",
      "dsr_requests",
      "grievances",
      "gate_decision_runs",
      "gate_decision_blocks",
    ]) {
      await t.db.query(`ANALYZE ${table}`);
    }
  });
  after(() => t.close());

  const window = { from: NOW - 29 * DAY, until: NOW };
  const organizationId = () => orgs[0]!.org.organizationId;

  test("consents per day: a range of consent_events_by_time", async () => {
    const found = await scans(
      consentEventsPerDayQuery(organizationId(), { ...window, offsetMs: 19_800_000 }),
    );
    // A partition's share of consent_events_by_time is named after the partition and its columns;
    // it serves the month the window cuts.
    assert.ok(
      found.some((s) => s.index === "consent_events_p202610_organization_id_occurred_at_idx"),
      JSON.stringify(found),
    );
    assert.ok(
      found.every((s) => s.relation === undefined || windowMonths("consent_events").test(s.relation)),
      JSON.stringify(found),
    );
  });

  test("queue health: the open and lately closed rows, through the (organization_id, closed_at) indexes", async () => {
    const at = { now: NOW, closedSince: window.from };
    for (const [query, index] of [
      [dsrQueueHealthQuery(organizationId(), at), "dsr_requests_by_closed"],
      [grievanceQueueHealthQuery(organizationId(), at), "grievances_by_closed"],
    ] as const) {
      const found = await scans(query);
      assert.ok(
        found.some((s) => s.index === index),
        JSON.stringify(found),
      );
      assert.ok(!found.some((s) => s.type === "Seq Scan"), JSON.stringify(found));
    }
  });

  test("gate decisions: a range of each decision log table's primary key", async () => {
    const found = await scans(decisionCountsQuery(organizationId(), window));
    assert.ok(
      found.some((s) => s.index === "gate_decision_runs_pkey"),
      JSON.stringify(found),
    );
    assert.ok(
      !found.some((s) => s.type === "Seq Scan" && s.relation === "gate_decision_runs"),
      JSON.stringify(found),
    );
    // The blocks' months: only the window's are read (here they hold no block: decisions older
    // than 200 days were compacted).
    assert.ok(
      found.every(
        (s) =>
          s.relation === undefined ||
          s.relation === "gate_decision_runs" ||
          windowMonths("gate_decision_blocks").test(s.relation),
      ),
      JSON.stringify(found),
    );
  });
});
