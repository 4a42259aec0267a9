// The embedded database's statistics job (db/embedded-statistics.ts, run by db/database.ts): a
// table changed past autovacuum's analyze threshold (50 rows + 10 % of its rows at the last
// ANALYZE) is analyzed, smaller changes are left alone, the job runs on the database's timer, and
// its ANALYZE makes prepared statements plan again for the table's new size.
// Always on an in-memory PGlite, whichever engine the rest of the suite runs on: a PostgreSQL
// server has autovacuum, and the job never runs there.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, mock, test } from "node:test";
import { openDatabase, type Database } from "../../src/db/database.js";
import { analyzeChangedTables } from "../../src/db/embedded-statistics.js";

type TableStatistics = {
  n_mod_since_analyze: number;
  last_analyze: Date | null;
  reltuples: number;
};

async function statisticsOf(db: Database, table: string): Promise<TableStatistics> {
  await db.query("SELECT pg_stat_force_next_flush()");
  const [row] = await db.query<TableStatistics>(
    `SELECT s.n_mod_since_analyze, s.last_analyze, c.reltuples
       FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.relname = $1`,
    [table],
  );
  assert.ok(row, `no statistics row for ${table}`);
  return row;
}

/** Inserts rows `from`..`to` into `table` (id text, n int). */
async function insertRows(db: Database, table: string, from: number, to: number): Promise<void> {
  await db.query(`INSERT INTO ${table} SELECT 'r' || g, g FROM generate_series($1::int, $2::int) AS g`, [
    from,
    to,
  ]);
}

describe("embedded database statistics", () => {
  let db: Database;
  before(async () => {
    // The database's timer runs on a mocked clock: only the last test moves it.
    mock.timers.enable({ apis: ["setInterval"] });
    db = await openDatabase({});
  });
  after(async () => {
    await db.close();
    mock.timers.reset();
  });

  test("a new table is analyzed once more than 50 rows have changed, not before", async () => {
    await db.query("CREATE TABLE fresh (id text PRIMARY KEY, n int)");
    await insertRows(db, "fresh", 1, 50);
    assert.deepEqual(await analyzeChangedTables(db), []);
    const untouched = await statisticsOf(db, "fresh");
    assert.equal(untouched.n_mod_since_analyze, 50);
    assert.equal(untouched.last_analyze, null);

    await insertRows(db, "fresh", 51, 51);
    assert.deepEqual(await analyzeChangedTables(db), ["public.fresh"]);
    const analyzed = await statisticsOf(db, "fresh");
    assert.equal(analyzed.n_mod_since_analyze, 0);
    assert.notEqual(analyzed.last_analyze, null);
    assert.equal(analyzed.reltuples, 51);
  });

  test("a grown table is analyzed past 50 + 10 % of its rows; smaller changes are left alone", async () => {
    await db.query("CREATE TABLE grown (id text PRIMARY KEY, n int)");
    await insertRows(db, "grown", 1, 1_000);
    assert.deepEqual(await analyzeChangedTables(db), ["public.grown"]);
    const first = await statisticsOf(db, "grown");
    assert.equal(first.reltuples, 1_000);

    // The threshold is now 50 + 100 = 150 changes: updates and deletes count as inserts do.
    await db.query("UPDATE grown SET n = -n WHERE n <= 100");
    await db.query("DELETE FROM grown WHERE n BETWEEN 101 AND 150");
    assert.deepEqual(await analyzeChangedTables(db), []);
    const below = await statisticsOf(db, "grown");
    assert.equal(below.n_mod_since_analyze, 150);
    assert.deepEqual(below.last_analyze, first.last_analyze);
    assert.equal(below.reltuples, 1_000);

    await insertRows(db, "grown", 1_001, 1_001);
    assert.deepEqual(await analyzeChangedTables(db), ["public.grown"]);
    const second = await statisticsOf(db, "grown");
    assert.equal(second.n_mod_since_analyze, 0);
    assert.equal(second.reltuples, 951);
    assert.ok(second.last_analyze! > first.last_analyze!);
  });

  test("its ANALYZE re-plans a prepared statement planned while the table was small", async () => {
    await db.query("CREATE TABLE parents (id text PRIMARY KEY, n int)");
    await insertRows(db, "parents", 1, 60);
    assert.deepEqual(await analyzeChangedTables(db), ["public.parents"]);
    const sql = "SELECT p.n FROM json_to_recordset($1::json) AS i (id text) JOIN parents p ON p.id = i.id";
    const probe = JSON.stringify([{ id: "r1" }]);
    const run = async () => {
      // Past PostgreSQL's five custom plans, so the statement's generic plan is the one kept.
      for (let i = 0; i < 8; i += 1)
        assert.deepEqual(await db.query(sql, [probe], { preparedAs: "parents_probe" }), [{ n: 1 }]);
    };
    const plan = async () =>
      (await db.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE parents_probe('${probe}')`))
        .map((row) => row["QUERY PLAN"])
        .join("\n");
    await run();
    assert.match(await plan(), /Seq Scan on parents/);
    await insertRows(db, "parents", 61, 100_000);
    await run();
    assert.match(await plan(), /Seq Scan on parents/, "kept until the statistics change");
    assert.deepEqual(await analyzeChangedTables(db), ["public.parents"]);
    await run();
    assert.match(await plan(), /Index Scan using parents_pkey/);
  });

  test("the database runs the job once a minute, with nothing else asking", async () => {
    await db.query("CREATE TABLE timed (id text PRIMARY KEY, n int)");
    await insertRows(db, "timed", 1, 500);
    mock.timers.tick(59_999);
    await sleep(50);
    assert.equal((await statisticsOf(db, "timed")).last_analyze, null, "not before the minute is up");
    mock.timers.tick(1);
    let analyzed = await statisticsOf(db, "timed");
    for (let waited = 0; waited < 5_000 && !analyzed.last_analyze; waited += 20) {
      await sleep(20);
      analyzed = await statisticsOf(db, "timed");
    }
    assert.notEqual(analyzed.last_analyze, null);
    assert.equal(analyzed.n_mod_since_analyze, 0);
    assert.equal(analyzed.reltuples, 500);
  });
});
