// Anonymous capture as a group commit (db/write-group.ts, consent/capture-group.ts): captures sent
// together are written together, and every capture gets exactly the answer it would have had alone:
// a repeat in the same group is ALREADY_CONSENTED, a repeated key replays, a reused key with another
// body conflicts, a reconsent closes the old consent; the chain, events and webhook events are all
// there; a group whose transaction fails writes each capture alone.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { ALONE, WriteGroup } from "../../src/db/write-group.js";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  principal,
  publishTestNotice,
  recordConsent,
  webhookEvents,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("anonymous capture in groups", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let otherNoticeId: string;
  const body = (anonymousId: string, overrides: Record<string, unknown> = {}) => ({
    organizationId: acme.org.organizationId,
    noticeId,
    purpose: "Marketing",
    dataTypes: ["email"],
    anonymousId,
    ...overrides,
  });

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    otherNoticeId = (await publishTestNotice(t, other)).noticeId;
  });
  after(() => t.close());

  test("a burst of captures of two organisations, keyed and not, is fully evidenced", async () => {
    const burst = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 3
        ? anonymousConsent(t, {
            organizationId: other.org.organizationId,
            noticeId: otherNoticeId,
            purpose: "Marketing",
            dataTypes: ["email"],
            anonymousId: `burst-${i}`,
          })
        : anonymousConsent(t, body(`burst-${i}`), i % 2 === 0 ? { "idempotency-key": `burst-key-${i}` } : {}),
    );
    const answers = await Promise.all(burst);
    for (const res of answers) assert.equal(res.statusCode, 201, res.body);
    const ids = answers.map((res) => res.json().consentId as string);
    assert.equal(new Set(ids).size, 40);
    for (const seeded of [acme, other]) {
      const report = await verifyAuditChain(t.db, seeded.org.organizationId, t.config.auditKeys);
      assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
      assert.equal(report.problemCount, 0);
    }
    const given = (await webhookEvents(t, acme)).filter((e) => e.event_type === "consent.given");
    assert.equal(
      given.filter((e) => ids.includes((e.payload as { consentId: string }).consentId)).length,
      30,
    );
    const [events] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consent_events WHERE event_type = 'given' AND consent_id = ANY($1)",
      [ids],
    );
    assert.equal(events!.n, 40);
    // The keyed answers were recorded: a retry replays the same consent.
    const retry = await anonymousConsent(t, body("burst-0"), { "idempotency-key": "burst-key-0" });
    assert.equal(retry.statusCode, 201);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.equal(retry.json().consentId, ids[0]);
  });

  test("the same guest twice in one group: one consent, and ALREADY_CONSENTED for the other", async () => {
    const [a, b] = await Promise.all([
      anonymousConsent(t, body("twice")),
      anonymousConsent(t, body("twice")),
    ]);
    const statuses = [a!.statusCode, b!.statusCode].sort();
    assert.deepEqual(statuses, [201, 400]);
    assert.equal([a!, b!].find((res) => res.statusCode === 400)!.json().code, "ALREADY_CONSENTED");
    const [consents] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consents WHERE anonymous_id = 'twice' AND organization_id = $1",
      [acme.org.organizationId],
    );
    assert.equal(consents!.n, 1);
  });

  test("one key twice in one group replays; one key with another body conflicts", async () => {
    const key = { "idempotency-key": "group-key-1" };
    const [a, b] = await Promise.all([
      anonymousConsent(t, body("keyed"), key),
      anonymousConsent(t, body("keyed"), key),
    ]);
    assert.equal(a!.statusCode, 201, a!.body);
    assert.equal(b!.statusCode, 201, b!.body);
    assert.equal(a!.json().consentId, b!.json().consentId);
    assert.deepEqual([a!.headers["idempotent-replayed"], b!.headers["idempotent-replayed"]].filter(Boolean), [
      "true",
    ]);

    const other = { "idempotency-key": "group-key-2" };
    const [c, d] = await Promise.all([
      anonymousConsent(t, body("keyed-c"), other),
      anonymousConsent(t, body("keyed-d"), other),
    ]);
    assert.deepEqual([c!.statusCode, d!.statusCode].sort(), [201, 409]);
    assertApiError(
      [c!, d!].find((res) => res.statusCode === 409)!,
      409,
      "CONFLICT",
    );
  });

  test("a reconsent to a newer version in a group closes the old consent, as alone", async () => {
    const first = await anonymousConsent(t, body("reconsent"));
    assert.equal(first.statusCode, 201);
    const republished = await publishTestNotice(t, acme, { title: "How we use your data, revised" });
    assert.equal(republished.noticeId, noticeId);
    assert.equal(republished.version, 2);
    const [again, fresh] = await Promise.all([
      anonymousConsent(t, body("reconsent")),
      anonymousConsent(t, body("reconsent-fresh")),
    ]);
    assert.equal(again!.statusCode, 201, again!.body);
    assert.equal(fresh!.statusCode, 201, fresh!.body);
    const [old] = await t.db.query<{ withdrawal_reason: string }>(
      "SELECT withdrawal_reason FROM consents WHERE consent_id = $1",
      [first.json().consentId],
    );
    assert.equal(old!.withdrawal_reason, "reconsented");
    const report = await verifyAuditChain(t.db, acme.org.organizationId, t.config.auditKeys);
    assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
  });
});

