// The log-retention job on the audit chain, with an injected clock: nothing younger than a year is
// ever purged; a purge past the policy removes exactly the entries no kept record needs, leaves a
// checkpoint and an `audit.purged` entry, and the chain still verifies; a second purge is a no-op;
// tampering after a purge (a kept entry, the checkpoint, a kept row) is still found.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createOrganization } from "../../src/accounts/organizations.js";
import { purgeAuditChain, MINIMUM_LOG_RETENTION_MS } from "../../src/audit/purge.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { allCheckpoints, readChainHead, readChainPage } from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { ManualClock } from "../../src/lib/clock.js";
import { Failure } from "../../src/lib/failure.js";
import { readLogRetentionPolicy, setLogRetentionPolicy } from "../../src/log-retention/policy.js";
import { monthStart } from "../../src/log-retention/partitions.js";
import { purgeOrganizationLogs, runLogRetentionSweep } from "../../src/log-retention/purge.js";
import { setResponsePeriods } from "../../src/rights/settings.js";
import { updateOrganizationSettings } from "../../src/settings/organization-settings.js";
import { openTestDatabase } from "../support/harness.js";
import { DAY, history, STAFF, type History } from "./fixtures.js";

const config = testConfig();
const keys = config.auditKeys;

const seqs = async (db: Database, organizationId: string) =>
  (await readChainPage(db, organizationId, 1, 1000)).map((e) => e.seq);

