// The log-retention job on webhook deliveries, with an injected clock: finished deliveries of the
// months past the policy go with their attempts and their events, each batch recorded on the audit chain;
// nothing younger than a year and nothing still queued is purged; a second purge is a no-op; the
// chain still verifies, and an edited record of the purge is found.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { disableOrganization, enableOrganization } from "../../src/accounts/organization-status.js";
import { createOrganization } from "../../src/accounts/organizations.js";
import { readChainPage } from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { setLogRetentionPolicy } from "../../src/log-retention/policy.js";
import { purgeOrganizationLogs, runLogRetentionSweep, type RowPurge } from "../../src/log-retention/purge.js";
import { openTestDatabase } from "../support/harness.js";
import { DAY } from "./fixtures.js";

const keys = testConfig().auditKeys;
const DAY0 = Date.UTC(2025, 0, 1);

/** One event with one delivery of `status` and `attempts` attempts, created on `day`. */
async function delivery(
  db: Database,
  organizationId: string,
  id: string,
  day: number,
  status: string,
  attempts: number,
): Promise<void> {
  const at = DAY0 + day * DAY;
  await db.query(
    `INSERT INTO webhook_events (organization_id, event_id, event_type, payload, created_at)
     VALUES ($1, $2, 'consent.given', '{}'::jsonb, $3)`,
    [organizationId, `evt_${id}`, at],
  );
  await db.query(
    `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
       next_attempt_at, retry_window_start, created_at)
     VALUES ($1, $2, 'whe_1', $3, $4, $5, $6, $7, $7)`,
    [organizationId, `dlv_${id}`, `evt_${id}`, status, attempts, status === "pending" ? at : null, at],
  );
  for (let n = 1; n <= attempts; n++) {
    await db.query(
      `INSERT INTO webhook_delivery_attempts (organization_id, delivery_id, attempt, started_at, finished_at, status_code,
         delivery_created_at)
       VALUES ($1, $2, $3, $4, $4, 500, $5)`,
      [organizationId, `dlv_${id}`, n, at + n, at],
    );
  }
}

const remaining = async (db: Database, organizationId: string) =>
  (
    await db.query<{ delivery_id: string }>(
      "SELECT delivery_id FROM webhook_deliveries WHERE organization_id = $1 ORDER BY delivery_id",
      [organizationId],
    )
  ).map((r) => r.delivery_id);

