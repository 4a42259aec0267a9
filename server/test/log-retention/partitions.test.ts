// Month partitions of the high-volume logs (log-retention/partitions.ts), with an injected clock:
// the maintenance creates the current month and the next ones once (a second pass, or two at once,
// creates nothing more), splits rows the DEFAULT partition caught into their month without changing
// what the log answers; the sweep drops a month only when every organisation with rows in it is
// past its cutoff (recording each one's share on its chain, which still verifies), deletes the rows
// of an organisation whose months another keeps, and never touches anything younger than a year.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createOrganization } from "../../src/accounts/organizations.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { allCheckpoints, readChainPage } from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { ManualClock } from "../../src/lib/clock.js";
import { compactDecisionLog } from "../../src/gate/compaction.js";
import { logDecisionRun, newestDecisions } from "../../src/gate/store.js";
import { setLogRetentionPolicy } from "../../src/log-retention/policy.js";
import {
  defaultPartitionName,
  dropPartitionsPastPolicy,
  ensureLogPartitions,
  PARTITIONED_LOGS,
  listPartitions,
  monthStart,
  nextMonthStart,
  partitionName,
} from "../../src/log-retention/partitions.js";
import { runLogRetentionSweep, type DecisionPurge, type RowPurge } from "../../src/log-retention/purge.js";
import { updateOrganizationSettings } from "../../src/settings/organization-settings.js";
import { openTestDatabase } from "../support/harness.js";
import { DAY, history, STAFF } from "./fixtures.js";

const keys = testConfig().auditKeys;
const BLOCKS = "gate_decision_blocks";
const GATE = PARTITIONED_LOGS.find((log) => log.logClass === "gate_decisions")!;
const CONSENT_EVENTS = PARTITIONED_LOGS.find((log) => log.logClass === "consent_events")!;
const WEBHOOKS = PARTITIONED_LOGS.find((log) => log.logClass === "webhook_deliveries")!;

async function rowsIn(db: Database, table: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}"`);
  return row!.n;
}

/** Logs `count` decisions of the organisation at `at` (one run each, 1 s apart) and compacts them. */
async function logDecisions(db: Database, organizationId: string, at: number, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    await logDecisionRun(db, organizationId, {
      decidedAt: at + i * 1000,
      nonce: (randomBytes(8).readBigUInt64BE() >> 1n).toString(),
      apiKeyId: "key_1",
      consentIds: [`cns_${i}`],
      allowed: [i % 3 !== 0],
    });
  }
  await compactDecisionLog(db, at + count * 1000 + 60_000, 1000);
}

async function purgedEntries(db: Database, organizationId: string, now: number) {
  await linkQueuedOf(db, organizationId, now);
  return (await readChainPage(db, organizationId, 1, 1000))
    .filter((e) => e.entryType === "log_retention.purged")
    .map((e) => JSON.parse(e.payload) as Record<string, unknown>);
}