describe("log retention: purging the audit chain", () => {
  let db: Database;
  let dispose: () => Promise<void>;
  let clock: ManualClock;
  before(async () => {
    ({ db, dispose } = await openTestDatabase());
    clock = new ManualClock(Date.UTC(2025, 0, 1));
  });
  after(() => dispose());

  test("the policy refuses less than a year, naming the class; the default keeps everything forever", async () => {
    const org = await createOrganization(db, { slug: "policy", name: "Policy" }, clock.now());
    const policy = await readLogRetentionPolicy(db, org.organizationId);
    for (const logClass of Object.values(policy)) assert.equal(logClass.retainDays, null);
    for (const [field, value] of [
      ["auditEntries", 364],
      ["consentEvents", 0],
      ["webhookDeliveries", -400],
      ["gateDecisions", 400.5],
      ["gateDecisions", "a year"],
      ["auditEntries", 36_501],
      ["auditLog", 400],
    ] as const) {
      await assert.rejects(
        db.transaction((tx) =>
          setLogRetentionPolicy(tx, org.organizationId, { [field]: value }, "test", clock.now()),
        ),
        (error: unknown) =>
          error instanceof Failure && error.code === "VALIDATION_ERROR" && error.field === field,
        `${field} = ${value}`,
      );
    }
    // All or nothing: a valid class beside an invalid one is not stored either.
    await assert.rejects(
      db.transaction((tx) =>
        setLogRetentionPolicy(
          tx,
          org.organizationId,
          { auditEntries: 400, consentEvents: 10 },
          "test",
          clock.now(),
        ),
      ),
    );
    assert.equal((await readLogRetentionPolicy(db, org.organizationId)).audit_entries.retainDays, null);
    const set = await db.transaction((tx) =>
      setLogRetentionPolicy(
        tx,
        org.organizationId,
        { auditEntries: "365", webhookDeliveries: 730, consentEvents: "forever" },
        "test",
        clock.now(),
      ),
    );
    assert.equal(set.audit_entries.retainDays, 365);
    assert.equal(set.webhook_deliveries.retainDays, 730);
    assert.equal(set.consent_events.retainDays, null);
    assert.equal(set.audit_entries.updatedBy, "test");
    // Without a policy the job purges nothing, however old the logs.
    const none = await purgeOrganizationLogs(db, org.organizationId, { now: clock.now(), keys });
    assert.equal(none.classes.consentEvents!.status, "kept_forever");
  });

  test("nothing younger than a year is purged, whatever cutoff is asked for", async () => {
    const h = await history(db, clock, keys, "young");
    const before = await seqs(db, h.organizationId);
    // Day 364 after the oldest entry: everything is younger than a year.
    const now = h.createdAt.get(1)! + MINIMUM_LOG_RETENTION_MS - 1;
    for (const cutoff of [now, now + 10 * DAY]) {
      const result = await purgeAuditChain(db, h.organizationId, { cutoff, now, keys });
      assert.equal(result.status, "nothing_to_purge");
      assert.ok(result.cutoff <= now - MINIMUM_LOG_RETENTION_MS);
    }
    assert.deepEqual(await seqs(db, h.organizationId), before);
    assert.deepEqual(await allCheckpoints(db, h.organizationId), []);
  });

  test("a purge past the policy removes exactly the entries no kept record needs, and the chain verifies", async () => {
    const h = await history(db, clock, keys, "purged");
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, h.organizationId, { auditEntries: 365 }, "test", clock.now()),
    );
    // Day 500: entries 1..5 (day 0) are past the policy, entry 6 (day 200) is not.
    const now = h.createdAt.get(1)! + 500 * DAY;
    clock.set(now);

    const dry = await purgeOrganizationLogs(db, h.organizationId, { now, keys, dryRun: true });
    const dryAudit = dry.classes.auditEntries!;
    assert.equal(dryAudit.status, "purged");
    assert.ok("throughSeq" in dryAudit);
    assert.equal(dryAudit.throughSeq, 3);
    assert.deepEqual(await seqs(db, h.organizationId), [1, 2, 3, 4, 5, 6], "a dry run purges nothing");
    assert.deepEqual(await allCheckpoints(db, h.organizationId), []);

    const report = await purgeOrganizationLogs(db, h.organizationId, { now, keys });
    const audit = report.classes.auditEntries!;
    assert.ok("throughSeq" in audit);
    assert.equal(audit.status, "purged");
    assert.equal(audit.eligibleThroughSeq, 5);
    // 1, 2: settings changes superseded by 6; 3: a periods change superseded by 4. Entry 4 (the
    // periods in force) and 5 (a consent still held) are needed, so the purge stops before 4.
    assert.equal(audit.fromSeq, 1);
    assert.equal(audit.throughSeq, 3);
    assert.equal(audit.entriesPurged, 3);
    assert.equal(audit.heldFromSeq, 4);
    assert.equal(report.classes.consentEvents!.status, "kept_forever");

    const entries = await readChainPage(db, h.organizationId, 1, 100);
    assert.deepEqual(
      entries.map((e) => [e.seq, e.entryType]),
      [
        [4, "rights.response_periods_changed"],
        [5, "consent.given"],
        [6, "organization.settings_changed"],
        [7, "audit.purged"],
      ],
    );
    const [checkpoint] = await allCheckpoints(db, h.organizationId);
    assert.equal(checkpoint!.throughSeq, 3);
    assert.equal(checkpoint!.throughHash, entries[0]!.prevHash);
    assert.equal(checkpoint!.entrySeq, 7);
    const payload = JSON.parse(entries[3]!.payload) as Record<string, unknown>;
    assert.deepEqual(payload, {
      checkpointId: checkpoint!.checkpointId,
      // The month is the unit: the cutoff is the start of the month holding now minus the period.
      cutoff: monthStart(now - 365 * DAY),
      entriesPurged: 3,
      fromSeq: 1,
      throughHash: checkpoint!.throughHash,
      throughSeq: 3,
    });
    const verified = await verifyAuditChain(db, h.organizationId, keys, { now });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    assert.equal(verified.fromSeq, 4);
    assert.equal(verified.entries, 4);
    assert.equal(verified.rowsChecked.audit_chain_checkpoints, 1);

    // Twice is a no-op: the same entries are still needed.
    const again = await purgeOrganizationLogs(db, h.organizationId, { now: now + DAY, keys });
    assert.equal(again.classes.auditEntries!.status, "nothing_to_purge");
    assert.deepEqual(await seqs(db, h.organizationId), [4, 5, 6, 7]);
    assert.equal((await allCheckpoints(db, h.organizationId)).length, 1);
    assert.equal((await readChainHead(db, h.organizationId))!.lastSeq, 7);
  });

  test("a later purge supersedes the first checkpoint and takes the first purge's entry with it", async () => {
    const h = await history(db, clock, keys, "twice");
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, h.organizationId, { auditEntries: 365 }, "test", clock.now()),
    );
    const day0 = h.createdAt.get(1)!;
    clock.set(day0 + 400 * DAY);
    await purgeOrganizationLogs(db, h.organizationId, { now: clock.now(), keys }); // 1..3, entry 7
    // New periods supersede entry 4; new settings supersede entry 6.
    clock.advance(DAY);
    await db.transaction((tx) =>
      setResponsePeriods(
        tx,
        { organizationId: h.organizationId, dsrResponseDays: 30, grievanceResponseDays: 30, actor: STAFF },
        clock.now(),
      ),
    ); // seq 8
    await db.transaction((tx) =>
      updateOrganizationSettings(
        tx,
        { organizationId: h.organizationId, patch: { blockTrackingForChildren: false }, actor: STAFF },
        clock.now(),
      ),
    ); // seq 9
    await linkQueuedOf(db, h.organizationId, clock.now());
    // Day 900: 4..9 are past the policy; 5 (the consent), 8 and 9 (in force) are still needed.
    const now = day0 + 900 * DAY;
    const report = await purgeOrganizationLogs(db, h.organizationId, { now, keys });
    const audit = report.classes.auditEntries!;
    assert.ok("throughSeq" in audit);
    assert.equal(audit.status, "purged");
    assert.equal(audit.fromSeq, 4);
    assert.equal(audit.throughSeq, 4);
    assert.equal(audit.heldFromSeq, 5);
    assert.equal(audit.eligibleThroughSeq, 9);
    assert.deepEqual(await seqs(db, h.organizationId), [5, 6, 7, 8, 9, 10]);
    // Entry 7 (the first purge) is kept, so its checkpoint is too; the newest is where verify starts.
    assert.deepEqual(
      (await allCheckpoints(db, h.organizationId)).map((c) => [c.throughSeq, c.entrySeq]),
      [
        [3, 7],
        [4, 10],
      ],
    );
    const verified = await verifyAuditChain(db, h.organizationId, keys, { now });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    assert.equal(verified.fromSeq, 5);
  });

  test("the sweep purges every organisation with a period set, and only those", async () => {
    const kept = await history(db, clock, keys, "sweep-kept");
    const swept = await history(db, clock, keys, "sweep-purged");
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, swept.organizationId, { auditEntries: 400 }, "test", clock.now()),
    );
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, kept.organizationId, { auditEntries: "forever" }, "test", clock.now()),
    );
    const now = swept.createdAt.get(1)! + 600 * DAY;
    const reports = await runLogRetentionSweep(db, { now, keys });
    const mine = reports.filter((r) =>
      [kept.organizationId, swept.organizationId].includes(r.organizationId),
    );
    assert.deepEqual(
      mine.map((r) => r.organizationId),
      [swept.organizationId],
    );
    assert.deepEqual(await seqs(db, kept.organizationId), [1, 2, 3, 4, 5, 6]);
    assert.deepEqual(await seqs(db, swept.organizationId), [4, 5, 6, 7]);
  });

  test("two purges at once (two instances' sweeps): one purges, the other finds it busy or done", async () => {
    const h = await history(db, clock, keys, "concurrent");
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, h.organizationId, { auditEntries: 365 }, "test", clock.now()),
    );
    const now = h.createdAt.get(1)! + 500 * DAY;
    const results = await Promise.all([
      purgeAuditChain(db, h.organizationId, { cutoff: now - 365 * DAY, now, keys }),
      purgeAuditChain(db, h.organizationId, { cutoff: now - 365 * DAY, now, keys }),
    ]);
    const statuses = results.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === "purged").length, 1, JSON.stringify(statuses));
    assert.ok(["busy", "nothing_to_purge"].includes(statuses.find((s) => s !== "purged")!));
    assert.equal((await allCheckpoints(db, h.organizationId)).length, 1);
    assert.deepEqual(await seqs(db, h.organizationId), [4, 5, 6, 7]);
    const verified = await verifyAuditChain(db, h.organizationId, keys, { now });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
  });

  test("a chain that does not verify is not purged", async () => {
    const h = await history(db, clock, keys, "broken");
    await db.query(
      "UPDATE audit_entries SET payload = payload || ' ' WHERE organization_id = $1 AND seq = 2",
      [h.organizationId],
    );
    const now = h.createdAt.get(1)! + 500 * DAY;
    const result = await purgeAuditChain(db, h.organizationId, { cutoff: now - 365 * DAY, now, keys });
    assert.equal(result.status, "chain_broken");
    assert.deepEqual(await seqs(db, h.organizationId), [1, 2, 3, 4, 5, 6]);
  });

  describe("tampering after a purge is still found", () => {
    /** A purged organisation: entries 4..7 kept, checkpoint through 3. */
    async function purged(slug: string): Promise<History> {
      const h = await history(db, clock, keys, slug);
      const now = h.createdAt.get(1)! + 500 * DAY;
      const result = await purgeAuditChain(db, h.organizationId, { cutoff: now - 365 * DAY, now, keys });
      assert.equal(result.throughSeq, 3);
      const clean = await verifyAuditChain(db, h.organizationId, keys, { now });
      assert.equal(clean.intact, true, JSON.stringify(clean.problems));
      return h;
    }
    const problemsOf = async (h: History) => {
      const report = await verifyAuditChain(db, h.organizationId, keys);
      assert.equal(report.intact, false, "the tampering is found");
      return report.problems;
    };

    test("a kept entry edited", async () => {
      const h = await purged("t-entry");
      await db.query(
        `UPDATE audit_entries SET payload = replace(payload, '"dsrResponseDays":50', '"dsrResponseDays":5')
          WHERE organization_id = $1 AND seq = 4`,
        [h.organizationId],
      );
      const problems = await problemsOf(h);
      assert.ok(
        problems.some((p) => p.table === "audit_entries" && p.seq === 4),
        JSON.stringify(problems),
      );
    });

    test("the checkpoint's hash edited", async () => {
      const h = await purged("t-hash");
      await db.query(
        "UPDATE audit_chain_checkpoints SET through_hash = repeat('b', 64) WHERE organization_id = $1",
        [h.organizationId],
      );
      const problems = await problemsOf(h);
      assert.ok(
        problems.some((p) => p.table === "audit_entries" && p.seq === 4 && /checkpoint/.test(p.reason)),
        JSON.stringify(problems),
      );
      assert.ok(
        problems.some((p) => p.table === "audit_chain_checkpoints"),
        JSON.stringify(problems),
      );
    });

    test("the checkpoint moved on to hide a kept entry", async () => {
      const h = await purged("t-move");
      const [fourth] = await readChainPage(db, h.organizationId, 4, 1);
      await db.query("DELETE FROM audit_entries WHERE organization_id = $1 AND seq = 4", [h.organizationId]);
      await db.query(
        "UPDATE audit_chain_checkpoints SET through_seq = 4, through_hash = $2 WHERE organization_id = $1",
        [h.organizationId, fourth!.entryHash],
      );
      const problems = await problemsOf(h);
      assert.ok(
        problems.some((p) => p.table === "audit_chain_checkpoints"),
        JSON.stringify(problems),
      );
    });

    test("the checkpoint deleted", async () => {
      const h = await purged("t-delete");
      await db.query("DELETE FROM audit_chain_checkpoints WHERE organization_id = $1", [h.organizationId]);
      const problems = await problemsOf(h);
      assert.ok(problems.some((p) => p.table === "audit_entries" && /1\.\.3 are missing/.test(p.reason)));
      assert.ok(
        problems.some((p) => p.table === "audit_chain_checkpoints"),
        JSON.stringify(problems),
      );
    });

    test("a kept row deleted", async () => {
      const h = await purged("t-row");
      await db.query("DELETE FROM consent_events WHERE organization_id = $1 AND consent_id = $2", [
        h.organizationId,
        h.consentId,
      ]);
      const problems = await problemsOf(h);
      assert.ok(
        problems.some((p) => p.table === "consent_events"),
        JSON.stringify(problems),
      );
    });

    test("a kept row edited", async () => {
      const h = await purged("t-settings");
      await db.query("UPDATE rights_settings SET dsr_response_days = 90 WHERE organization_id = $1", [
        h.organizationId,
      ]);
      const problems = await problemsOf(h);
      assert.ok(
        problems.some((p) => p.table === "rights_settings"),
        JSON.stringify(problems),
      );
    });
  });
});
