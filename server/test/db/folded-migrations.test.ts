// Before the first release the gate decision log's five migrations were folded into
// 0040_gate_decisions. A database that applied all five already has that schema and is recorded
// as migrated; one that applied only some holds a schema no shipped migration leads on from, and
// is refused with instructions instead of being half-migrated.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Database } from "../../src/db/database.js";
import { migrate, MigrationError } from "../../src/db/migrate.js";
import { openTestDatabase } from "../support/harness.js";

const FOLDED = [
  "0040_gate_decisions_time_order",
  "0041_gate_record_decisions",
  "0042_gate_decisions_by_consent",
  "0043_gate_statement_prepared",
  "0044_gate_decision_groups",
];

/** Rewrites the migration record as a Guard from before the fold would have left it. */
async function recordAsBeforeTheFold(db: Database, applied: readonly string[]): Promise<void> {
  await db.query("DELETE FROM schema_migrations WHERE migration_id = '0040_gate_decisions'");
  for (const id of applied)
    await db.query("INSERT INTO schema_migrations (migration_id, applied_at) VALUES ($1, 1)", [id]);
}

const recorded = async (db: Database) =>
  (await db.query<{ migration_id: string }>("SELECT migration_id FROM schema_migrations")).map(
    (r) => r.migration_id,
  );

describe("migrations folded before the first release", () => {
  let database: Awaited<ReturnType<typeof openTestDatabase>>;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database.dispose());

  test("a database that applied every folded migration is up to date, and says so", async () => {
    await recordAsBeforeTheFold(database.db, FOLDED);
    assert.deepEqual(await migrate(database.db), []);
    const ids = await recorded(database.db);
    assert.ok(ids.includes("0040_gate_decisions"));
    for (const id of FOLDED) assert.ok(ids.includes(id), `${id} stays recorded for older Guards`);
  });

  test("a database that applied only some of them is refused with what to do", async () => {
    await database.db.query("DELETE FROM schema_migrations WHERE migration_id = ANY($1::text[])", [
      ["0040_gate_decisions", ...FOLDED.slice(2)],
    ]);
    await assert.rejects(
      migrate(database.db),
      (error: unknown) =>
        error instanceof MigrationError &&
        error.message.includes("0042_gate_decisions_by_consent") &&
        /Recreate it/.test(error.message),
    );
    assert.ok(!(await recorded(database.db)).includes("0040_gate_decisions"), "nothing was recorded");
  });
});
