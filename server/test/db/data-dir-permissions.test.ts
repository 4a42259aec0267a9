// The embedded database's files hold personal data and consent evidence: the data directory and
// everything in it is private to the user running Guard (directories 0700, files 0600), both when
// Guard creates it and when it opens one an older Guard left with looser modes.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { openDatabase } from "../../src/db/database.js";

/** Every file and directory under `root` (root included) that group or others may use. */
function looseEntries(root: string): string[] {
  const loose: string[] = [];
  const pending = [root];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const stat = fs.lstatSync(next);
    if (stat.isSymbolicLink()) continue;
    if (stat.mode & 0o077)
      loose.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, next) || "."}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(next)) pending.push(path.join(next, name));
  }
  return loose;
}

async function writeSomething(dataDir: string, table: string): Promise<void> {
  const db = await openDatabase({ dataDir });
  try {
    await db.query(`CREATE TABLE ${table} (id integer PRIMARY KEY, note text)`);
    await db.query(`INSERT INTO ${table} SELECT n, repeat('x', 200) FROM generate_series(1, 20000) AS n`);
    await db.query(`CREATE INDEX ON ${table} (note)`);
    await db.query("CHECKPOINT");
  } finally {
    await db.close();
  }
}

describe(
  "the embedded data directory is private",
  { skip: process.platform === "win32" && "POSIX modes" },
  () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), "guard-modes-"));
    after(() => fs.rmSync(parent, { recursive: true, force: true }));

    test("created, written and reopened: no file or directory is open to group or others", async () => {
      const dataDir = path.join(parent, "fresh", "data");
      await writeSomething(dataDir, "first");
      assert.deepEqual(looseEntries(dataDir), [], "after creating and writing");
      await writeSomething(dataDir, "second");
      assert.deepEqual(looseEntries(dataDir), [], "after reopening and writing again");
    });

    test("a directory left with loose modes by an older Guard is repaired on open, symlinks not followed", async () => {
      const dataDir = path.join(parent, "old");
      await writeSomething(dataDir, "first");
      const outside = path.join(parent, "outside.txt");
      fs.writeFileSync(outside, "not Guard's");
      fs.chmodSync(outside, 0o644);
      fs.symlinkSync(outside, path.join(dataDir, "link-out"));
      // What an older Guard left: files 0666, directories 0755.
      const pending = [dataDir];
      for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
        const stat = fs.lstatSync(next);
        if (stat.isSymbolicLink()) continue;
        fs.chmodSync(next, stat.isDirectory() ? 0o755 : 0o666);
        if (stat.isDirectory()) for (const name of fs.readdirSync(next)) pending.push(path.join(next, name));
      }
      assert.notDeepEqual(looseEntries(dataDir), []);

      const db = await openDatabase({ dataDir });
      try {
        assert.deepEqual(looseEntries(dataDir), [], "repaired as it is opened");
        const [row] = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM first");
        assert.equal(row?.count, 20000, "the data is intact");
      } finally {
        await db.close();
      }
      assert.equal(
        fs.statSync(outside).mode & 0o777,
        0o644,
        "a file outside, reached by a symlink, is left alone",
      );
    });
  },
);
