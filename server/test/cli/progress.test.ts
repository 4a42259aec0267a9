// The slow phases of a start say what they are doing (on stderr, for people; never with --json):
// creating the embedded database on a fresh data directory, and applying migrations with a count.
// A fresh directory after the first starts from the migrated snapshot the first one left
// (db/fresh-snapshot.ts): no migrations to apply, the same schema.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { freshSnapshotFile } from "../../src/db/fresh-snapshot.js";
import { listMigrations } from "../../src/db/migrate.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

describe("start-up progress lines", () => {
  let cli: CliEnvironment;
  // This file's own snapshot directory, so the first fresh directory takes the slow path.
  const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-snapshot-"));
  before(async () => {
    cli = await createCliEnvironment();
    cli.env.GUARD_SNAPSHOT_DIR = snapshotDir;
  });
  after(async () => {
    await cli.dispose();
    fs.rmSync(snapshotDir, { recursive: true, force: true });
  });

  test("a fresh database: creation (embedded) and the migration count; then nothing to say", async () => {
    const first = await cli.run(["migrate"]);
    assert.equal(first.code, 0, first.stderr);
    const count = listMigrations().length;
    if (engine === "pglite")
      assert.match(first.stderr, /^Creating the embedded database in .* \(first start/m);
    else assert.doesNotMatch(first.stderr, /Creating the embedded database/);
    assert.match(first.stderr, new RegExp(`^Applying ${count} database migrations…$`, "m"));
    assert.match(first.stderr, /^ {2}done in \d+\.\d s$/m);

    const again = await cli.run(["migrate"]);
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stderr, "", "an up-to-date database opens silently");
    assert.deepEqual(again.json<{ applied: string[] }>().applied.length, 0);
  });

  test(
    "a later fresh directory starts from the migrated snapshot",
    { skip: engine !== "pglite" },
    async () => {
      assert.ok(fs.existsSync(freshSnapshotFile(snapshotDir)), "the first creation left the snapshot");
      const later = await createCliEnvironment();
      later.env.GUARD_SNAPSHOT_DIR = snapshotDir;
      try {
        const first = await later.run(["migrate"]);
        assert.equal(first.code, 0, first.stderr);
        assert.match(first.stderr, /^Creating the embedded database in .*…$/m);
        assert.doesNotMatch(first.stderr, /first start|Applying/, "nothing left to migrate");
        // The schema is whole: an organisation can be created and read back.
        const created = await later.run(["--json", "org", "create", "--slug", "snap", "--name", "Snap"]);
        assert.equal(created.code, 0, created.stderr);
        const listed = await later.run(["--json", "org", "list"]);
        assert.match(listed.stdout, /"snap"/);
      } finally {
        await later.dispose();
      }
    },
  );

  test("--json prints no progress", async () => {
    const fresh = await createCliEnvironment();
    try {
      const res = await fresh.run(["--json", "migrate"]);
      assert.equal(res.code, 0, res.stderr);
      assert.equal(res.stderr, "");
    } finally {
      await fresh.dispose();
    }
  });
});
