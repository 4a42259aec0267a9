// The Consent Gate: allow/deny from the consent's state, every decision durably logged, the
// decision log (newest first, limit clamping) and bypass alerts (per-organisation window/threshold).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/accounts/api-keys.js";
import { setCapabilities, type CapabilityName } from "../../src/capabilities/capabilities.js";
import { verifyConsents, type VerifyInput } from "../../src/gate/gate.js";
import { compactDecisions, GATE_CHECKS_SQL, RECORD_DECISIONS_SQL } from "../../src/gate/store.js";
import { assertApiError } from "../support/api-error.js";
import { anonymousConsent, publishTestNotice, setOrgSettings } from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

/** A node of `EXPLAIN (FORMAT JSON)`. */
type PlanNode = { "Node Type": string; "Relation Name"?: string; "Index Name"?: string; Plans?: PlanNode[] };

describe("Consent Gate", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());

  async function newConsent(org = acme, notice = noticeId): Promise<string> {
    const res = await anonymousConsent(t, {
      organizationId: org.org.organizationId,
      noticeId: notice,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: `guest-${Math.random().toString(36).slice(2)}`,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json().consentId as string;
  }
  const verify = (consentId: unknown, apiKey = acme.apiKey) =>
    t.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      headers: bearer(apiKey),
      payload: { consentId },
    });
  const withdraw = (consentId: string) =>
    t.request({ method: "DELETE", url: `/cm/v1/consent/${consentId}`, headers: bearer(acme.apiKey) });
  const decisions = (query = "", apiKey = acme.apiKey) =>
    t.request({ method: "GET", url: `/api/v1/consent/gate/decisions${query}`, headers: bearer(apiKey) });
  // Through the domain function, as the staff route does, so the switch is announced to the
  // app's capability cache.
  const switchOff = (org: SeededOrg, name: CapabilityName) =>
    t.db.transaction((tx) => setCapabilities(tx, org.org.organizationId, { [name]: false }));
  const decisionCount = async () =>
    (await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM gate_decisions"))[0]!.n;
  const alerts = (org = acme) =>
    t.request({ method: "GET", url: "/api/v1/consent/gate/alerts", headers: bearer(org.apiKey) });

  test("allow while active, deny once withdrawn; each decision is logged with the asking key", async () => {
    const consentId = await newConsent();
    const allowed = await verify(consentId);
    assert.equal(allowed.statusCode, 200, allowed.body);
    const body = allowed.json();
    assert.deepEqual(
      { decision: body.decision, reason: body.reason, consentId: body.consentId },
      { decision: "allow", reason: "consent_active", consentId },
    );
    assert.match(body.decisionId, /^gdc_/);

    t.clock.advance(1000);
    await withdraw(consentId);
    t.clock.advance(1000);
    const denied = (await verify(consentId)).json();
    assert.deepEqual([denied.decision, denied.reason], ["deny", "consent_withdrawn"]);

    const log = (await decisions()).json().decisions;
    assert.deepEqual(log.slice(0, 2), [
      {
        decisionId: denied.decisionId,
        consentId,
        apiKeyId: acme.apiKeyId,
        decision: "deny",
        reason: "consent_withdrawn",
        decidedAt: t.clock.now(),
      },
      {
        decisionId: body.decisionId,
        consentId,
        apiKeyId: acme.apiKeyId,
        decision: "allow",
        reason: "consent_active",
        decidedAt: t.clock.now() - 2000,
      },
    ]);
  });

  test("another organisation's consent and unknown ids are 404 and log nothing", async () => {
    const otherNotice = await publishTestNotice(t, other);
    const foreign = await newConsent(other, otherNotice.noticeId);
    const before = (await t.db.query("SELECT 1 FROM gate_decisions")).length;
    assertApiError(await verify(foreign), 404, "NOT_FOUND");
    assertApiError(await verify("cns_doesnotexist00"), 404, "NOT_FOUND");
    assert.equal((await t.db.query("SELECT 1 FROM gate_decisions")).length, before);
    // The owner may ask.
    assert.equal((await verify(foreign, other.apiKey)).json().decision, "allow");
    // Each organisation sees only its own log.
    const theirs = (await decisions("", other.apiKey)).json().decisions as { consentId: string }[];
    assert.deepEqual(
      theirs.map((d) => d.consentId),
      [foreign],
    );
  });

  test("bad bodies, bad credentials", async () => {
    assertApiError(await verify("not-an-id"), 400, "VALIDATION_ERROR", { field: "consentId" });
    assertApiError(await verify(42), 400, "VALIDATION_ERROR", { field: "consentId" });
    const empty = await t.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      headers: bearer(acme.apiKey),
      payload: {},
    });
    assertApiError(empty, 400, "VALIDATION_ERROR", { field: "consentId" });
    const anon = await t.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      payload: { consentId: "cns_abcdefghij" },
    });
    assertApiError(anon, 401, "UNAUTHORIZED");
  });

  test("the log is newest first; limit defaults to 50, is clamped to 200, and must be a positive integer", async () => {
    const org = await seedOrganization(t);
    const notice = await publishTestNotice(t, org);
    const consentId = await newConsent(org, notice.noticeId);
    for (let i = 0; i < 205; i++) {
      t.clock.advance(1);
      await verify(consentId, org.apiKey);
    }
    const byDefault = (await decisions("", org.apiKey)).json().decisions as { decidedAt: number }[];
    assert.equal(byDefault.length, 50);
    assert.equal(byDefault[0]!.decidedAt, t.clock.now());
    for (let i = 1; i < byDefault.length; i++)
      assert.ok(byDefault[i - 1]!.decidedAt > byDefault[i]!.decidedAt);
    assert.equal((await decisions("?limit=3", org.apiKey)).json().decisions.length, 3);
    assert.equal((await decisions("?limit=1000", org.apiKey)).json().decisions.length, 200);
    for (const bad of ["0", "-1", "1.5", "abc", ""]) {
      assertApiError(await decisions(`?limit=${bad}`, org.apiKey), 400, "VALIDATION_ERROR", {
        field: "limit",
      });
    }
    // Decisions are durable rows, attributed to whichever key asked.
    const second = await createApiKey(
      t.db,
      { organizationId: org.org.organizationId, name: "b", createdBy: null },
      t.clock.now(),
    );
    t.clock.advance(1);
    await verify(consentId, second.key);
    assert.equal((await decisions("?limit=1", org.apiKey)).json().decisions[0].apiKeyId, second.apiKeyId);
  });

  test("alerts: consents denied at least denyThreshold times within windowMs, most recent first", async () => {
    const org = await seedOrganization(t);
    const notice = await publishTestNotice(t, org);
    const empty = (await alerts(org)).json();
    assert.deepEqual(empty, { alerts: [], windowMs: 3_600_000, denyThreshold: 3, nextCursor: null });

    const [a, b, c] = [
      await newConsent(org, notice.noticeId),
      await newConsent(org, notice.noticeId),
      await newConsent(org, notice.noticeId),
    ];
    for (const id of [a, b, c]) {
      await t.request({ method: "DELETE", url: `/cm/v1/consent/${id}`, headers: bearer(org.apiKey) });
    }
    const start = t.clock.now();
    const deny = async (id: string) => {
      t.clock.advance(1000);
      assert.equal((await verify(id, org.apiKey)).json().decision, "deny");
    };
    await deny(a); // a: start+1000
    await deny(b);
    await deny(a);
    await deny(b);
    await deny(a); // a: 3 denies, last at start+5000
    await deny(b); // b: 3 denies, last at start+6000
    await deny(c); // c: 1 deny
    const res = (await alerts(org)).json();
    assert.deepEqual(res, {
      alerts: [
        { consentId: b, denyCount: 3, firstDeniedAt: start + 2000, lastDeniedAt: start + 6000 },
        { consentId: a, denyCount: 3, firstDeniedAt: start + 1000, lastDeniedAt: start + 5000 },
      ],
      windowMs: 3_600_000,
      denyThreshold: 3,
      nextCursor: null,
    });
    // Denies age out of the window.
    t.clock.set(start + 1000 + 3_600_000);
    assert.deepEqual(
      (await alerts(org))
        .json()
        .alerts.map((x: { consentId: string; denyCount: number }) => [x.consentId, x.denyCount]),
      [[b, 3]],
    );
    // Both settings are per organisation, and echoed.
    await setOrgSettings(t, org, { consentGate: { windowMs: 10 * 3_600_000, denyThreshold: 1 } });
    const custom = (await alerts(org)).json();
    assert.equal(custom.windowMs, 36_000_000);
    assert.equal(custom.denyThreshold, 1);
    assert.deepEqual(
      custom.alerts.map((x: { consentId: string }) => x.consentId),
      [c, b, a],
    );
    // Another organisation's alerts are its own.
    assert.deepEqual((await alerts(acme)).json().alerts, []);
    // With bypass detection switched off the list is empty (not an error); the settings are echoed.
    await switchOff(org, "consent_gate_bypass_alerts");
    assert.deepEqual((await alerts(org)).json(), {
      alerts: [],
      windowMs: 36_000_000,
      denyThreshold: 1,
      nextCursor: null,
    });
  });

  test("many verifications at once, mixed organisations and outcomes: each caller gets its own answer and log row", async () => {
    const otherNotice = await publishTestNotice(t, other);
    const active = await newConsent();
    const withdrawn = await newConsent();
    assert.equal((await withdraw(withdrawn)).statusCode, 200);
    const foreign = await newConsent(other, otherNotice.noticeId);
    const before = await decisionCount();
    // Sent in one go, so they share groups: acme's key asking about its own consents, about
    // another organisation's consent and about an unknown id, and the other org's key about its own.
    const asks = [
      ...Array.from({ length: 10 }, () => ({
        consentId: active,
        key: acme.apiKey,
        expect: 200,
        decision: "allow",
      })),
      ...Array.from({ length: 10 }, () => ({
        consentId: withdrawn,
        key: acme.apiKey,
        expect: 200,
        decision: "deny",
      })),
      ...Array.from({ length: 5 }, () => ({
        consentId: foreign,
        key: acme.apiKey,
        expect: 404,
        decision: "",
      })),
      ...Array.from({ length: 5 }, () => ({
        consentId: "cns_doesNotExist00",
        key: acme.apiKey,
        expect: 404,
        decision: "",
      })),
      ...Array.from({ length: 5 }, () => ({
        consentId: foreign,
        key: other.apiKey,
        expect: 200,
        decision: "allow",
      })),
    ];
    const answers = await Promise.all(asks.map((ask) => verify(ask.consentId, ask.key)));
    const ids = new Set<string>();
    answers.forEach((res, index) => {
      const ask = asks[index]!;
      assert.equal(res.statusCode, ask.expect, `${index}: ${res.body}`);
      if (ask.expect !== 200) return;
      const body = res.json();
      assert.equal(body.consentId, ask.consentId);
      assert.equal(body.decision, ask.decision);
      ids.add(body.decisionId);
    });
    assert.equal(ids.size, 25, "every answered verification has a decision id of its own");
    assert.equal(await decisionCount(), before + 25, "404s log nothing; every answer was logged");
    const [row] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM gate_decisions WHERE decision_id = ANY($1::text[])",
      [[...ids]],
    );
    assert.equal(row?.n, 25);
  });

  test("one group, several organisations: each logs one row of its own decisions, 404s and non-recorders none", async () => {
    const otherNotice = await publishTestNotice(t, other);
    const quiet = await seedOrganization(t);
    const quietNotice = await publishTestNotice(t, quiet);
    const [mine, mineWithdrawn, theirs, quietOne] = [
      await newConsent(),
      await newConsent(),
      await newConsent(other, otherNotice.noticeId),
      await newConsent(quiet, quietNotice.noticeId),
    ];
    assert.equal((await withdraw(mineWithdrawn)).statusCode, 200);
    const ask = (org: SeededOrg, consentId: string, record = true): VerifyInput => ({
      organizationId: org.org.organizationId,
      consentId,
      apiKeyId: org.apiKeyId,
      record,
    });
    // Interleaved organisations, an unknown id, another organisation's consent and an id with a
    // comma (the statement takes comma-separated lists) in the middle of acme's run, and an
    // organisation that does not record.
    const inputs = [
      ask(acme, mine),
      ask(other, theirs),
      ask(acme, theirs),
      ask(acme, `${mine},${mineWithdrawn}`),
      ask(quiet, quietOne, false),
      ask(acme, mineWithdrawn),
      ask(other, "cns_doesNotExist00"),
      ask(acme, mine),
    ];
    const decidedAt = t.clock.now() + 5_000;
    const outcomes = await verifyConsents(t.db, inputs, decidedAt);
    assert.deepEqual(
      outcomes.map((o) => o?.decision ?? 404),
      ["allow", "allow", 404, 404, "allow", "deny", 404, "allow"],
    );
    assert.equal(outcomes[4]?.decisionId, undefined, "not recorded, so no decision id");
    const runs = await t.db.query<{
      organization_id: string;
      api_key_id: string;
      consent_ids: string[];
      allowed: boolean[];
    }>(
      `SELECT organization_id, api_key_id, consent_ids, allowed
         FROM gate_decision_runs WHERE decided_at = $1 ORDER BY organization_id`,
      [decidedAt],
    );
    const byOrg = new Map(runs.map((g) => [g.organization_id, g]));
    assert.equal(runs.length, 2, "acme and other; nothing for the organisation that does not record");
    assert.deepEqual(byOrg.get(acme.org.organizationId), {
      organization_id: acme.org.organizationId,
      api_key_id: acme.apiKeyId,
      consent_ids: [mine, mineWithdrawn, mine],
      allowed: [true, false, true],
    });
    assert.deepEqual(byOrg.get(other.org.organizationId), {
      organization_id: other.org.organizationId,
      api_key_id: other.apiKeyId,
      consent_ids: [theirs],
      allowed: [true],
    });
    // The ids answered are the ids logged: derived from the run, in the run's order (the 404s in
    // acme's run not counted), on the runs and, once compacted, on the blocks.
    const logged = async () =>
      (
        await t.db.query<{ decision_id: string; consent_id: string; decision: string }>(
          `SELECT decision_id, consent_id, decision FROM gate_decisions
            WHERE decided_at = $1 AND organization_id = $2 ORDER BY decision_id`,
          [decidedAt, acme.org.organizationId],
        )
      ).map((r) => [r.decision_id, r.consent_id, r.decision]);
    const expected = [
      [outcomes[0]!.decisionId, mine, "allow"],
      [outcomes[5]!.decisionId, mineWithdrawn, "deny"],
      [outcomes[7]!.decisionId, mine, "allow"],
    ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1));
    assert.deepEqual(await logged(), expected);
    await compactDecisions(t.db, decidedAt + 1, 100_000);
    assert.equal(
      (await t.db.query("SELECT 1 FROM gate_decision_runs WHERE decided_at = $1", [decidedAt])).length,
      0,
    );
    assert.deepEqual(await logged(), expected);
  });

  test("the group statement keeps one generic plan, whatever the group's size", async () => {
    // A custom plan for each execution (the plan cache's choice when the values make a custom plan
    // look cheaper) re-plans the statement every time, which costs a small group more than running
    // it (bench/README.md). In one transaction, so that every execution and the count share a session.
    const consentId = await newConsent();
    const counts = await t.db.transaction(async (tx) => {
      for (const size of [1, 1, 2, 1, 3, 1, 1, 5, 1, 1, 1, 1]) {
        const inputs = Array.from({ length: size }, () => ({
          organizationId: acme.org.organizationId,
          consentId,
          apiKeyId: acme.apiKeyId,
          record: true,
        }));
        await verifyConsents(tx, inputs, t.clock.now());
      }
      const [row] = await tx.query<{ generic_plans: number; custom_plans: number }>(
        `SELECT generic_plans::int, custom_plans::int FROM pg_prepared_statements
          WHERE name = 'gate_record_decision_runs'`,
      );
      return row;
    });
    assert.ok(counts, "the statement is prepared by name");
    assert.ok(counts.custom_plans <= 5, `planned per execution: ${JSON.stringify(counts)}`);
    assert.ok(counts.generic_plans >= 7, JSON.stringify(counts));
  });

  test("a principal's gate checks are read through the index by consent, not the whole log", async () => {
    // The access summary asks this per principal (gateChecksOf); without
    // gate_decision_blocks_by_consent it would read every block of the organisation. A log of
    // 5 000 blocks, analysed, is large enough for the planner to choose by cost; the by-consent
    // index must be what it reads.
    const consentId = await newConsent();
    assert.equal((await verify(consentId)).statusCode, 200);
    await t.db.query(
      `INSERT INTO gate_consent_refs (organization_id, consent_id)
       SELECT $1, 'cns_bulk' || lpad(g::text, 8, '0') FROM generate_series(1, 2000) AS g`,
      [acme.org.organizationId],
    );
    await t.db.query(
      `INSERT INTO gate_decision_blocks
         (bucket_start, block_nonce, decision_count, deny_count, organization_id, api_key_id, run_offsets,
          run_sizes, run_nonces, consent_refs, denied_positions, denied_offsets)
       SELECT g * 10000, g, 2, 1, $1, 'key_bulk', '{0}', '{2}', ARRAY[g::bigint],
              ARRAY[(SELECT min(consent_ref) FROM gate_consent_refs) + g % 2000,
                    (SELECT min(consent_ref) FROM gate_consent_refs) + (g + 1) % 2000],
              '{2}', '{0}'
         FROM generate_series(1, 5000) AS g`,
      [acme.org.organizationId],
    );
    await compactDecisions(t.db, Number.MAX_SAFE_INTEGER, 100_000);
    await t.db.query("ANALYZE gate_decision_blocks");
    await t.db.query("ANALYZE gate_consent_refs");
    const [row] = await t.db.query<{ "QUERY PLAN": unknown }>(`EXPLAIN (FORMAT JSON) ${GATE_CHECKS_SQL}`, [
      acme.org.organizationId,
      [consentId],
    ]);
    // The blocks are partitioned by month (migration 0111): each partition's share of
    // gate_decision_blocks_by_consent is named after the partition.
    assert.match(
      JSON.stringify(row?.["QUERY PLAN"]),
      /"Index Name":"gate_decision_blocks_(default|p\d{6})_consent_refs_idx"/,
    );
  });

  test("a group reads each consent by primary key, never the whole consents table", async () => {
    // The statement's plan is made once per session and kept. Written as a join, it would hash the
    // whole consents table (a sequential scan for every group) until the table holds tens of
    // thousands of rows; the lookup must be one index probe per verification. 2 000 consents,
    // analysed: a size at which a join is hashed.
    const bulk = await seedOrganization(t);
    const bulkNotice = (await publishTestNotice(t, bulk)).noticeId;
    await t.db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version, purpose,
                             data_types, source, given_at, audit_hash, audit_key_version)
       SELECT $1, 'cns_plan' || lpad(g::text, 8, '0'), 'plan-guest-' || g, $2, 1, 'Account', '["email"]',
              'anonymous', 0, 'not-a-real-hash', 1
         FROM generate_series(1, 2000) AS g`,
      [bulk.org.organizationId, bulkNotice],
    );
    await t.db.query("ANALYZE consents");
    const [row] = await t.db.query<{ "QUERY PLAN": { Plan: PlanNode }[] }>(
      `EXPLAIN (FORMAT JSON) ${RECORD_DECISIONS_SQL}`,
      [bulk.org.organizationId, "cns_plan00000001", "", "", [], [], "", 1],
    );
    const scans: { type: unknown; index: unknown }[] = [];
    const walk = (node: PlanNode) => {
      if (node["Relation Name"] === "consents")
        scans.push({ type: node["Node Type"], index: node["Index Name"] });
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(row!["QUERY PLAN"][0]!.Plan);
    assert.deepEqual(scans, [{ type: "Index Scan", index: "consents_pkey" }]);
  });

  test("with decision recording switched off, verify still decides but logs nothing", async () => {
    const org = await seedOrganization(t);
    const notice = await publishTestNotice(t, org);
    const consentId = await newConsent(org, notice.noticeId);
    await switchOff(org, "consent_gate_decision_audit");
    const res = await verify(consentId, org.apiKey);
    assert.deepEqual(res.json(), { decision: "allow", reason: "consent_active", consentId });
    assertApiError(await verify("cns_doesnotexist00", org.apiKey), 404, "NOT_FOUND");
    assert.deepEqual((await decisions("", org.apiKey)).json(), { decisions: [], nextCursor: null });
  });
});
