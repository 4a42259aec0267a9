// DSR and grievance filings in group commits (db/write-group.ts): filings sent together are written
// in one transaction, each with its transition, chain entry and webhook event; a bad filing in the
// group fails alone, a repeated key replays, and the chain stays intact.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { DSR, GRIEVANCES, outboxEvents, principalToken } from "../support/rights-helpers.js";

describe("DSR and grievance filings in groups", () => {
  let t: TestApp;
  let seeded: SeededOrg;
  before(async () => {
    t = await startTestApp();
    seeded = await seedOrganization(t);
  });
  after(() => t.close());

  const file = (url: string, token: string, payload: Record<string, unknown>, key?: string) =>
    t.request({
      method: "POST",
      url,
      headers: { ...bearer(token), ...(key ? { "idempotency-key": key } : {}) },
      payload: { organizationId: seeded.org.organizationId, ...payload },
    });

  test("a burst with one blank filing: the others are filed, the blank one is a 400 of its own", async () => {
    const alice = await principalToken(t, seeded, "group-alice");
    const bob = await principalToken(t, seeded, "group-bob");
    const answers = await Promise.all([
      ...Array.from({ length: 12 }, (_, i) =>
        file(DSR, i % 2 ? alice : bob, { type: "summary", details: `request ${i}` }, `dsr-key-${i}`),
      ),
      file(DSR, alice, { type: "erasure", details: "   " }),
      ...Array.from({ length: 8 }, (_, i) =>
        file(GRIEVANCES, bob, { subject: `Grievance ${i}`, description: "Filed in a burst." }),
      ),
      file(GRIEVANCES, alice, { subject: "Blank", description: " " }),
    ]);
    const statuses = answers.map((res) => res.statusCode);
    assert.deepEqual(statuses, [...Array(12).fill(201), 400, ...Array(8).fill(201), 400]);
    assert.equal(answers[12]!.json().code, "VALIDATION_ERROR");
    assert.equal(answers[21]!.json().code, "VALIDATION_ERROR");
    const requestIds = answers.slice(0, 12).map((res) => res.json().requestId as string);
    assert.equal(new Set(requestIds).size, 12);
    const created = await outboxEvents(t.db, seeded.org.organizationId, "dsr.created");
    assert.equal(created.length, 12);
    assert.equal((await outboxEvents(t.db, seeded.org.organizationId, "grievance.created")).length, 8);
    const report = await verifyAuditChain(t.db, seeded.org.organizationId, t.config.auditKeys);
    assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
    assert.equal(report.problemCount, 0);

    // Keyed answers were recorded in the group: retries replay them, twice at once too.
    const retries = await Promise.all(
      [0, 0, 1].map((i) =>
        file(DSR, i % 2 ? alice : bob, { type: "summary", details: `request ${i}` }, `dsr-key-${i}`),
      ),
    );
    for (const [j, res] of retries.entries()) {
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers["idempotent-replayed"], "true");
      assert.equal(res.json().requestId, requestIds[[0, 0, 1][j]!]);
    }
  });
  test("filings of two organisations in one burst: each answer is its own filing, each chain and outbox its own", async () => {
    const other = await seedOrganization(t);
    const here = await principalToken(t, seeded, "group-here");
    const there = await principalToken(t, other, "group-there");
    const fileIn = (org: SeededOrg, token: string, url: string, payload: Record<string, unknown>) =>
      t.request({
        method: "POST",
        url,
        headers: bearer(token),
        payload: { organizationId: org.org.organizationId, ...payload },
      });
    const before = (await outboxEvents(t.db, seeded.org.organizationId, "dsr.created")).length;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2
          ? fileIn(other, there, DSR, { type: "correction", details: `there ${i}` })
          : fileIn(seeded, here, DSR, { type: "summary", details: `here ${i}` }),
      ),
    );
    for (const [i, res] of answers.entries()) {
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json();
      assert.equal(body.organizationId, (i % 2 ? other : seeded).org.organizationId);
      assert.equal(body.externalId, i % 2 ? "group-there" : "group-here");
      assert.equal(body.requestDetails, i % 2 ? `there ${i}` : `here ${i}`);
    }
    const thereEvents = await outboxEvents(t.db, other.org.organizationId, "dsr.created");
    assert.deepEqual(
      thereEvents.map((e) => e.payload.requestId).sort(),
      answers
        .filter((_, i) => i % 2)
        .map((res) => res.json().requestId)
        .sort(),
    );
    assert.equal((await outboxEvents(t.db, seeded.org.organizationId, "dsr.created")).length, before + 8);
    for (const org of [seeded, other]) {
      const report = await verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys);
      assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
      assert.equal(report.problemCount, 0);
    }
  });
});
