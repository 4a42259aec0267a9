// The Consent Gate's decision log is stored a group per row (migration 0040). This test holds the
// listing to the log read a row per decision (the gate_decisions view): the same decisions, in the
// same order, whatever the groups' sizes, and walked page by page by cursor. The bypass alerts,
// derived from the same log, are paged too.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { listBypassAlerts, listDecisions, MAX_DECISION_LIMIT } from "../../src/gate/gate.js";
import { openTestDatabase } from "../support/harness.js";

const ORG = "org_logorder0000000001";
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

test("the newest N decisions come out newest first, whatever the groups' sizes and shared instants", async () => {
  const { db } = migrated;
  const random = lcg(20_261_123);
  let serial = 0;
  const id = (prefix: string) => `${prefix}_log${String((serial += 1)).padStart(10, "0")}${random(10)}`;
  // 120 groups of 1 to 12 decisions, decided within 40 ms of each other (many groups share an
  // instant), for two organisations.
  for (let g = 0; g < 120; g++) {
    const size = 1 + random(12);
    const decisionIds = Array.from({ length: size }, () => id("gdc"));
    await db.query(
      `INSERT INTO gate_decision_groups
         (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        g % 5 === 0 ? OTHER_ORG : ORG,
        [...decisionIds].sort()[0],
        1_000 + random(40),
        size,
        decisionIds,
        decisionIds.map(() => id("cns")),
        decisionIds.map(() => `key_log${random(3)}`),
        decisionIds.map(() => random(4) !== 0),
      ],
    );
  }
  const expected = await db.query<{
    decision_id: string;
    consent_id: string;
    api_key_id: string;
    decision: string;
    reason: string;
    decided_at: number;
  }>(
    `SELECT decision_id, consent_id, api_key_id, decision, reason, decided_at FROM gate_decisions
      WHERE organization_id = $1 ORDER BY decided_at DESC, decision_id DESC`,
    [ORG],
  );
  assert.ok(expected.length > MAX_DECISION_LIMIT, "more decisions than one page can show");
  const wire = expected.map((r) => ({
    decisionId: r.decision_id,
    consentId: r.consent_id,
    apiKeyId: r.api_key_id,
    decision: r.decision,
    reason: r.reason,
    decidedAt: r.decided_at,
  }));
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
      const decisionId = `gdc_alertwalk${String(c).padStart(4, "0")}${d}`;
      await db.query(
        `INSERT INTO gate_decision_groups
           (organization_id, group_id, decided_at, decision_count, decision_ids, consent_ids, api_key_ids, allowed)
         VALUES ($1, $2, $3, 1, $4, $5, $6, $7)`,
        [org, decisionId, 5_000 + (c % 4) * 10 + d, [decisionId], [consentId], ["key_alertwalk"], [false]],
      );
    }
  }
  const settings = { windowMs: 60_000, denyThreshold: 2 };
  const whole = await listBypassAlerts(db, org, settings, 6_000, { limit: 500 });
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