describe("/cm/v1 consents and withdrawals in groups", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let noticeId: string;
  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());

  test("principals' consents, a repeat among them, then their withdrawals and a double withdrawal", async () => {
    const emails: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const email = `cm-group-${i}@example.com`;
      await principal(t, acme, `cm-group-${i}`, email);
      emails.push(email);
    }
    const consent = (email: string) =>
      recordConsent(t, acme, { email, noticeId, purpose: "Marketing", dataTypes: ["email"] });
    const given = await Promise.all([...emails.map(consent), consent(emails[0]!)]);
    assert.deepEqual(given.map((res) => res.statusCode).sort(), [201, 201, 201, 201, 201, 201, 409]);
    const ids = given.filter((res) => res.statusCode === 201).map((res) => res.json().consentId as string);
    const withdraw = (consentId: string) =>
      t.request({ method: "DELETE", url: `/cm/v1/consent/${consentId}`, headers: bearer(acme.apiKey) });
    const withdrawn = await Promise.all([
      ...ids.map(withdraw),
      withdraw(ids[0]!),
      withdraw("cns_unknown000000000000"),
    ]);
    // The same consent twice: one withdraws it, the other finds it withdrawn; an unknown id is 404.
    assert.deepEqual(
      withdrawn.map((res) => res.statusCode).sort((a, b) => a - b),
      [200, 200, 200, 200, 200, 200, 404, 409],
    );
    assert.equal(withdrawn[7]!.statusCode, 404);
    const [events] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consent_events WHERE event_type = 'withdrawn' AND consent_id = ANY($1)",
      [ids],
    );
    assert.equal(events!.n, 6);
    const report = await verifyAuditChain(t.db, acme.org.organizationId, t.config.auditKeys);
    assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
    assert.equal(report.problemCount, 0);
  });
  test("withdrawals of two organisations in one burst: each answers its own consent; another's id is 404", async () => {
    const other = await seedOrganization(t);
    const otherNotice = (await publishTestNotice(t, other)).noticeId;
    const give = async (org: SeededOrg, notice: string, i: number) => {
      const email = `cm-two-${org.org.slug}-${i}@example.com`;
      await principal(t, org, `cm-two-${i}`, email);
      const res = await recordConsent(t, org, {
        email,
        noticeId: notice,
        purpose: "Marketing",
        dataTypes: ["email"],
      });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().consentId as string;
    };
    const here: string[] = [];
    const there: string[] = [];
    for (let i = 0; i < 4; i += 1) {
      here.push(await give(acme, noticeId, i));
      there.push(await give(other, otherNotice, i));
    }
    const withdraw = (org: SeededOrg, consentId: string) =>
      t.request({ method: "DELETE", url: `/cm/v1/consent/${consentId}`, headers: bearer(org.apiKey) });
    const answers = await Promise.all([
      ...here.map((id) => withdraw(acme, id)),
      ...there.map((id) => withdraw(other, id)),
      withdraw(acme, there[0]!),
    ]);
    for (const [i, res] of answers.slice(0, 8).entries()) {
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.json().consentId, [...here, ...there][i]);
      assert.equal(res.json().status, "withdrawn");
    }
    assertApiError(answers[8]!, 404, "NOT_FOUND");
    for (const [org, ids] of [
      [acme, here],
      [other, there],
    ] as const) {
      const [events] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM webhook_events
          WHERE organization_id = $1 AND event_type = 'consent.withdrawn' AND payload->>'consentId' = ANY($2)`,
        [org.org.organizationId, ids],
      );
      assert.equal(events!.n, 4);
      const report = await verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys);
      assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
      assert.equal(report.problemCount, 0);
    }
  });
});

describe("write groups", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("items submitted together are written as one group", async () => {
    const groups: number[][] = [];
    const group = new WriteGroup<number, number>(t.db, t.clock, {
      async write(_tx, items) {
        groups.push([...items]);
        return items.map((n) => n * 2);
      },
    });
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map((n) => group.submit(n)));
    assert.deepEqual(groups, [[1, 2, 3, 4, 5]]);
    assert.deepEqual(
      outcomes,
      [2, 4, 6, 8, 10].map((value) => ({ written: true, value })),
    );
  });

  test("an item answered ALONE, or every item of a failed group, is left to be written alone", async () => {
    const declining = new WriteGroup<number, number>(t.db, t.clock, {
      write: async (_tx, items) => items.map((n) => (n % 2 === 0 ? ALONE : n)),
    });
    const outcomes = await Promise.all([1, 2, 3].map((n) => declining.submit(n)));
    assert.deepEqual(outcomes, [
      { written: true, value: 1 },
      { written: false },
      { written: true, value: 3 },
    ]);

    // A key held elsewhere rolls the whole group back (its writes included): every item goes alone.
    await t.db.query("CREATE TABLE IF NOT EXISTS group_probe (n int)");
    const held = new WriteGroup<number, number>(t.db, t.clock, {
      async write(tx, items) {
        for (const n of items) await tx.query("INSERT INTO group_probe VALUES ($1)", [n]);
        return [...items];
      },
    });
    const keys = {
      identity: (key: string) => key,
      claimAnswered: async (_tx: unknown, answers: readonly { key: string }[]) =>
        answers.map(({ key }) => key !== "held"),
    };
    assert.deepEqual(
      await Promise.all([
        held.submit(1, { key: "free", keys }),
        held.submit(2, { key: "held", keys }),
        held.submit(3),
      ]),
      [{ written: false }, { written: false }, { written: false }],
    );
    const [probe] = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM group_probe");
    assert.equal(probe!.n, 0, "the group's writes were rolled back");

    const failing = new WriteGroup<number, number>(t.db, t.clock, {
      async write(tx) {
        await tx.query("SELECT 1 / 0");
        return [];
      },
    });
    assert.deepEqual(await Promise.all([1, 2].map((n) => failing.submit(n))), [
      { written: false },
      { written: false },
    ]);
  });
});