describe("log retention: purging webhook deliveries", () => {
  let db: Database;
  let dispose: () => Promise<void>;
  let organizationId: string;
  before(async () => {
    ({ db, dispose } = await openTestDatabase());
    organizationId = (await createOrganization(db, { slug: "hooks", name: "Hooks" }, DAY0)).organizationId;
    await db.query(
      `INSERT INTO webhook_endpoints (organization_id, endpoint_id, url, event_types, secret_ciphertext, created_at, updated_at)
       VALUES ($1, 'whe_1', 'https://example.com/hook', ARRAY['consent.given'], 'x', $2, $2)`,
      [organizationId, DAY0],
    );
    await delivery(db, organizationId, "old_delivered", 0, "delivered", 1);
    await delivery(db, organizationId, "old_dead", 1, "dead", 3);
    await delivery(db, organizationId, "old_cancelled", 2, "cancelled", 0);
    await delivery(db, organizationId, "old_pending", 3, "pending", 2);
    await delivery(db, organizationId, "day_200", 200, "delivered", 1);
    await db.query(
      `INSERT INTO webhook_events (organization_id, event_id, event_type, payload, created_at)
       VALUES ($1, 'evt_unsent', 'consent.given', '{}'::jsonb, $2)`,
      [organizationId, DAY0 + 5 * DAY],
    );
  });
  after(() => dispose());

  test("the default keeps them; a period under a year is refused", async () => {
    const report = await purgeOrganizationLogs(db, organizationId, { now: DAY0 + 900 * DAY, keys });
    assert.equal(report.classes.webhookDeliveries!.status, "kept_forever");
    await assert.rejects(
      db.transaction((tx) =>
        setLogRetentionPolicy(tx, organizationId, { webhookDeliveries: 200 }, "test", DAY0),
      ),
      /at least 365 days/,
    );
    assert.equal((await remaining(db, organizationId)).length, 5);
  });

  test("past the policy: exactly the finished ones before the cutoff go, recorded on the chain", async () => {
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, organizationId, { webhookDeliveries: 400 }, "test", DAY0),
    );
    // Day 500 with 400 days kept: the cutoff is day 100.
    const now = DAY0 + 500 * DAY;
    const dry = (await purgeOrganizationLogs(db, organizationId, { now, keys, dryRun: true })).classes
      .webhookDeliveries as RowPurge;
    assert.equal(dry.deliveriesPurged, 3);
    assert.equal((await remaining(db, organizationId)).length, 5, "a dry run purges nothing");

    const purge = (await purgeOrganizationLogs(db, organizationId, { now, keys })).classes
      .webhookDeliveries as RowPurge;
    assert.equal(purge.status, "purged");
    assert.equal(purge.cutoff, DAY0 + 100 * DAY);
    assert.deepEqual([purge.deliveriesPurged, purge.attemptsPurged, purge.eventsPurged], [3, 4, 4]);
    assert.equal(purge.oldestPurgedAt, DAY0);
    assert.equal(purge.newestPurgedAt, DAY0 + 2 * DAY);
    // Still queued (day 3) and younger than the policy (day 200) stay, with their events.
    assert.deepEqual(await remaining(db, organizationId), ["dlv_day_200", "dlv_old_pending"]);
    const events = await db.query<{ event_id: string }>(
      "SELECT event_id FROM webhook_events WHERE organization_id = $1 ORDER BY event_id",
      [organizationId],
    );
    assert.deepEqual(
      events.map((e) => e.event_id),
      ["evt_day_200", "evt_old_pending"],
    );
    const attempts = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_delivery_attempts WHERE organization_id = $1",
      [organizationId],
    );
    assert.equal(attempts[0]!.n, 3);

    const report = await verifyAuditChain(db, organizationId, keys, { now });
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    const entries = await readChainPage(db, organizationId, 1, 100);
    const purged = entries.filter((e) => e.entryType === "log_retention.purged");
    assert.equal(purged.length, 1);
    assert.deepEqual(JSON.parse(purged[0]!.payload), {
      attempts: 4,
      cutoff: DAY0 + 100 * DAY,
      deliveries: 3,
      events: 4,
      logClass: "webhook_deliveries",
      newestCreatedAt: DAY0 + 2 * DAY,
      oldestCreatedAt: DAY0,
    });

    // Twice is a no-op, and records nothing.
    const again = (await purgeOrganizationLogs(db, organizationId, { now: now + DAY, keys })).classes
      .webhookDeliveries as RowPurge;
    assert.equal(again.status, "nothing_to_purge");
    assert.equal((await readChainPage(db, organizationId, 1, 100)).length, entries.length);
  });

  test("nothing younger than a year goes, even at the shortest policy", async () => {
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, organizationId, { webhookDeliveries: 365 }, "test", DAY0),
    );
    // Day 560: the day-200 delivery is 360 days old.
    await purgeOrganizationLogs(db, organizationId, { now: DAY0 + 560 * DAY, keys });
    assert.deepEqual(await remaining(db, organizationId), ["dlv_day_200", "dlv_old_pending"]);
    // Day 570: it is more than a year old, but its month (July 2025) is not yet wholly past the
    // cutoff: the purge's unit is the month partition.
    await purgeOrganizationLogs(db, organizationId, { now: DAY0 + 570 * DAY, keys });
    assert.deepEqual(await remaining(db, organizationId), ["dlv_day_200", "dlv_old_pending"]);
    // Day 578: the cutoff (day 213) is past the end of July.
    await purgeOrganizationLogs(db, organizationId, { now: DAY0 + 578 * DAY, keys });
    assert.deepEqual(await remaining(db, organizationId), ["dlv_old_pending"]);
  });

  test("a record of a purge edited to claim a younger cutoff is found", async () => {
    await db.query(
      `UPDATE audit_entries SET payload = replace(payload, '"cutoff":${DAY0 + 100 * DAY}', '"cutoff":${DAY0 + 400 * DAY}')
        WHERE organization_id = $1 AND entry_type = 'log_retention.purged'`,
      [organizationId],
    );
    const report = await verifyAuditChain(db, organizationId, keys);
    assert.equal(report.intact, false);
    assert.ok(
      report.problems.some((p) => /cutoff is less than a year/.test(p.reason)),
      JSON.stringify(report.problems),
    );
  });
});

describe("log retention: a disabled organisation", () => {
  let db: Database;
  let dispose: () => Promise<void>;
  before(async () => {
    ({ db, dispose } = await openTestDatabase());
  });
  after(() => dispose());

  test("keeps its logs whole while disabled; the sweep after enabling purges them", async () => {
    const { organizationId } = await createOrganization(db, { slug: "paused", name: "Paused" }, DAY0);
    await db.query(
      `INSERT INTO webhook_endpoints (organization_id, endpoint_id, url, event_types, secret_ciphertext, created_at, updated_at)
       VALUES ($1, 'whe_1', 'https://example.com/hook', ARRAY['consent.given'], 'x', $2, $2)`,
      [organizationId, DAY0],
    );
    await delivery(db, organizationId, "paused_old", 0, "delivered", 1);
    await db.transaction((tx) =>
      setLogRetentionPolicy(tx, organizationId, { webhookDeliveries: 400 }, "test", DAY0),
    );
    const now = DAY0 + 500 * DAY;
    await db.transaction((tx) =>
      disableOrganization(tx, { organizationId, reason: "Unpaid invoice", by: "operator" }, now),
    );
    const whileDisabled = await runLogRetentionSweep(db, { now, keys });
    assert.equal(whileDisabled.filter((r) => r.organizationId === organizationId).length, 0);
    assert.deepEqual(await remaining(db, organizationId), ["dlv_paused_old"]);

    await db.transaction((tx) => enableOrganization(tx, { organizationId, by: "operator" }, now));
    await runLogRetentionSweep(db, { now, keys });
    assert.deepEqual(await remaining(db, organizationId), []);
  });
});
