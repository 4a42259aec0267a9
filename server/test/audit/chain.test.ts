// Tamper-evident evidence: every consent event carries the contract audit hash (with its key
// version) and an entry in the organisation's hash chain, appended in the writing transaction.
// Verification walks the chain and recomputes every hash; direct SQL tampering is caught, and
// rotating the audit key leaves old hashes verifiable.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { computeAuditHash } from "@guard/contract";
import { appendAuditEntry, entryHash, GENESIS_HASH } from "../../src/audit/chain.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { readChainPage } from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import { createApp } from "../../src/app.js";
import { ROUTE_MODULES } from "../../src/routes.js";
import {
  anonymousConsent,
  principal,
  parentalToken,
  publishTestNotice,
  recordConsent,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

const KEY_1 = "audit-key-one-audit-key-one-audit-key-one";
const KEY_2 = "audit-key-two-audit-key-two-audit-key-two";

/** An organisation with a little history: given, withdrawn, linked consents and a parental check. */
async function seedHistory(
  t: TestApp,
): Promise<{ seeded: SeededOrg; noticeId: string; consentIds: string[] }> {
  const seeded = await seedOrganization(t);
  const { noticeId } = await publishTestNotice(t, seeded);
  const email = `user-${Math.random().toString(36).slice(2)}@example.com`;
  const user = await principal(t, seeded, email.split("@")[0], email);
  const consentIds: string[] = [];
  for (const purpose of ["Account", "Marketing"]) {
    const res = await recordConsent(t, seeded, { email, noticeId, purpose, dataTypes: ["email", "phone"] });
    consentIds.push(res.json().consentId);
  }
  t.clock.advance(1000);
  await t.request({
    method: "DELETE",
    url: `/cm/v1/consent/${consentIds[1]}`,
    headers: bearer(seeded.apiKey),
  });
  const guest = await anonymousConsent(t, {
    organizationId: seeded.org.organizationId,
    noticeId,
    purpose: "Newsletter",
    dataTypes: ["email"],
    anonymousId: "guest-h",
  });
  consentIds.push(guest.json().consentId);
  await t.request({
    method: "POST",
    url: "/api/v1/link-anonymous-consent",
    headers: bearer(user.accessToken),
    payload: { anonymousId: "guest-h" },
  });
  await t.request({
    method: "POST",
    url: "/api/v1/age/verify-parent",
    headers: bearer(user.accessToken),
    payload: { tokenFromProvider: parentalToken(t, seeded, user.externalId) },
  });
  return { seeded, noticeId, consentIds };
}

describe("audit evidence", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ auditKeys: { 1: KEY_1 } });
  });
  after(() => t.close());

  const verify = (seeded: SeededOrg, keys: Record<number, string> = t.config.auditKeys) =>
    verifyAuditChain(t.db, seeded.org.organizationId, keys);

  test("every consent event is chained, with the contract audit hash under the current key", async () => {
    const { seeded, consentIds } = await seedHistory(t);
    const report = await verify(seeded);
    assert.equal(report.intact, true, JSON.stringify(report.firstBrokenLink));
    assert.equal(report.problemCount, 0);
    // given x3, withdrawn, linked, parental verification
    assert.equal(report.entries, 6);
    assert.equal(report.consentEventsChecked, 5);
    assert.equal(report.consentsChecked, 3);
    assert.equal(report.headSeq, 6);

    const entries = await t.db.query<{
      seq: number;
      entry_type: string;
      prev_hash: string;
      entry_hash: string;
    }>(
      "SELECT seq, entry_type, prev_hash, entry_hash FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
      [seeded.org.organizationId],
    );
    assert.deepEqual(
      entries.map((e) => e.entry_type),
      [
        "consent.given",
        "consent.given",
        "consent.withdrawn",
        "consent.given",
        "consent.linked",
        "parental_verification.recorded",
      ],
    );
    assert.equal(entries[0]!.prev_hash, GENESIS_HASH);
    for (let i = 1; i < entries.length; i++) assert.equal(entries[i]!.prev_hash, entries[i - 1]!.entry_hash);

    // The stored hash is exactly the contract's canonical form under key version 1.
    const [row] = await t.db.query<Record<string, unknown>>(
      `SELECT notice_id, notice_version, purpose, data_types, given_at, source, audit_hash, audit_key_version
         FROM consents WHERE consent_id = $1`,
      [consentIds[0]],
    );
    assert.equal(row!.audit_key_version, 1);
    assert.equal(
      row!.audit_hash,
      computeAuditHash(KEY_1, {
        organizationId: seeded.org.organizationId,
        noticeId: row!.notice_id as string,
        noticeVersion: row!.notice_version as number,
        purpose: "Account",
        dataTypes: ["email", "phone"],
        givenAt: row!.given_at as number,
        source: "direct",
      }),
    );
    // Linking re-hashes with source `linked`.
    const [linked] = await t.db.query<Record<string, unknown>>(
      "SELECT notice_id, notice_version, given_at, audit_hash FROM consents WHERE consent_id = $1",
      [consentIds[2]],
    );
    assert.equal(
      linked!.audit_hash,
      computeAuditHash(KEY_1, {
        organizationId: seeded.org.organizationId,
        noticeId: linked!.notice_id as string,
        noticeVersion: linked!.notice_version as number,
        purpose: "Newsletter",
        dataTypes: ["email"],
        givenAt: linked!.given_at as number,
        source: "linked",
      }),
    );
  });

  test("concurrent writers append to one unforked chain", async () => {
    const seeded = await seedOrganization(t);
    const { noticeId } = await publishTestNotice(t, seeded);
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        anonymousConsent(t, {
          organizationId: seeded.org.organizationId,
          noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: `parallel-${i}`,
        }),
      ),
    );
    for (const res of results) assert.equal(res.statusCode, 201, res.body);
    // The writers queued their entries side by side; the sequencer links them one after another.
    await linkQueuedOf(t.db, seeded.org.organizationId, t.clock.now());
    const seqs = await t.db.query<{ seq: number }>(
      "SELECT seq FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
      [seeded.org.organizationId],
    );
    assert.deepEqual(
      seqs.map((s) => s.seq),
      Array.from({ length: 12 }, (_, i) => i + 1),
    );
    assert.equal((await verify(seeded)).intact, true);
  });

  test("appendAuditEntry is generic: any domain's evidence joins the same chain", async () => {
    const seeded = await seedOrganization(t);
    const organizationId = seeded.org.organizationId;
    const now = t.clock.now();
    const chain = async () => {
      await linkQueuedOf(t.db, organizationId, now);
      return readChainPage(t.db, organizationId, 1, 10);
    };
    const first = await t.db.transaction((tx) =>
      appendAuditEntry(
        tx,
        {
          organizationId: seeded.org.organizationId,
          entryType: "dsr.created",
          subjectId: "dsr_abcdefghij",
          payload: { b: 1, a: "x" },
        },
        now,
      ),
    );
    const [linked] = await chain();
    assert.equal(linked!.seq, 1);
    assert.equal(linked!.entryRef, first.entryRef);
    assert.equal(
      linked!.entryHash,
      entryHash({
        prevHash: GENESIS_HASH,
        seq: 1,
        organizationId: seeded.org.organizationId,
        entryType: "dsr.created",
        subjectId: "dsr_abcdefghij",
        createdAt: now,
        payload: '{"a":"x","b":1}',
      }),
    );
    // A rolled-back writer leaves no entry and no gap.
    await assert.rejects(
      t.db.transaction(async (tx) => {
        await appendAuditEntry(
          tx,
          {
            organizationId: seeded.org.organizationId,
            entryType: "dsr.created",
            subjectId: "dsr_rolledback",
            payload: {},
          },
          now,
        );
        throw new Error("roll back");
      }),
    );
    const second = await t.db.transaction((tx) =>
      appendAuditEntry(
        tx,
        {
          organizationId: seeded.org.organizationId,
          entryType: "dsr.status_changed",
          subjectId: "dsr_abcdefghij",
          payload: {},
        },
        now,
      ),
    );
    const entries = await chain();
    assert.deepEqual(
      entries.map((e) => [e.seq, e.entryRef, e.prevHash]),
      [
        [1, first.entryRef, GENESIS_HASH],
        [2, second.entryRef, linked!.entryHash],
      ],
    );
    // The links verify; entries of a type no checker knows are reported, so a new kind of evidence
    // cannot join the chain without verify checking its records.
    const report = await verify(seeded);
    assert.equal(report.entries, 2);
    assert.deepEqual(
      report.problems.map((p) => [p.table, p.seq, p.reason]),
      [
        ["audit_entries", 1, "entry type dsr.created is not one verify knows how to check"],
        ["audit_entries", 2, "entry type dsr.status_changed is not one verify knows how to check"],
      ],
    );
  });

  // Each case tampers with the history seedHistory made: `kept` was given and stays active,
  // `withdrawn` was given and then withdrawn.
  type Tamper = (org: string, kept: string, withdrawn: string) => [string, unknown[]];
  const tamperCases: { name: string; tamper: Tamper; reason: RegExp }[] = [
    {
      name: "an event's purpose rewritten",
      tamper: (org, kept) => [
        "UPDATE consent_events SET purpose = 'Analytics' WHERE organization_id = $1 AND consent_id = $2 AND event_type = 'given'",
        [org, kept],
      ],
      reason: /differs from what its chain entry recorded/,
    },
    {
      name: "a withdrawal undone on the consent row",
      tamper: (org, _kept, withdrawn) => [
        "UPDATE consents SET withdrawn_at = NULL, withdrawal_reason = NULL WHERE organization_id = $1 AND consent_id = $2",
        [org, withdrawn],
      ],
      reason: /differs from the state its recorded history gives/,
    },
    {
      name: "a consent's data types widened",
      tamper: (org, kept) => [
        `UPDATE consents SET data_types = '["email","phone","location"]'::jsonb WHERE organization_id = $1 AND consent_id = $2`,
        [org, kept],
      ],
      reason: /differs from the state/,
    },
    {
      name: "a chain entry's payload edited",
      tamper: (org) => [
        "UPDATE audit_entries SET payload = replace(payload, 'Account', 'Acc0unt') WHERE organization_id = $1 AND seq = 1",
        [org],
      ],
      reason: /entry_hash does not match/,
    },
    {
      name: "a chain entry deleted",
      tamper: (org) => ["DELETE FROM audit_entries WHERE organization_id = $1 AND seq = 2", [org]],
      reason: /missing|no matching entry|prev_hash/,
    },
    {
      name: "an event deleted",
      tamper: (org, _kept, withdrawn) => [
        "DELETE FROM consent_events WHERE organization_id = $1 AND consent_id = $2 AND event_type = 'withdrawn'",
        [org, withdrawn],
      ],
      reason: /missing from consent_events|differs from the state/,
    },
    {
      name: "the chain's tail cut off",
      tamper: (org) => ["DELETE FROM audit_entries WHERE organization_id = $1 AND seq = 6", [org]],
      reason: /chain head/,
    },
  ];
  for (const c of tamperCases) {
    test(`tampering caught: ${c.name}`, async () => {
      const { seeded, consentIds } = await seedHistory(t);
      assert.equal((await verify(seeded)).intact, true);
      const [sql, params] = c.tamper(seeded.org.organizationId, consentIds[0]!, consentIds[1]!);
      await t.db.query(sql, params);
      const report = await verify(seeded);
      assert.equal(report.intact, false);
      assert.match(report.firstBrokenLink!.reason, c.reason);
      assert.ok(report.firstBrokenLink!.seq !== null && report.firstBrokenLink!.seq >= 1);
    });
  }

  test("tampering caught: everything rewritten consistently, chain rehashed, but the keyed hash cannot be forged", async () => {
    const { seeded, consentIds } = await seedHistory(t);
    const org = seeded.org.organizationId;
    await linkQueuedOf(t.db, org, t.clock.now());
    // The attacker has the database, not the audit key: rewrite the purpose everywhere and rebuild the chain.
    await t.db.query("UPDATE consents SET purpose = 'Newsletter2' WHERE consent_id = $1", [consentIds[0]]);
    await t.db.query("UPDATE consent_events SET purpose = 'Newsletter2' WHERE consent_id = $1", [
      consentIds[0],
    ]);
    const entries = await t.db.query<{
      seq: number;
      entry_type: string;
      subject_id: string;
      payload: string;
      created_at: number;
    }>(
      "SELECT seq, entry_type, subject_id, payload, created_at FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
      [org],
    );
    let prev = GENESIS_HASH;
    for (const e of entries) {
      const payload =
        e.subject_id === consentIds[0]
          ? e.payload.replace('"purpose":"Account"', '"purpose":"Newsletter2"')
          : e.payload;
      const hash = entryHash({
        prevHash: prev,
        seq: e.seq,
        organizationId: org,
        entryType: e.entry_type,
        subjectId: e.subject_id,
        createdAt: e.created_at,
        payload,
      });
      await t.db.query(
        "UPDATE audit_entries SET payload = $3, prev_hash = $4, entry_hash = $5 WHERE organization_id = $1 AND seq = $2",
        [org, e.seq, payload, prev, hash],
      );
      prev = hash;
    }
    await t.db.query("UPDATE audit_chain_heads SET last_hash = $2 WHERE organization_id = $1", [org, prev]);
    const report = await verify(seeded);
    assert.equal(report.intact, false);
    assert.match(report.firstBrokenLink!.reason, /audit hash does not match/);
    assert.equal(report.firstBrokenLink!.table, "consent_events");
    assert.ok(
      report.problems.some((p) => p.table === "consents" && p.recordId === consentIds[0]),
      JSON.stringify(report.problems),
    );
  });

  test("key rotation: new hashes use the new version, old ones still verify by theirs", async () => {
    const { seeded, noticeId, consentIds } = await seedHistory(t);
    // The same database served with keys {1, 2}: new events hash with version 2.
    const rotated = await createApp({
      config: testConfig({ auditKeys: { 1: KEY_1, 2: KEY_2 } }),
      db: t.db,
      clock: t.clock,
      routes: ROUTE_MODULES,
      checkResponses: true,
    });
    try {
      await rotated.inject({
        method: "DELETE",
        url: `/cm/v1/consent/${consentIds[0]}`,
        headers: bearer(seeded.apiKey),
      });
      const fresh = await rotated.inject({
        method: "POST",
        url: "/api/v1/consents/anonymous",
        payload: {
          organizationId: seeded.org.organizationId,
          noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: "after-rotation",
        },
      });
      assert.equal(fresh.statusCode, 201, fresh.body);
      const versions = await t.db.query<{ consent_id: string; audit_key_version: number }>(
        "SELECT consent_id, audit_key_version FROM consents WHERE organization_id = $1",
        [seeded.org.organizationId],
      );
      const byId = Object.fromEntries(versions.map((v) => [v.consent_id, v.audit_key_version]));
      assert.equal(byId[consentIds[0]!], 1, "a withdrawal does not re-hash");
      assert.equal(byId[fresh.json().consentId], 2);

      const both = await verify(seeded, { 1: KEY_1, 2: KEY_2 });
      assert.equal(both.intact, true, JSON.stringify(both.firstBrokenLink));
      const withoutOld = await verify(seeded, { 2: KEY_2 });
      assert.equal(withoutOld.intact, false);
      assert.match(withoutOld.firstBrokenLink!.reason, /audit key version 1 is not configured/);
      const wrongOld = await verify(seeded, { 1: "not-the-key-not-the-key-not-the-key", 2: KEY_2 });
      assert.match(wrongOld.firstBrokenLink!.reason, /audit hash does not match/);
    } finally {
      await rotated.close();
    }
  });
});
