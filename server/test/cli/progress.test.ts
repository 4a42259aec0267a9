// The slow phases of a start say what they are doing (on stderr, for people; never with --json):
// creating the embedded database on a fresh data directory, and applying migrations with a count.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { listMigrations } from "../../src/db/migrate.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

describe("start-up progress lines", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment();
  });
  after(() => cli.dispose());

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
