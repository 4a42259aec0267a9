// The embedded database's statement path (db/pglite-pipelined.ts): parameters as node-postgres
// sends them, results as node-postgres parses them, errors intact, PGlite's locks honoured, and
// statements prepared by name.
// Always on PGlite (in memory, and in a directory for the settings), whichever engine the rest of
// the suite runs on.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { openDatabase, type Database } from "../../src/db/database.js";
import { toPostgresText } from "../../src/db/pglite-pipelined.js";

describe("PGlite pipelined statements", () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({});
    await db.query("CREATE TABLE items (id text PRIMARY KEY, n bigint, tags text[], doc jsonb)");
  });
  after(() => db.close());

  test("JavaScript values become PostgreSQL text as node-postgres sends them", () => {
    assert.equal(toPostgresText(null), null);
    assert.equal(toPostgresText(undefined), null);
    assert.equal(toPostgresText(1_700_000_000_123), "1700000000123");
    assert.equal(toPostgresText(false), "false");
    assert.equal(toPostgresText({ a: [1, "x"] }), '{"a":[1,"x"]}');
    assert.equal(toPostgresText(new Uint8Array([0, 255])), "\\x00ff");
    assert.equal(toPostgresText(new Date(0)), "1970-01-01T00:00:00.000Z");
    assert.equal(toPostgresText(["a", 'b"c', "d\\e", null, ["f"]]), '{"a","b\\"c","d\\\\e",NULL,{"f"}}');
  });

  test("parameters round-trip, including arrays of awkward strings, JSON and NULL", async () => {
    const tags = ["plain", "with,comma", 'quote"d', "back\\slash", "{braces}", " spaced ", "NULL", ""];
    const doc = { nested: { list: [1, 2], text: "नमस्ते" } };
    await db.query("INSERT INTO items (id, n, tags, doc) VALUES ($1, $2, $3, $4)", [
      "a",
      2 ** 53 - 1,
      tags,
      doc,
    ]);
    const [row] = await db.query("SELECT id, n, tags, doc FROM items WHERE id = $1", ["a"]);
    assert.deepEqual(row, { id: "a", n: 2 ** 53 - 1, tags, doc });
    const [nulls] = await db.query("SELECT $1::text AS t, $2::int AS i, NULL::bool AS b", [null, undefined]);
    assert.deepEqual(nulls, { t: null, i: null, b: null });
    assert.deepEqual(await db.query("SELECT 1 AS x WHERE false"), []);
  });

  test("a failing statement throws PostgreSQL's error and the next statement runs normally", async () => {
    await assert.rejects(
      db.query("INSERT INTO items (id) VALUES ($1)", ["a"]),
      (error: { code?: string }) => error.code === "23505",
    );
    await assert.rejects(
      db.query("SELECT * FROM no_such_table"),
      (error: { code?: string }) => error.code === "42P01",
    );
    const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM items");
    assert.equal(row?.n, 1);
  });

  test("a statement outside a transaction waits for an open transaction instead of joining it", async () => {
    let outsideDone = false;
    let outside: Promise<unknown> | undefined;
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO items (id) VALUES ($1)", ["in-tx"]);
      outside = db.query("SELECT id FROM items WHERE id = $1", ["in-tx"]).then((rows) => {
        outsideDone = true;
        return rows;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(outsideDone, false, "the outside statement ran inside the open transaction");
      await tx.query("DELETE FROM items WHERE id = $1", ["in-tx"]);
    });
    assert.deepEqual(await outside, [], "it ran after the commit, and saw the committed state");
  });

  test("a transaction that throws is rolled back", async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO items (id) VALUES ($1)", ["rolled-back"]);
        throw new Error("give up");
      }),
      /give up/,
    );
    assert.deepEqual(await db.query("SELECT id FROM items WHERE id = $1", ["rolled-back"]), []);
  });

  test("a statement prepared by name is planned once and runs by name, in and out of transactions", async () => {
    const sql = "SELECT id, n FROM items WHERE id = $1";
    const prepared = { preparedAs: "items_by_id" };
    assert.deepEqual(await db.query(sql, ["a"], prepared), [{ id: "a", n: 2 ** 53 - 1 }]);
    assert.deepEqual(await db.query(sql, ["nothing"], prepared), []);
    await assert.rejects(
      db.transaction(async (tx) => {
        assert.deepEqual(await tx.query(sql, ["a"], prepared), [{ id: "a", n: 2 ** 53 - 1 }]);
        throw new Error("roll back");
      }),
      /roll back/,
    );
    // A rollback keeps prepared statements, and the session knows the name once.
    assert.deepEqual(await db.query(sql, ["a"], prepared), [{ id: "a", n: 2 ** 53 - 1 }]);
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1",
      ["items_by_id"],
    );
    assert.equal(row?.n, 1);
  });

  test("a name stands for one SQL text; a failed preparation or execution leaves the name usable", async () => {
    await assert.rejects(
      db.query("SELECT id FROM items WHERE n = $1", [1], { preparedAs: "items_by_id" }),
      /already prepared for other SQL/,
    );
    // Parse fails: nothing is prepared, and the corrected text can take the name.
    await assert.rejects(
      db.query("SELEC id FROM items", [], { preparedAs: "fixed_later" }),
      (error: { code?: string }) => error.code === "42601",
    );
    assert.deepEqual(
      await db.query("SELECT id FROM items WHERE id = $1", ["a"], { preparedAs: "fixed_later" }),
      [{ id: "a" }],
    );
    const insert = "INSERT INTO items (id, n) VALUES ($1, $2) RETURNING id";
    assert.deepEqual(await db.query(insert, ["p1", 1], { preparedAs: "insert_item" }), [{ id: "p1" }]);
    // Execution fails (a duplicate key, then a value the parameter's type refuses); the prepared
    // statement survives both.
    await assert.rejects(
      db.query(insert, ["p1", 2], { preparedAs: "insert_item" }),
      (error: { code?: string }) => error.code === "23505",
    );
    await assert.rejects(
      db.query(insert, ["p2", "not a number"], { preparedAs: "insert_item" }),
      (error: { code?: string }) => error.code === "22P02",
    );
    assert.deepEqual(await db.query(insert, ["p2", 2], { preparedAs: "insert_item" }), [{ id: "p2" }]);
  });

  test("cached plans can be dropped, so a plan made while a table was small does not outlive its size", async () => {
    // PGlite runs no autovacuum, so nothing else would ever invalidate the plan below; the
    // database drops its plans on a timer (db/database.ts), which is discardPlans().
    await db.query("CREATE TABLE parents (id text PRIMARY KEY, n int)");
    await db.query("INSERT INTO parents SELECT 'p' || g, g FROM generate_series(1, 50) AS g");
    const sql = "SELECT p.n FROM json_to_recordset($1::json) AS i (id text) JOIN parents p ON p.id = i.id";
    const probe = JSON.stringify([{ id: "p1" }]);
    const run = async () => {
      // Past PostgreSQL's five custom plans, so the statement's generic plan is the one kept.
      for (let i = 0; i < 8; i += 1)
        assert.deepEqual(await db.query(sql, [probe], { preparedAs: "join_probe" }), [{ n: 1 }]);
    };
    const plan = async () =>
      (await db.query<{ "QUERY PLAN": string }>(`EXPLAIN EXECUTE join_probe('${probe}')`))
        .map((row) => row["QUERY PLAN"])
        .join("\n");
    await run();
    assert.match(await plan(), /Seq Scan on parents/);
    await db.query("INSERT INTO parents SELECT 'q' || g, g FROM generate_series(1, 100000) AS g");
    await run();
    assert.match(await plan(), /Seq Scan on parents/, "kept while nothing invalidates it");
    await (db as unknown as { discardPlans(): Promise<void> }).discardPlans();
    await run();
    assert.match(await plan(), /Index Scan using parents_pkey/);
  });
});

test("server settings given to openDatabase apply to that start of PGlite only, in memory or in a directory", async () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-settings-"));
  const setting = "SELECT current_setting('shared_buffers') AS sb, current_setting('work_mem') AS wm";
  try {
    for (const where of [{}, { dataDir }]) {
      const tuned = await openDatabase({
        ...where,
        settings: { shared_buffers: "16MB", work_mem: "1234kB" },
      });
      try {
        assert.deepEqual(await tuned.query(setting), [{ sb: "16MB", wm: "1234kB" }], JSON.stringify(where));
      } finally {
        await tuned.close();
      }
      const plain = await openDatabase(where);
      try {
        assert.deepEqual(await plain.query(setting), [{ sb: "128MB", wm: "4MB" }], JSON.stringify(where));
      } finally {
        await plain.close();
      }
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
