// Migration 0114 makes audit_entries a table partitioned by month on created_at. A database whose
// chains were written before it (entries in several months, a purge checkpoint, an entry still
// queued) keeps every entry exactly, in the month of its creation, and every chain still verifies
// with the same head; the chain then goes on as before.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { purgeAuditChain } from "../../src/audit/purge.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { listMigrations, migrate, splitStatements } from "../../src/db/migrate.js";
import { ManualClock } from "../../src/lib/clock.js";
import { listPartitions, partitionName, monthStart } from "../../src/log-retention/partitions.js";
import { updateOrganizationSettings } from "../../src/settings/organization-settings.js";
import { openEmptyTestDatabase } from "../support/harness.js";
import { DAY, history, STAFF } from "../log-retention/fixtures.js";

const MIGRATION = "0114_audit_entries_partitioned";
const keys = testConfig().auditKeys;

const allEntries = (db: Database) =>
  db.query<Record<string, unknown>>(
    `SELECT organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at
       FROM audit_entries ORDER BY organization_id, seq`,
  );

describe("migration 0114 partitions the audit chain", () => {
  let db: Database;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await openEmptyTestDatabase());
  });
  after(async () => {
    await db.close();
    await drop();
  });

  test("every entry is kept, in its month, and every chain verifies with the same head", async () => {
    // Every other migration, applied as migrate() does: the database as it stood before 0114.
    await db.transaction(async (tx) => {
      await tx.query(
        "CREATE TABLE schema_migrations (migration_id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
      );
      for (const migration of listMigrations().filter((m) => m.id !== MIGRATION)) {
        for (const statement of splitStatements(migration.sql)) await tx.query(statement);
        await tx.query("INSERT INTO schema_migrations (migration_id, applied_at) VALUES ($1, 1)", [
          migration.id,
        ]);
      }
    });
    const [kind] = await db.query<{ relkind: string }>(
      "SELECT relkind::text FROM pg_class WHERE relname = 'audit_entries'",
    );
    assert.equal(kind?.relkind, "r", "a plain table before 0114");

    // Two organisations whose chains span January and August 2023; one purged behind a checkpoint,
    // and one entry still queued when the migration runs.
    const clock = new ManualClock(Date.UTC(2023, 0, 15));
    const first = await history(db, clock, keys, "before-a");
    const second = await history(db, clock, keys, "before-b");
    const purged = await purgeAuditChain(db, first.organizationId, {
      cutoff: clock.now() - 365 * DAY,
      now: clock.now() + 400 * DAY,
      keys,
    });
    assert.equal(purged.status, "purged");
    await db.transaction((tx) =>
      updateOrganizationSettings(
        tx,
        { organizationId: second.organizationId, patch: { blockTrackingForChildren: false }, actor: STAFF },
        clock.now(),
      ),
    );
    const entries = await allEntries(db);
    const months = new Set(entries.map((e) => monthStart(Number(e.created_at))));
    assert.ok(months.size >= 2, "entries in more than one month");
    const heads = new Map<string, string>();
    for (const org of [first.organizationId]) {
      const verified = await verifyAuditChain(db, org, keys, { now: clock.now() });
      assert.equal(verified.intact, true, JSON.stringify(verified.problems));
      heads.set(org, verified.headHash);
    }

    assert.deepEqual(await migrate(db), [MIGRATION]);

    const [after] = await db.query<{ relkind: string }>(
      "SELECT relkind::text FROM pg_class WHERE relname = 'audit_entries'",
    );
    assert.equal(after?.relkind, "p", "partitioned");
    assert.deepEqual(await allEntries(db), entries, "every entry, every column, unchanged");
    const partitions = await listPartitions(db, "audit_entries");
    for (const month of months) {
      const name = partitionName("audit_entries", month);
      const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}"`);
      assert.equal(
        row!.n,
        entries.filter((e) => monthStart(Number(e.created_at)) === month).length,
        `${name} holds its month's entries`,
      );
      assert.ok(partitions.some((p) => p.name === name));
    }
    const [inDefault] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_entries_default");
    assert.equal(inDefault!.n, 0, "the default starts empty");
    const [old] = await db.query<{ name: string | null }>(
      "SELECT to_regclass('audit_entries_0004')::text AS name",
    );
    assert.equal(old?.name, null, "the old table is gone");

    // The chains verify as before (the queued entry is linked by verify, after the migration).
    const verified = await verifyAuditChain(db, first.organizationId, keys, { now: clock.now() });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    assert.equal(verified.headHash, heads.get(first.organizationId));
    assert.equal(verified.fromSeq, purged.throughSeq! + 1);
    const queuedOrg = await verifyAuditChain(db, second.organizationId, keys, { now: clock.now() });
    assert.equal(queuedOrg.intact, true, JSON.stringify(queuedOrg.problems));
    assert.equal(queuedOrg.entries, 7, "the queued entry was linked into the partitioned chain");

    // And goes on: a new entry links after the head, and the same entry cannot be linked twice.
    clock.advance(DAY);
    await db.transaction((tx) =>
      updateOrganizationSettings(
        tx,
        { organizationId: first.organizationId, patch: { blockTrackingForChildren: false }, actor: STAFF },
        clock.now(),
      ),
    );
    await linkQueuedOf(db, first.organizationId, clock.now());
    const again = await verifyAuditChain(db, first.organizationId, keys, { now: clock.now() });
    assert.equal(again.intact, true, JSON.stringify(again.problems));
    assert.equal(again.headSeq, verified.headSeq + 1);
    await assert.rejects(
      db.query(
        `INSERT INTO audit_entries SELECT * FROM audit_entries WHERE organization_id = $1 AND seq = $2`,
        [first.organizationId, again.headSeq],
      ),
      /duplicate key/,
    );
  });
});
