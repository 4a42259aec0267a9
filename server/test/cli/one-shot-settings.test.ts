// A `guard` command other than `serve` lives for one command: it opens the embedded database with a
// 16 MB buffer pool (PGlite clears the whole pool at every start); `guard serve` keeps PGlite's
// default. On PostgreSQL the server's own settings apply to every connection.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { CliContext } from "../../src/cli/context.js";
import { createOutput } from "../../src/cli/io.js";
import { loadConfig } from "../../src/config.js";
import { engine } from "../support/harness.js";

const quiet = { out: { write: () => true }, err: { write: () => true } };

async function sharedBuffersOf(dataDir: string, options: { serving?: boolean }): Promise<string> {
  const context = new CliContext(loadConfig({ GUARD_DATA_DIR: dataDir }), createOutput(true, quiet));
  try {
    const db = await context.db(options);
    const [row] = await db.query<{ value: string }>("SELECT current_setting('shared_buffers') AS value");
    return row!.value;
  } finally {
    await context.close();
  }
}

describe(
  "the embedded database's buffer pool per command",
  { skip: engine !== "pglite" && "embedded database only" },
  () => {
    test("16 MB for a one-shot command, PGlite's default for `guard serve`, on one data directory", async () => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-one-shot-"));
      try {
        assert.equal(await sharedBuffersOf(dataDir, {}), "16MB");
        assert.equal(await sharedBuffersOf(dataDir, { serving: true }), "128MB");
        assert.equal(await sharedBuffersOf(dataDir, {}), "16MB");
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  },
);
