// The Consent Gate's decision log is stored a run per row, then a block per row (migration 0107).
// This test holds the listing to the log read a row per decision (the gate_decisions view): the
// same decisions, in the same order, whatever the runs' sizes, on either tier, and walked page by
// page by cursor. The bypass alerts, derived from the same log, are paged too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listBypassAlerts, listDecisions, MAX_DECISION_LIMIT } from "../../src/gate/gate.js";
import { compactDecisions, decisionIdOf } from "../../src/gate/store.js";
import { openTestDatabase } from "../support/harness.js";

const OTHER_ORG = "org_logorder0000000002";

/** A small deterministic generator, so a failure can be replayed. */
function lcg(seed: number) {
  let state = seed;
  return (below: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % below;
  };
}

let migrated: Awaited<ReturnType<typeof openTestDatabase>>;
before(async () => {
  migrated = await openTestDatabase();
});
after(() => migrated.dispose());

for (const round of [0, 1])
  test(`the newest N decisions come out newest first, whatever the runs' sizes and shared instants (${round === 0 ? "one instant" : "over 50 s"})`, async () => {
    const { db } = migrated;
    const random = lcg(20_261_123 + round);
    const base = 1_000_000 * (round + 1);
    const ORG = `org_logorder000000000${round}1`;
    let serial = 0;
    const id = (prefix: string) => `${prefix}_log${String((serial += 1)).padStart(10, "0")}${random(10)}`;
    // 120 runs of 1 to 12 decisions for two organisations and three keys, half of them with ids of
    // their own (as runs converted from before 0107 have) and half with derived ids; in the first
    // round decided within 40 ms of each other (many runs share an instant), in the second spread
    // over 50 s (several blocks, blocks beside runs).
    const spread = round === 0 ? 40 : 50_000;
    // What the log must answer, worked out here from what was stored.
    const model: {
      decisionId: string;
      consentId: string;
      apiKeyId: string;
      allowed: boolean;
      decidedAt: number;
    }[] = [];
    for (let g = 0; g < 120; g++) {
      const size = 1 + random(12);
      const legacy = random(2) === 0;
      const decisionIds = Array.from({ length: size }, () => id("gdc"));
      const organizationId = g % 5 === 0 ? OTHER_ORG : ORG;
      const decidedAt = base + random(spread);
      const nonce = 1_000_000 * (round + 1) + g;
      const apiKeyId = `key_log${random(3)}`;
      const consentIds = decisionIds.map(() => id("cns"));
      const allowed = decisionIds.map(() => random(4) !== 0);
      if (organizationId === ORG)
        decisionIds.forEach((decisionId, i) =>
          model.push({
            decisionId: legacy
              ? decisionId
              : decisionIdOf(decidedAt, nonce.toString(16).padStart(16, "0"), i + 1),
            consentId: consentIds[i]!,
            apiKeyId,
            allowed: allowed[i]!,
            decidedAt,
          }),
        );
      await db.query(
        `INSERT INTO gate_decision_runs
         (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed, legacy_decision_ids)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
        [
          organizationId,
          decidedAt,
          String(nonce),
          apiKeyId,
          consentIds,
          allowed,
          legacy ? decisionIds : null,
        ],
      );
    }
    // Both tiers answer the same: first from the runs, then from the blocks compaction made of them
    // (in two passes, so that a bucket holds blocks of both).
    for (const tier of ["runs", "blocks"]) {
      if (tier === "blocks") {
        await compactDecisions(db, base + spread / 2, 100_000);
        await compactDecisions(db, Number.MAX_SAFE_INTEGER, 100_000);
        const [left] = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM gate_decision_runs WHERE organization_id = $1",
          [ORG],
        );
        assert.equal(left?.n, 0, "compacted");
      }
      assert.ok(model.length > MAX_DECISION_LIMIT, "more decisions than one page can show");
      const wire = model
        .sort((a, b) => b.decidedAt - a.decidedAt || (a.decisionId < b.decisionId ? 1 : -1))
        .map((d) => ({
          decisionId: d.decisionId,
          consentId: d.consentId,
          apiKeyId: d.apiKeyId,
          decision: d.allowed ? "allow" : "deny",
          reason: d.allowed ? "consent_active" : "consent_withdrawn",
          decidedAt: d.decidedAt,
        }));
      // The view, read a row per decision, says the same.
      assert.deepEqual(
        await db.query<Record<string, unknown>>(
          `SELECT decision_id AS "decisionId", consent_id AS "consentId", api_key_id AS "apiKeyId", decision, reason,
                  decided_at AS "decidedAt"
             FROM gate_decisions WHERE organization_id = $1 ORDER BY decided_at DESC, decision_id DESC`,
          [ORG],
        ),
        wire,
      );
      for (const limit of [1, 2, 3, 7, 50, 123, MAX_DECISION_LIMIT, 1_000]) {
        const listed = await listDecisions(db, ORG, { limit });
        assert.deepEqual(listed.items, wire.slice(0, Math.min(limit, MAX_DECISION_LIMIT)), `limit ${limit}`);
      }
      // Walking every page by cursor gives the whole log in order, also when a page ends inside a
      // group or between groups sharing an instant.
      for (const limit of [1, 3, 7, 50, MAX_DECISION_LIMIT]) {
        const walked: unknown[] = [];
        let cursor: string | undefined;
        do {
          const page = await listDecisions(db, ORG, { limit, cursor });
          walked.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        assert.deepEqual(walked, wire, `walk with limit ${limit}`);
      }
    }
    assert.deepEqual(await listDecisions(db, "org_logorder0000000003", { limit: 50 }), {
      items: [],
      nextCursor: null,
    });
  });

test("bypass alerts walk page by page, most recently denied first, each once", async () => {
  const { db } = migrated;
  const org = "org_logorder0000000004";
  // 13 consents denied 2 or 3 times each, some last denied at the same instant.
  for (let c = 0; c < 13; c++) {
    const consentId = `cns_alertwalk${String(c).padStart(6, "0")}`;
    for (let d = 0; d < 2 + (c % 2); d++) {
      await db.query(
        `INSERT INTO gate_decision_runs (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [org, 5_000 + (c % 4) * 10 + d, String(c * 10 + d), "key_alertwalk", [consentId], [false]],
      );
    }
  }
  const settings = { windowMs: 60_000, denyThreshold: 2 };
  const fromRuns = await listBypassAlerts(db, org, settings, 6_000, { limit: 500 });
  await compactDecisions(db, Number.MAX_SAFE_INTEGER, 100_000);
  const whole = await listBypassAlerts(db, org, settings, 6_000, { limit: 500 });
  assert.deepEqual(whole, fromRuns, "the same alerts from blocks as from runs");
  assert.equal(whole.items.length, 13);
  assert.equal(whole.nextCursor, null);
  const byRecency = [...whole.items].sort(
    (a, b) => b.lastDeniedAt - a.lastDeniedAt || (a.consentId < b.consentId ? 1 : -1),
  );
  assert.deepEqual(whole.items, byRecency);
  for (const limit of [1, 4, 5]) {
    const walked: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await listBypassAlerts(db, org, settings, 6_000, { limit, cursor });
      walked.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    assert.deepEqual(walked, whole.items, `walk with limit ${limit}`);
  }
  // A cursor of the decision log is not one of the alerts'.
  const logCursor = (await listDecisions(db, org, { limit: 1 })).nextCursor!;
  await assert.rejects(listBypassAlerts(db, org, settings, 6_000, { cursor: logCursor }), {
    code: "VALIDATION_ERROR",
    field: "cursor",
  });
});