describe("log partitions", () => {
  let db: Database;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ db, dispose } = await openTestDatabase());
  });
  after(() => dispose());

  test("the maintenance creates this month and the next two, once; rows the default caught go to their month", async () => {
    // Decisions of March 2024, logged before any partition of theirs exists, land in the default.
    const org = await createOrganization(db, { slug: "parts", name: "Parts" }, Date.UTC(2024, 0, 1));
    const march = Date.UTC(2024, 2, 14, 10);
    await logDecisions(db, org.organizationId, march, 12);
    assert.equal(await rowsIn(db, defaultPartitionName(BLOCKS)), 2);
    const answered = await newestDecisions(db, org.organizationId, 200);
    assert.equal(answered.length, 12);

    const now = Date.UTC(2024, 4, 20);
    const created = await ensureLogPartitions(db, GATE, now);
    assert.deepEqual(created, [
      partitionName(BLOCKS, Date.UTC(2024, 2, 1)),
      partitionName(BLOCKS, Date.UTC(2024, 4, 1)),
      partitionName(BLOCKS, Date.UTC(2024, 5, 1)),
      partitionName(BLOCKS, Date.UTC(2024, 6, 1)),
    ]);
    assert.equal(created[0], "gate_decision_blocks_p202403");
    assert.equal(await rowsIn(db, defaultPartitionName(BLOCKS)), 0);
    assert.equal(await rowsIn(db, "gate_decision_blocks_p202403"), 2);
    // The log answers exactly as before.
    assert.deepEqual(await newestDecisions(db, org.organizationId, 200), answered);
    // Twice, or two at once, creates nothing more (the second finds them, or the lock held).
    assert.deepEqual(await ensureLogPartitions(db, GATE, now), []);
    const both = await Promise.all([
      ensureLogPartitions(db, GATE, now + DAY),
      ensureLogPartitions(db, GATE, now + DAY),
    ]);
    assert.deepEqual(both, [[], []]);
    // Two at once where a month is missing: it is made once, and neither fails.
    const racing = await Promise.all([
      ensureLogPartitions(db, GATE, Date.UTC(2024, 7, 1)),
      ensureLogPartitions(db, GATE, Date.UTC(2024, 7, 1)),
    ]);
    assert.deepEqual(
      racing.flat().sort(),
      [7, 8, 9].map((month) => partitionName(BLOCKS, Date.UTC(2024, month, 1))),
    );
    // The months of 2024 (the migration made the real clock's current month and the next two).
    const months = (await listPartitions(db, BLOCKS))
      .filter((p) => p.lo < Date.UTC(2025, 0, 1))
      .map((p) => [p.lo, p.hi]);
    assert.deepEqual(months, [
      [Date.UTC(2024, 2, 1), Date.UTC(2024, 3, 1)],
      [Date.UTC(2024, 4, 1), Date.UTC(2024, 5, 1)],
      [Date.UTC(2024, 5, 1), Date.UTC(2024, 6, 1)],
      [Date.UTC(2024, 6, 1), Date.UTC(2024, 7, 1)],
      [Date.UTC(2024, 7, 1), Date.UTC(2024, 8, 1)],
      [Date.UTC(2024, 8, 1), Date.UTC(2024, 9, 1)],
      [Date.UTC(2024, 9, 1), Date.UTC(2024, 10, 1)],
    ]);
    // New decisions of a created month go to it, not to the default.
    await logDecisions(db, org.organizationId, Date.UTC(2024, 5, 2), 3);
    assert.equal(await rowsIn(db, "gate_decision_blocks_p202406"), 1);
    assert.equal(await rowsIn(db, defaultPartitionName(BLOCKS)), 0);
  });

  test("month helpers are UTC and roll over the year", () => {
    assert.equal(monthStart(Date.UTC(2024, 11, 31, 23, 59)), Date.UTC(2024, 11, 1));
    assert.equal(nextMonthStart(Date.UTC(2024, 11, 31, 23, 59)), Date.UTC(2025, 0, 1));
    assert.equal(partitionName("t", Date.UTC(2025, 0, 1)), "t_p202501");
  });

  test("a month goes whole only when every organisation in it is past its cutoff; the chains still verify", async () => {
    const t0 = Date.UTC(2022, 0, 1);
    const shortOrg = await createOrganization(db, { slug: "short", name: "Short" }, t0);
    const keeper = await createOrganization(db, { slug: "keeper", name: "Keeper" }, t0);
    // February 2022: shortOrg and keeper; March 2022: shortOrg only.
    await ensureLogPartitions(db, GATE, Date.UTC(2022, 1, 10));
    await logDecisions(db, shortOrg.organizationId, Date.UTC(2022, 1, 10), 5);
    await logDecisions(db, keeper.organizationId, Date.UTC(2022, 1, 11), 4);
    await logDecisions(db, shortOrg.organizationId, Date.UTC(2022, 2, 10), 6);
    await ensureLogPartitions(db, GATE, Date.UTC(2022, 2, 10));
    const feb = "gate_decision_blocks_p202202";
    const mar = "gate_decision_blocks_p202203";
    assert.equal(await rowsIn(db, feb), 2);
    assert.equal(await rowsIn(db, mar), 1);
    for (const org of [shortOrg, keeper]) {
      await db.transaction((tx) =>
        setLogRetentionPolicy(tx, org.organizationId, { gateDecisions: 365 }, "test", t0),
      );
    }
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, keeper.organizationId, { gateDecisions: "forever" }, "test", t0),
    );

    // Not a year after March yet: nothing of either month goes, for anyone.
    const early = Date.UTC(2023, 1, 20);
    await runLogRetentionSweep(db, { now: early, keys });
    assert.equal(await rowsIn(db, feb), 2);
    assert.equal(await rowsIn(db, mar), 1);

    // A year after the end of March: March (shortOrg's only) is dropped; February is kept for
    // keeper, and shortOrg's rows in it deleted.
    const now = Date.UTC(2023, 3, 2);
    const dry = await runLogRetentionSweep(db, { now, keys, dryRun: true });
    const dryShort = dry.find((r) => r.organizationId === shortOrg.organizationId)!.classes
      .gateDecisions as DecisionPurge;
    assert.deepEqual(dryShort.partitionsDropped, [mar]);
    assert.equal(dryShort.decisionsDropped, 6);
    assert.equal(dryShort.decisionsPurged, 5);
    assert.ok(
      (await listPartitions(db, BLOCKS)).some((p) => p.name === mar),
      "a dry run drops nothing",
    );

    const reports = await runLogRetentionSweep(db, { now, keys });
    const short = reports.find((r) => r.organizationId === shortOrg.organizationId)!.classes
      .gateDecisions as DecisionPurge;
    assert.equal(short.status, "purged");
    assert.deepEqual(short.partitionsDropped, [mar]);
    assert.equal(short.decisionsDropped, 6);
    assert.equal(short.decisionsPurged, 5);
    assert.equal(short.blocksPurged, 1);
    assert.equal(short.purgedBefore, Date.UTC(2022, 3, 1));
    // The keeper has no period set, so the sweep does not visit it.
    assert.equal(
      reports.find((r) => r.organizationId === keeper.organizationId),
      undefined,
    );
    const partitions = (await listPartitions(db, BLOCKS)).map((p) => p.name);
    assert.ok(!partitions.includes(mar));
    assert.ok(partitions.includes(feb));
    assert.equal(await rowsIn(db, feb), 1);
    assert.equal((await newestDecisions(db, keeper.organizationId, 200)).length, 4);
    assert.equal((await newestDecisions(db, shortOrg.organizationId, 200)).length, 0);

    const entries = await purgedEntries(db, shortOrg.organizationId, now);
    assert.equal(entries.length, 2);
    assert.deepEqual(
      entries.map((e) => [e.logClass, e.partitions ?? null, e.decisions, e.blocks]),
      [
        ["gate_decisions", [mar], 6, 1],
        ["gate_decisions", null, 5, 1],
      ],
    );
    for (const entry of entries) assert.ok((entry.newestCreatedAt as number) < now - 365 * DAY);
    for (const org of [shortOrg, keeper]) {
      const verified = await verifyAuditChain(db, org.organizationId, keys, { now });
      assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    }

    // Twice is a no-op.
    const again = await runLogRetentionSweep(db, { now: now + DAY, keys });
    const shortAgain = again.find((r) => r.organizationId === shortOrg.organizationId)!.classes.gateDecisions;
    assert.equal((shortAgain as DecisionPurge).status, "nothing_to_purge");
    assert.equal((await purgedEntries(db, shortOrg.organizationId, now + DAY)).length, 2);

    // Once the keeper sets a period, February goes whole once it is past, on the keeper's chain.
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, keeper.organizationId, { gateDecisions: 400 }, "test", now),
    );
    await runLogRetentionSweep(db, { now: Date.UTC(2023, 3, 3), keys });
    assert.ok(
      (await listPartitions(db, BLOCKS)).some((p) => p.name === feb),
      "400 days not yet past",
    );
    const past = Date.UTC(2022, 2, 1) + 400 * DAY;
    const last = await runLogRetentionSweep(db, { now: past, keys });
    const keeperPurge = last.find((r) => r.organizationId === keeper.organizationId)!.classes
      .gateDecisions as DecisionPurge;
    assert.deepEqual(keeperPurge.partitionsDropped, [feb]);
    assert.equal(keeperPurge.decisionsDropped, 4);
    assert.ok(!(await listPartitions(db, BLOCKS)).some((p) => p.name === feb));
    const keeperEntries = await purgedEntries(db, keeper.organizationId, past);
    assert.deepEqual(
      keeperEntries.map((e) => [e.partitions, e.decisions]),
      [[[feb], 4]],
    );
    const verified = await verifyAuditChain(db, keeper.organizationId, keys, { now: past });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));

    // An edited record of the drop is found: by its hash, and by what the purge checker holds it to.
    await db.query(
      `UPDATE audit_entries SET payload = replace(payload, '"decisions":4', '"decisions":-4')
        WHERE organization_id = $1 AND entry_type = 'log_retention.purged'`,
      [keeper.organizationId],
    );
    const tampered = await verifyAuditChain(db, keeper.organizationId, keys, { now: past });
    assert.equal(tampered.intact, false);
    assert.ok(
      tampered.problems.some((p) => /decisions is not a count/.test(p.reason)),
      JSON.stringify(tampered.problems),
    );
  });

  test("webhook events, deliveries and attempts: a month is made, moved and dropped together, never with a delivery still queued", async () => {
    const t0 = Date.UTC(2021, 0, 1);
    const org = await createOrganization(db, { slug: "hooks", name: "Hooks" }, t0);
    const { organizationId } = org;
    await db.query(
      `INSERT INTO webhook_endpoints (organization_id, endpoint_id, url, event_types, secret_ciphertext, created_at, updated_at)
       VALUES ($1, 'whe_1', 'https://example.com/hook', ARRAY['consent.given'], 'x', $2, $2)`,
      [organizationId, t0],
    );
    // June 2021, in the default partitions (no month of 2021 exists yet): two finished deliveries
    // with attempts, one still pending, and an event no endpoint took.
    const june = Date.UTC(2021, 5, 10);
    const deliveries = [
      ["a", "delivered", 1],
      ["b", "dead", 2],
      ["c", "pending", 1],
    ] as const;
    for (const [id, status, attempts] of deliveries) {
      await db.query(
        `INSERT INTO webhook_events (organization_id, event_id, event_type, payload, created_at)
         VALUES ($1, $2, 'consent.given', '{}'::jsonb, $3)`,
        [organizationId, `evt_${id}`, june],
      );
      await db.query(
        `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
           next_attempt_at, retry_window_start, created_at)
         VALUES ($1, $2, 'whe_1', $3, $4, $5, $6, $7, $7)`,
        [
          organizationId,
          `dlv_${id}`,
          `evt_${id}`,
          status,
          attempts,
          status === "pending" ? june : null,
          june,
        ],
      );
    }
    await db.query(
      `INSERT INTO webhook_events (organization_id, event_id, event_type, payload, created_at)
       VALUES ($1, 'evt_none', 'consent.given', '{}'::jsonb, $2)`,
      [organizationId, june + 1000],
    );
    // Attempts as the worker records them (insertAttempt finds the delivery's time).
    const { insertAttempt } = await import("../../src/webhooks/store/deliveries.js");
    for (const [id, , attempts] of deliveries) {
      for (let n = 1; n <= attempts; n++) {
        await insertAttempt(db, {
          organizationId,
          deliveryId: `dlv_${id}`,
          attempt: n,
          startedAt: june + n,
          finishedAt: june + n,
          statusCode: 500,
          error: "failed",
        });
        // A second record of the same attempt is ignored, as before the partitioning.
        await insertAttempt(db, {
          organizationId,
          deliveryId: `dlv_${id}`,
          attempt: n,
          startedAt: june + n,
          finishedAt: june + n,
          statusCode: 500,
          error: "failed",
        });
      }
    }
    const tables = ["webhook_events", "webhook_deliveries", "webhook_delivery_attempts"];
    assert.deepEqual(await Promise.all(tables.map((t) => rowsIn(db, defaultPartitionName(t)))), [4, 3, 4]);

    // The maintenance moves them into June together, though the events are referenced.
    const created = await ensureLogPartitions(db, WEBHOOKS, Date.UTC(2021, 5, 20), 0);
    assert.deepEqual(
      created,
      tables.map((t) => partitionName(t, Date.UTC(2021, 5, 1))),
    );
    assert.deepEqual(await Promise.all(tables.map((t) => rowsIn(db, defaultPartitionName(t)))), [0, 0, 0]);
    assert.deepEqual(
      await Promise.all(tables.map((t) => rowsIn(db, partitionName(t, Date.UTC(2021, 5, 1))))),
      [4, 3, 4],
    );
    // The keys still hold: one delivery per event and endpoint, deliveries of existing events.
    await assert.rejects(
      db.query(
        `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
           next_attempt_at, retry_window_start, created_at)
         VALUES ($1, 'dlv_again', 'whe_1', 'evt_a', 'pending', 0, $2, $2, $2)`,
        [organizationId, june],
      ),
      /duplicate key|unique/,
    );
    await assert.rejects(
      db.query(
        `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
           next_attempt_at, retry_window_start, created_at)
         VALUES ($1, 'dlv_orphan', 'whe_1', 'evt_a', 'pending', 0, $2, $2, $2)`,
        [organizationId, june + 5],
      ),
      /foreign key/,
    );

    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, organizationId, { webhookDeliveries: 365 }, "test", t0),
    );
    // More than a year after June: the pending delivery holds the month whole; the finished ones
    // are not deleted out of it one by one either (their month is past, but held).
    const now = Date.UTC(2022, 6, 15);
    const first = await runLogRetentionSweep(db, { now, keys });
    const held = first.find((r) => r.organizationId === organizationId)!.classes
      .webhookDeliveries as RowPurge;
    assert.deepEqual(held.partitionsDropped, []);
    assert.equal(held.deliveriesPurged, 2);
    assert.equal(held.attemptsPurged, 3);
    assert.equal(held.eventsPurged, 3);
    assert.deepEqual(
      await Promise.all(tables.map((t) => rowsIn(db, partitionName(t, Date.UTC(2021, 5, 1))))),
      [1, 1, 1],
    );

    // Once the last delivery is finished, the month goes whole: the three partitions, one entry.
    await db.query(
      "UPDATE webhook_deliveries SET status = 'dead', next_attempt_at = NULL WHERE delivery_id = 'dlv_c'",
    );
    const second = await runLogRetentionSweep(db, { now: now + DAY, keys });
    const gone = second.find((r) => r.organizationId === organizationId)!.classes
      .webhookDeliveries as RowPurge;
    const junes = tables.map((t) => partitionName(t, Date.UTC(2021, 5, 1)));
    assert.deepEqual(gone.partitionsDropped, junes);
    assert.deepEqual([gone.deliveriesDropped, gone.attemptsDropped, gone.eventsDropped], [1, 1, 1]);
    for (const t of tables) assert.ok(!(await listPartitions(db, t)).some((p) => junes.includes(p.name)));
    const entries = await purgedEntries(db, organizationId, now + DAY);
    assert.deepEqual(
      entries.map((e) => [e.partitions ?? null, e.deliveries, e.attempts, e.events]),
      [
        [null, 2, 3, 3],
        [junes, 1, 1, 1],
      ],
    );
    const verified = await verifyAuditChain(db, organizationId, keys, { now: now + DAY });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
  });

  test("consent events: partitioned, moved out of the default, never dropped; the chain still verifies", async () => {
    const clock = new ManualClock(Date.UTC(2019, 3, 5));
    const h = await history(db, clock, keys, "consents");
    // April 2019 had no month: the consent's event is in the default.
    assert.equal(await rowsIn(db, defaultPartitionName("consent_events")), 1);
    const created = await ensureLogPartitions(db, CONSENT_EVENTS, clock.now(), 0);
    assert.deepEqual(created, ["consent_events_p201904", "consent_events_p201910"]);
    assert.equal(await rowsIn(db, defaultPartitionName("consent_events")), 0);
    assert.equal(await rowsIn(db, "consent_events_p201904"), 1);
    const verified = await verifyAuditChain(db, h.organizationId, keys, { now: clock.now() });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    assert.equal(verified.consentEventsChecked, 1);

    // Every organisation with events in April sets the shortest period: still never dropped.
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, h.organizationId, { consentEvents: 365 }, "test", clock.now()),
    );
    const later = Date.UTC(2022, 0, 1);
    assert.deepEqual(await dropPartitionsPastPolicy(db, { now: later, keys, logs: [CONSENT_EVENTS] }), []);
    assert.ok((await listPartitions(db, "consent_events")).some((p) => p.name === "consent_events_p201904"));
    assert.equal(await rowsIn(db, "consent_events_p201904"), 1);
  });

  test("audit entries: a month goes behind a checkpoint per organisation once every chain in it can be purged past it; verify still passes and still finds tampering", async () => {
    const AUDIT = PARTITIONED_LOGS.find((log) => log.logClass === "audit_entries")!;
    const settingsAt = async (organizationId: string, value: boolean, at: number) => {
      await db.transaction((tx) =>
        updateOrganizationSettings(
          tx,
          { organizationId, patch: { blockTrackingForChildren: value }, actor: STAFF },
          at,
        ),
      );
      await linkQueuedOf(db, organizationId, at);
    };
    const a = (await createOrganization(db, { slug: "audit-a", name: "A" }, Date.UTC(2017, 0, 2)))
      .organizationId;
    const b = (await createOrganization(db, { slug: "audit-b", name: "B" }, Date.UTC(2017, 0, 2)))
      .organizationId;
    // January 2017: A's 1 and 2. February: B's 1, A's 3. March: B's 2 (the settings B has in
    // force: needed). April: A's 4 (likewise).
    await settingsAt(a, true, Date.UTC(2017, 0, 6));
    await settingsAt(a, false, Date.UTC(2017, 0, 7));
    await settingsAt(b, true, Date.UTC(2017, 1, 2));
    await settingsAt(a, true, Date.UTC(2017, 1, 10));
    await settingsAt(b, false, Date.UTC(2017, 2, 3));
    await settingsAt(a, false, Date.UTC(2017, 3, 4));
    assert.ok((await rowsIn(db, defaultPartitionName("audit_entries"))) >= 6);
    const created = await ensureLogPartitions(db, AUDIT, Date.UTC(2017, 3, 20), 0);
    for (const month of ["201701", "201702", "201703", "201704"]) {
      assert.ok(created.includes(`audit_entries_p${month}`), `made ${month}`);
    }
    assert.equal(await rowsIn(db, defaultPartitionName("audit_entries")), 0);
    assert.equal(await rowsIn(db, "audit_entries_p201701"), 2);
    assert.equal(await rowsIn(db, "audit_entries_p201702"), 2);

    // A keeps a year, B forever: January (A only) goes; February (B's too), March (B's) stay;
    // April stays too, A's entry 4 being the settings in force.
    const now = Date.UTC(2018, 6, 1);
    await db.transaction((tx) => setLogRetentionPolicy(tx, a, { auditEntries: 365 }, "test", now));
    const dry = await dropPartitionsPastPolicy(db, { now, keys, logs: [AUDIT], dryRun: true });
    assert.deepEqual(
      dry.map((d) => d.partitions),
      [["audit_entries_p201701"]],
    );
    assert.ok((await listPartitions(db, "audit_entries")).some((p) => p.name === "audit_entries_p201701"));
    const dropped = await dropPartitionsPastPolicy(db, { now, keys, logs: [AUDIT] });
    assert.deepEqual(
      dropped.map((d) => [
        d.partitions,
        d.shares.map((s) => [s.organizationId, s.counts.entries, s.counts.lastSeq]),
      ]),
      [[["audit_entries_p201701"], [[a, 2, 2]]]],
    );
    const months = (await listPartitions(db, "audit_entries")).map((p) => p.name);
    assert.ok(!months.includes("audit_entries_p201701"));
    assert.ok(months.includes("audit_entries_p201702") && months.includes("audit_entries_p201704"));
    // The drop is on A's chain as a purge: its checkpoint through 2 and an `audit.purged` entry.
    const [checkpoint] = await allCheckpoints(db, a);
    assert.deepEqual(
      [checkpoint!.fromSeq, checkpoint!.throughSeq, checkpoint!.entriesPurged, checkpoint!.entrySeq],
      [1, 2, 2, 5],
    );
    const chainA = await readChainPage(db, a, 1, 100);
    assert.deepEqual(
      chainA.map((e) => [e.seq, e.entryType]),
      [
        [3, "organization.settings_changed"],
        [4, "organization.settings_changed"],
        [5, "audit.purged"],
      ],
    );
    for (const org of [a, b]) {
      const verified = await verifyAuditChain(db, org, keys, { now });
      assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    }
    assert.equal((await verifyAuditChain(db, a, keys, { now })).fromSeq, 3);

    // February was found kept by B (forever): the next pass does not count it again, it only
    // checks that B still keeps it and still has entries in it.
    const statements: string[] = [];
    const watched: Database = {
      kind: db.kind,
      query: (sql, params, options) => {
        statements.push(sql);
        return db.query(sql, params, options);
      },
      listen: (channel, handlers) => db.listen(channel, handlers),
      close: () => db.close(),
      transaction: (work) =>
        db.transaction((tx) =>
          work({
            query: (sql, params, options) => {
              statements.push(sql);
              return tx.query(sql, params, options);
            },
          }),
        ),
    };
    assert.deepEqual(await dropPartitionsPastPolicy(watched, { now, keys, logs: [AUDIT] }), []);
    const countedFeb = statements.filter(
      (sql) => sql.includes("GROUP BY") && sql.includes("audit_entries_p201702"),
    );
    assert.deepEqual(countedFeb, []);
    assert.ok(statements.some((sql) => sql.includes("audit_entries_p201702") && sql.includes("LIMIT 1")));

    // The sweep: nothing more to drop; A's entry 3 (in February, which B keeps) goes as a row.
    const [report] = (await runLogRetentionSweep(db, { now, keys })).filter((r) => r.organizationId === a);
    const audit = report!.classes.auditEntries!;
    assert.ok("throughSeq" in audit);
    assert.deepEqual([audit.status, audit.fromSeq, audit.throughSeq, audit.heldFromSeq], ["purged", 3, 3, 4]);
    assert.equal(await rowsIn(db, "audit_entries_p201702"), 1);
    // B now keeps a year too: February (B's 1 only, superseded) goes; March (B's 2) stays.
    await db.transaction((tx) => setLogRetentionPolicy(tx, b, { auditEntries: 365 }, "test", now));
    // The sweep drops it and reports it in B's class report; B's entry 2 stays (in force).
    const [bReport] = (await runLogRetentionSweep(db, { now: now + DAY, keys })).filter(
      (r) => r.organizationId === b,
    );
    const bAudit = bReport!.classes.auditEntries!;
    assert.ok("partitionsDropped" in bAudit && "heldFromSeq" in bAudit);
    assert.deepEqual(
      [bAudit.partitionsDropped, bAudit.entriesDropped, bAudit.status, bAudit.heldFromSeq],
      [["audit_entries_p201702"], 1, "nothing_to_purge", 2],
    );
    assert.ok(!(await listPartitions(db, "audit_entries")).some((p) => p.name === "audit_entries_p201702"));
    assert.ok((await listPartitions(db, "audit_entries")).some((p) => p.name === "audit_entries_p201703"));
    for (const org of [a, b]) {
      const verified = await verifyAuditChain(db, org, keys, { now: now + DAY });
      assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    }

    // Tampering is still found: a kept entry edited, then the checkpoint re-anchored.
    const setPayload = (payload: string) =>
      db.query("UPDATE audit_entries SET payload = $2 WHERE organization_id = $1 AND seq = 4", [a, payload]);
    const kept = chainA[1]!.payload;
    await setPayload(kept.replace('"blockTrackingForChildren":false', '"blockTrackingForChildren":true'));
    const edited = await verifyAuditChain(db, a, keys, { now: now + DAY });
    assert.equal(edited.intact, false);
    assert.ok(edited.problems.some((p) => p.table === "audit_entries" && p.seq === 4));
    await setPayload(kept);
    assert.equal((await verifyAuditChain(db, a, keys, { now: now + DAY })).intact, true);
    await db.query(
      "UPDATE audit_chain_checkpoints SET through_hash = repeat('0', 64) WHERE organization_id = $1",
      [a],
    );
    const reanchored = await verifyAuditChain(db, a, keys, { now: now + DAY });
    assert.equal(reanchored.intact, false);
    assert.ok(reanchored.problems.some((p) => p.table === "audit_chain_checkpoints"));
  });
});
