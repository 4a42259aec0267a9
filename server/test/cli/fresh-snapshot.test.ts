// A fresh embedded data directory starts from the migrated snapshot (db/fresh-snapshot.ts), its
// files unpacked by Node (db/snapshot-tar.ts). A snapshot that does not read whole is never used:
// the start takes the slow path (initdb and every migration) and saves a sound snapshot in its
// place, without the template databases Guard never uses. An unpack a killed process left half
// done does not stop the next start.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { freshSnapshotFile } from "../../src/db/fresh-snapshot.js";
import { listMigrations } from "../../src/db/migrate.js";
import { readSnapshotTar } from "../../src/db/snapshot-tar.js";
import { createCliEnvironment } from "../support/cli-helpers.js";
import { engine, migratedSnapshot } from "../support/harness.js";

describe("a fresh embedded data directory and the migrated snapshot", { skip: engine !== "pglite" }, () => {
  const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-snapshot-"));
  after(() => fs.rmSync(snapshotDir, { recursive: true, force: true }));

  const soundSnapshot = async () => Buffer.from(await (await migratedSnapshot()).arrayBuffer());

  test("a truncated snapshot means the slow path, which saves a sound snapshot in its place", async () => {
    const sound = await soundSnapshot();
    const file = freshSnapshotFile(snapshotDir);
    fs.writeFileSync(file, sound.subarray(0, Math.floor(sound.length / 2)));
    const cli = await createCliEnvironment();
    cli.env.GUARD_SNAPSHOT_DIR = snapshotDir;
    try {
      const res = await cli.run(["migrate"]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /^Creating the embedded database in .* \(first start/m);
      assert.match(res.stderr, new RegExp(`^Applying ${listMigrations().length} database migrations…$`, "m"));
      assert.equal(fs.readdirSync(cli.dataDir).filter((name) => name.includes("unpacking")).length, 0);
      assert.ok(!fs.existsSync(path.join(cli.dataDir, "pgdata.creating")), "the creation marker is gone");
    } finally {
      await cli.dispose();
    }
    const saved = fs.readFileSync(file);
    assert.ok(saved.length > sound.length / 2, "the truncated file was replaced");
    const names = readSnapshotTar(saved).entries.map((entry) => entry.name);
    assert.ok(names.length > 100);
    // template1 (oid 1) and template0 (oid 4) were dropped; the database in use (5) is whole.
    assert.deepEqual(
      [...new Set(names.filter((name) => name.startsWith("base/")).map((name) => name.split("/")[1]))],
      ["5"],
    );
  });

  test("an unpack a killed process left half done does not stop the next start", async () => {
    fs.writeFileSync(freshSnapshotFile(snapshotDir), await soundSnapshot());
    const cli = await createCliEnvironment();
    cli.env.GUARD_SNAPSHOT_DIR = snapshotDir;
    try {
      const left = path.join(cli.dataDir, `pgdata.unpacking-${process.pid}-0badf00d`);
      fs.mkdirSync(path.join(left, "global"), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(left, "PG_VERSION"), "18\n");
      fs.writeFileSync(path.join(left, "global", "pg_control"), Buffer.alloc(100));
      const res = await cli.run(["migrate"]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /^Creating the embedded database in .*…$/m);
      assert.doesNotMatch(res.stderr, /first start|Applying/, "started from the snapshot");
      assert.ok(!fs.existsSync(left), "the leftover was removed");
      const created = await cli.run(["--json", "org", "create", "--slug", "unpacked", "--name", "Unpacked"]);
      assert.equal(created.code, 0, created.stderr);
      assert.match((await cli.run(["--json", "org", "list"])).stdout, /"unpacked"/);
    } finally {
      await cli.dispose();
    }
  });

  test("a cluster a first start was interrupted while creating is created again, not reported damaged", async () => {
    fs.writeFileSync(freshSnapshotFile(snapshotDir), await soundSnapshot());
    const cli = await createCliEnvironment();
    cli.env.GUARD_SNAPSHOT_DIR = snapshotDir;
    try {
      // What PGlite's own initdb leaves when the process dies in it: part of a cluster, and the
      // marker openDatabase wrote before it began.
      const pgdata = path.join(cli.dataDir, "pgdata");
      fs.mkdirSync(path.join(pgdata, "global"), { recursive: true, mode: 0o700 });
      fs.writeFileSync(path.join(pgdata, "PG_VERSION"), "17\n");
      fs.writeFileSync(path.join(pgdata, "global", "pg_control"), Buffer.alloc(100));
      fs.writeFileSync(`${pgdata}.creating`, "");
      const res = await cli.run(["migrate"]);
      assert.equal(res.code, 0, res.stderr);
      assert.match(res.stderr, /^Creating the embedded database in .*…$/m);
      assert.doesNotMatch(res.stderr, /damaged|cannot be opened/);
      assert.ok(!fs.existsSync(`${pgdata}.creating`), "the marker was removed");
      const created = await cli.run([
        "--json",
        "org",
        "create",
        "--slug",
        "recreated",
        "--name",
        "Recreated",
      ]);
      assert.equal(created.code, 0, created.stderr);
      assert.match((await cli.run(["--json", "org", "list"])).stdout, /"recreated"/);
    } finally {
      await cli.dispose();
    }
  });
});
