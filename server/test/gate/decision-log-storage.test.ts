// Issue 27, item 4: the decision log stored as runs, then blocks (migration 0107). The routes that
// read it answer exactly what was answered when each decision was made, whichever tier holds it
// and across compaction; organisations see only their own; a log from before 0107 is converted
// by migration 0108 and answers as it did.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/accounts/api-keys.js";
import type { Database } from "../../src/db/database.js";
import { listMigrations, migrate, splitStatements } from "../../src/db/migrate.js";
import { compactDecisionLog } from "../../src/gate/compaction.js";
import { listBypassAlerts, listDecisions } from "../../src/gate/gate.js";
import { compactDecisions, decisionCounts, gateChecksOf } from "../../src/gate/store.js";
import { anonymousConsent, publishTestNotice, setOrgSettings } from "../support/consent-fixtures.js";
import {
  bearer,
  openEmptyTestDatabase,
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

interface Decision {
  decisionId: string;
  consentId: string;
  apiKeyId: string;
  decision: "allow" | "deny";
  reason: "consent_active" | "consent_withdrawn";
  decidedAt: number;
}

const newestFirst = (a: Decision, b: Decision) =>
  b.decidedAt - a.decidedAt || (a.decisionId < b.decisionId ? 1 : a.decisionId > b.decisionId ? -1 : 0);

/** The bypass alerts a log holds, worked out from its decisions. */
function alertsOf(log: Decision[], now: number, windowMs: number, denyThreshold: number) {
  const byConsent = new Map<string, { denyCount: number; firstDeniedAt: number; lastDeniedAt: number }>();
  for (const d of log) {
    if (d.decision !== "deny" || d.decidedAt <= now - windowMs || d.decidedAt > now) continue;
    const seen = byConsent.get(d.consentId);
    byConsent.set(d.consentId, {
      denyCount: (seen?.denyCount ?? 0) + 1,
      firstDeniedAt: Math.min(seen?.firstDeniedAt ?? d.decidedAt, d.decidedAt),
      lastDeniedAt: Math.max(seen?.lastDeniedAt ?? d.decidedAt, d.decidedAt),
    });
  }
  return [...byConsent]
    .filter(([, a]) => a.denyCount >= denyThreshold)
    .map(([consentId, a]) => ({ consentId, ...a }))
    .sort((a, b) => b.lastDeniedAt - a.lastDeniedAt || (a.consentId < b.consentId ? 1 : -1));
}

describe("the decision log's storage answers as it was answered", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let secondKey: { key: string; apiKeyId: string };
  const model = new Map<string, Decision[]>();
  const start = Date.UTC(2026, 10, 23, 9, 0, 3_217);
  const WINDOW_MS = 30_000;

  before(async () => {
    t = await startTestApp();
    t.clock.set(start - 60_000);
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    const created = await createApiKey(
      t.db,
      { organizationId: acme.org.organizationId, name: "second", createdBy: null },
      t.clock.now(),
    );
    secondKey = { key: created.key, apiKeyId: created.apiKeyId };
    await setOrgSettings(t, acme, { consentGate: { windowMs: WINDOW_MS, denyThreshold: 2 } });
    await setOrgSettings(t, other, { consentGate: { windowMs: WINDOW_MS, denyThreshold: 2 } });
    const consentsOf = async (org: SeededOrg, count: number) => {
      const noticeId = (await publishTestNotice(t, org)).noticeId;
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const res = await anonymousConsent(t, {
          organizationId: org.org.organizationId,
          noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: `guest-storage-${i}-${Math.random().toString(36).slice(2)}`,
        });
        assert.equal(res.statusCode, 201, res.body);
        ids.push(res.json().consentId as string);
      }
      return ids;
    };
    const acmeConsents = await consentsOf(acme, 8);
    const otherConsents = await consentsOf(other, 4);
    const askers = [
      { org: acme, key: acme.apiKey, apiKeyId: acme.apiKeyId, consents: acmeConsents },
      { org: acme, key: secondKey.key, apiKeyId: secondKey.apiKeyId, consents: acmeConsents },
      { org: other, key: other.apiKey, apiKeyId: other.apiKeyId, consents: otherConsents },
    ];
    const withdrawn = new Set<string>();
    const random = lcg(27_004);
    // 80 instants 0.7 s apart (56 s: six buckets), each with 1 to 6 verifications sent together
    // (so several share a group, across keys and organisations) and now and then a withdrawal.
    for (let step = 0; step < 80; step++) {
      t.clock.set(start + step * 700);
      if (step % 9 === 4) {
        const asker = askers[random(3)]!;
        const consentId = asker.consents[random(asker.consents.length)]!;
        if (!withdrawn.has(consentId)) {
          const res = await t.request({
            method: "DELETE",
            url: `/cm/v1/consent/${consentId}`,
            headers: bearer(asker.org.apiKey),
          });
          assert.equal(res.statusCode, 200, res.body);
          withdrawn.add(consentId);
        }
      }
      const asks = Array.from({ length: 1 + random(6) }, () => {
        const asker = askers[random(3)]!;
        return { asker, consentId: asker.consents[random(asker.consents.length)]! };
      });
      const answers = await Promise.all(
        asks.map(({ asker, consentId }) =>
          t.request({
            method: "POST",
            url: "/api/v1/consent/verify",
            headers: bearer(asker.key),
            payload: { consentId },
          }),
        ),
      );
      answers.forEach((res, i) => {
        assert.equal(res.statusCode, 200, res.body);
        const { asker, consentId } = asks[i]!;
        const body = res.json();
        assert.equal(body.decision, withdrawn.has(consentId) ? "deny" : "allow");
        const log = model.get(asker.org.org.organizationId) ?? [];
        log.push({
          decisionId: body.decisionId,
          consentId,
          apiKeyId: asker.apiKeyId,
          decision: body.decision,
          reason: body.reason,
          decidedAt: start + step * 700,
        });
        model.set(asker.org.org.organizationId, log);
      });
    }
    for (const log of model.values()) log.sort(newestFirst);
    t.clock.set(start + 80 * 700);
  });
  after(() => t.close());

  /** Every page of the decision log through the route, at each page size, walked by cursor. */
  async function walks(org: SeededOrg, apiKey = org.apiKey) {
    const result: Record<number, { pages: unknown[]; all: Decision[] }> = {};
    for (const limit of [1, 7, 50, 200]) {
      const pages: unknown[] = [];
      const all: Decision[] = [];
      let cursor: string | null = null;
      do {
        const query: string = `?limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
        const res = await t.request({
          method: "GET",
          url: `/api/v1/consent/gate/decisions${query}`,
          headers: bearer(apiKey),
        });
        assert.equal(res.statusCode, 200, res.body);
        const body = res.json();
        pages.push(body);
        all.push(...body.decisions);
        cursor = body.nextCursor;
      } while (cursor !== null);
      result[limit] = { pages, all };
    }
    return result;
  }

  /** Every page of the alerts through the route, 2 a page, and the whole list. */
  async function alertPages(org: SeededOrg) {
    const pages: unknown[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const res = await t.request({
        method: "GET",
        url: `/api/v1/consent/gate/alerts${query}`,
        headers: bearer(org.apiKey),
      });
      assert.equal(res.statusCode, 200, res.body);
      pages.push(res.json());
      cursor = res.json().nextCursor;
    } while (cursor !== null);
    const whole = await t.request({
      method: "GET",
      url: "/api/v1/consent/gate/alerts",
      headers: bearer(org.apiKey),
    });
    return { pages, whole: whole.json() };
  }

  /** What the overview and the access summary read from the log (window cut inside a bucket). */
  async function derived(org: SeededOrg) {
    const log = model.get(org.org.organizationId)!;
    const consentIds = [...new Set(log.map((d) => d.consentId))];
    return {
      counts: await decisionCounts(t.db, org.org.organizationId, {
        from: start + 3_517,
        until: start + 41_333,
      }),
      checks: Object.fromEntries(await gateChecksOf(t.db, org.org.organizationId, consentIds)),
    };
  }

  function expectedDerived(org: SeededOrg) {
    const log = model.get(org.org.organizationId)!;
    const inWindow = log.filter((d) => d.decidedAt >= start + 3_517 && d.decidedAt <= start + 41_333);
    const checks: Record<string, { checks: number; lastCheckedAt: number; lastDecision: string }> = {};
    for (const d of log) {
      // The log is newest first, so the first seen is the latest.
      const seen = checks[d.consentId];
      if (seen) seen.checks += 1;
      else checks[d.consentId] = { checks: 1, lastCheckedAt: d.decidedAt, lastDecision: d.decision };
    }
    return {
      counts: {
        allow: inWindow.filter((d) => d.decision === "allow").length,
        deny: inWindow.filter((d) => d.decision === "deny").length,
      },
      checks,
    };
  }

  test("from the runs, from runs and blocks, and from the blocks: the same answers, the answers given", async () => {
    const snapshots = [];
    for (const stage of ["runs", "half compacted", "compacted"]) {
      if (stage === "half compacted") {
        // Moves the runs of the first ~25 s only: a bucket is left with blocks beside runs.
        assert.ok(((await compactDecisions(t.db, start + 25_300, 100_000)) ?? 0) > 0);
      }
      if (stage === "compacted") {
        assert.ok((await compactDecisionLog(t.db, t.clock.now() + 10_000, 7)) > 0, "moved in batches of 7");
        const [left] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM gate_decision_runs");
        assert.equal(left?.n, 0);
        const [blocks] = await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM gate_decision_blocks",
        );
        assert.ok((blocks?.n ?? 0) >= 6, `blocks: ${blocks?.n}`);
      }
      const snapshot = {
        acme: await walks(acme),
        acmeBySecondKey: await walks(acme, secondKey.key),
        other: await walks(other),
        acmeAlerts: await alertPages(acme),
        otherAlerts: await alertPages(other),
        acmeDerived: await derived(acme),
        otherDerived: await derived(other),
      };
      for (const [org, walked, alerts, derivedOf] of [
        [acme, snapshot.acme, snapshot.acmeAlerts, snapshot.acmeDerived],
        [other, snapshot.other, snapshot.otherAlerts, snapshot.otherDerived],
      ] as const) {
        const log = model.get(org.org.organizationId)!;
        for (const { all } of Object.values(walked))
          assert.deepEqual(all, log, `${stage}: the log as answered`);
        const expectedAlerts = alertsOf(log, t.clock.now(), WINDOW_MS, 2);
        assert.ok(expectedAlerts.length > 0, "the sequence raises alerts");
        assert.deepEqual(alerts.whole, {
          alerts: expectedAlerts,
          windowMs: WINDOW_MS,
          denyThreshold: 2,
          nextCursor: null,
        });
        assert.deepEqual(derivedOf, expectedDerived(org), `${stage}: overview counts and access summary`);
      }
      // Either key of the organisation reads the organisation's whole log.
      assert.deepEqual(snapshot.acmeBySecondKey, snapshot.acme);
      snapshots.push(snapshot);
    }
    // Byte for byte the same pages (cursors included) at every stage.
    assert.deepEqual(snapshots[1], snapshots[0]);
    assert.deepEqual(snapshots[2], snapshots[0]);
  });

  test("tenant isolation: neither organisation sees the other's decisions or alerts, on either tier", async () => {
    const acmeIds = new Set(model.get(acme.org.organizationId)!.map((d) => d.decisionId));
    const otherConsents = new Set(model.get(other.org.organizationId)!.map((d) => d.consentId));
    const mine = await listDecisions(t.db, acme.org.organizationId, { limit: 200 });
    for (const d of mine.items) assert.ok(!otherConsents.has(d.consentId));
    const theirs = await listDecisions(t.db, other.org.organizationId, { limit: 200 });
    for (const d of theirs.items) assert.ok(!acmeIds.has(d.decisionId));
    const alerts = await listBypassAlerts(
      t.db,
      acme.org.organizationId,
      { windowMs: WINDOW_MS, denyThreshold: 1 },
      t.clock.now(),
      { limit: 500 },
    );
    for (const a of alerts.items) assert.ok(!otherConsents.has(a.consentId));
    // Another organisation's consent ids read nothing through this organisation.
    const otherConsent = [...otherConsents][0]!;
    assert.equal((await gateChecksOf(t.db, acme.org.organizationId, [otherConsent])).size, 0);
    // A cursor of one organisation's log is refused by another's.
    const cursor = (await listDecisions(t.db, acme.org.organizationId, { limit: 1 })).nextCursor!;
    await assert.rejects(listDecisions(t.db, other.org.organizationId, { cursor }), {
      code: "VALIDATION_ERROR",
      field: "cursor",
    });
  });
});

describe("migration 0108 converts a log written before 0107", () => {
  let db: Database;
  let drop: () => Promise<void>;
  before(async () => {
    const empty = await openEmptyTestDatabase();
    db = empty.db;
    drop = empty.drop;
  });
  after(async () => {
    await db.close();
    await drop();
  });

  test("every decision is kept with its id, and the log, alerts and counts answer as before", async () => {
    // The schema as it stood before 0107, applied as migrate() does.
    await db.transaction(async (tx) => {
      await tx.query(
        "CREATE TABLE schema_migrations (migration_id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
      );
      for (const migration of listMigrations().filter((m) => m.id < "0107")) {
        for (const statement of splitStatements(migration.sql)) await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (migration_id, applied_at) VALUES ($1, 1)", [
          migration.id,
        ]);
      }
    });
    const random = lcg(108);
    const orgs = ["org_convert000000000001", "org_convert000000000002"];
    let serial = 0;
    const id = (prefix: string) =>
      `${prefix}_cv${String((serial += 1)).padStart(8, "0")}${"AbCdEfGh"[random(8)]}${random(10)}`;
    // 300 groups as 0040's verify wrote them: random ids, mixed keys within a group, instants shared.
    const start = 1_700_000_000_000;
    for (let g = 0; g < 300; g++) {
      const size = 1 + random(9);
      const decisionIds = Array.from({ length: size }, () => id("gdc"));
      await db.query(
        `INSERT INTO gate_decision_groups
           (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [
          orgs[g % 2],
          decisionIds[0],
          start + random(90_000),
          size,
          decisionIds,
          decisionIds.map(() => `cns_cv${String(random(25)).padStart(12, "0")}`),
          decisionIds.map(() => `key_cv${random(2)}`),
          decisionIds.map(() => random(3) !== 0),
        ],
      );
    }
    const now = start + 95_000;
    const settings = { windowMs: 60_000, denyThreshold: 2 };
    // The answers of the log before conversion, read as 0040's view shows it.
    const before = new Map<string, unknown>();
    for (const org of orgs) {
      const rows = await db.query<Record<string, unknown>>(
        `SELECT decision_id AS "decisionId", consent_id AS "consentId", api_key_id AS "apiKeyId", decision, reason,
                decided_at AS "decidedAt"
           FROM gate_decisions WHERE organization_id = $1 ORDER BY decided_at DESC, decision_id DESC`,
        [org],
      );
      const alerts = await db.query<Record<string, unknown>>(
        `SELECT consent_id AS "consentId", count(*)::int AS "denyCount", min(decided_at) AS "firstDeniedAt",
                max(decided_at) AS "lastDeniedAt"
           FROM gate_decisions WHERE organization_id = $1 AND decision = 'deny'
            AND decided_at > $2::bigint AND decided_at <= $3::bigint
          GROUP BY consent_id HAVING count(*) >= 2 ORDER BY max(decided_at) DESC, consent_id DESC`,
        [org, now - settings.windowMs, now],
      );
      const [counts] = await db.query<{ allow: number; deny: number }>(
        `SELECT count(*) FILTER (WHERE decision = 'allow')::int AS allow, count(*) FILTER (WHERE decision = 'deny')::int AS deny
           FROM gate_decisions WHERE organization_id = $1 AND decided_at BETWEEN $2::bigint AND $3::bigint`,
        [org, start + 12_345, start + 67_891],
      );
      assert.ok(rows.length > 200 && alerts.length > 0);
      before.set(org, { rows, alerts, counts });
    }

    assert.deepEqual(await migrate(db), [
      ...listMigrations()
        .filter((m) => m.id >= "0107")
        .map((m) => m.id),
    ]);
    const [dropped] = await db.query<{ name: string | null }>(
      "SELECT to_regclass('gate_decision_groups')::text AS name",
    );
    assert.equal(dropped?.name, null, "the old table is gone");

    for (const stage of ["converted", "compacted"]) {
      if (stage === "compacted") {
        assert.ok((await compactDecisionLog(db, now, 50)) > 0);
        const [left] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM gate_decision_runs");
        assert.equal(left?.n, 0);
      }
      for (const org of orgs) {
        const walked: unknown[] = [];
        let cursor: string | undefined;
        do {
          const page = await listDecisions(db, org, { limit: 37, cursor });
          walked.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        const alerts = await listBypassAlerts(db, org, settings, now, { limit: 500 });
        const counts = await decisionCounts(db, org, { from: start + 12_345, until: start + 67_891 });
        assert.deepEqual({ rows: walked, alerts: alerts.items, counts }, before.get(org), `${stage}: ${org}`);
      }
    }
  });
});
