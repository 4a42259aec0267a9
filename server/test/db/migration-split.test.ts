// Migration files are split into single statements (extended-protocol queries take one each);
// a PL/pgSQL body's own semicolons must not split it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { listMigrations, splitStatements } from "../../src/db/migrate.js";

test("statements end at a semicolon at the end of a line; whole-line comments are dropped", () => {
  const sql = [
    "-- a comment; not a statement",
    "CREATE TABLE a (x TEXT); -- trailing comment",
    "CREATE INDEX a_x",
    "  ON a (x);",
    "ALTER TABLE a ADD COLUMN y TEXT -- no semicolon yet",
    ";",
  ].join("\n");
  assert.deepEqual(splitStatements(sql), [
    "CREATE TABLE a (x TEXT)",
    "CREATE INDEX a_x\n  ON a (x)",
    "ALTER TABLE a ADD COLUMN y TEXT -- no semicolon yet",
  ]);
});

test("a dollar-quoted function body stays one statement, whatever its tag", () => {
  const body = (tag: string) =>
    [
      `CREATE FUNCTION f() RETURNS int LANGUAGE plpgsql AS ${tag}`,
      "DECLARE",
      "  n int;",
      "BEGIN",
      "  -- a comment inside the body is kept",
      "  SELECT 1 INTO n;",
      "  RETURN n;",
      "END",
      `${tag};`,
    ].join("\n");
  for (const tag of ["$$", "$body$", "$fn_2$"]) {
    const statements = splitStatements(`${body(tag)}\nSELECT 2;`);
    assert.equal(statements.length, 2, tag);
    assert.ok(statements[0]!.includes("  SELECT 1 INTO n;\n  RETURN n;"), tag);
    assert.ok(statements[0]!.includes("-- a comment inside the body is kept"), tag);
    assert.ok(statements[0]!.endsWith(tag), tag);
    assert.equal(statements[1], "SELECT 2");
  }
});

test("dollar signs in a trailing comment do not open a quoted body", () => {
  const sql = "CREATE TABLE s (\n  h TEXT -- scrypt$N$r$p$salt$hash\n);\nSELECT 1;";
  assert.deepEqual(splitStatements(sql), [
    "CREATE TABLE s (\n  h TEXT -- scrypt$N$r$p$salt$hash\n)",
    "SELECT 1",
  ]);
});

test("the shipped migrations split into complete statements", () => {
  for (const migration of listMigrations()) {
    for (const statement of splitStatements(migration.sql)) {
      // Outside comments, dollar quotes come in pairs within one statement.
      const code = statement.replace(/--.*$/gm, "");
      assert.equal(
        (code.match(/\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/g) ?? []).length % 2,
        0,
        `${migration.id}: ${statement}`,
      );
    }
  }
});
