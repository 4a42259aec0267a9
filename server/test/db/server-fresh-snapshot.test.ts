// startServer (the fuzzer, the conformance fixture, the benches) on a fresh embedded data directory
// starts from the migrated snapshot when there is one, as `guard serve` does
// (cli/fresh-snapshot.test.ts); created the slow way, the directory is saved as that snapshot.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { testConfig } from "../../src/config.js";
import { openDatabase } from "../../src/db/database.js";
import { freshSnapshotFile, saveFreshSnapshot } from "../../src/db/fresh-snapshot.js";
import { migrate } from "../../src/db/migrate.js";
import { readSnapshotTar } from "../../src/db/snapshot-tar.js";
import { startServer } from "../../src/server.js";
import { engine } from "../support/harness.js";

describe("startServer on a fresh embedded data directory", { skip: engine !== "pglite" }, () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "guard-server-snapshot-"));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const config = (name: string, snapshotDir: string) =>
    testConfig({ dataDir: path.join(root, name), snapshotDir, port: 0, host: "127.0.0.1", logLevel: "warn" });

  test("starts from the snapshot in the snapshot directory", async () => {
    // A snapshot that carries a mark no migration makes: a directory started from it has the mark.
    const snapshotDir = path.join(root, "marked");
    fs.mkdirSync(snapshotDir);
    const source = await openDatabase({});
    try {
      await migrate(source);
      await source.query("CREATE TABLE snapshot_mark (made_by text)");
      await saveFreshSnapshot(source, snapshotDir);
    } finally {
      await source.close();
    }
    assert.ok(fs.existsSync(freshSnapshotFile(snapshotDir)));
    const server = await startServer(config("from-snapshot", snapshotDir));
    try {
      const marked = await server.db.query("SELECT to_regclass('snapshot_mark') IS NOT NULL AS here");
      assert.deepEqual(marked, [{ here: true }]);
    } finally {
      await server.stop();
    }
  });

  test("without one, it takes the slow path and saves the snapshot the next fresh directory uses", async () => {
    const snapshotDir = path.join(root, "empty");
    fs.mkdirSync(snapshotDir);
    const server = await startServer(config("slow", snapshotDir));
    await server.stop();
    const saved = readSnapshotTar(fs.readFileSync(freshSnapshotFile(snapshotDir)));
    assert.ok(saved.entries.some((entry) => entry.name === "PG_VERSION"));
  });
});
