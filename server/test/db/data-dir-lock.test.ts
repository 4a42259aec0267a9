// The embedded database has one opener: a second process on the same data directory exits with a
// clear message and changes nothing; a lock left by a dead process is taken over.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

describe(
  "single opener of the embedded data directory",
  { skip: engine !== "pglite" && "embedded database only" },
  () => {
    let cli: CliEnvironment;
    before(async () => {
      cli = await createCliEnvironment();
      const created = await cli.run(["org", "create", "--slug", "lock", "--name", "Lock Test"]);
      assert.equal(created.code, 0, created.stderr);
    });
    after(() => cli.dispose());

    test("a second server or CLI on a directory in use exits 1 with a clear message; data intact", async () => {
      const server = await cli.serve();
      try {
        const second = await cli.run(["serve", "--port", "0"]);
        assert.equal(second.code, 1);
        assert.match(second.stderr, /in use by another Guard process \(pid \d+\)/);
        const cliWrite = await cli.run(["org", "create", "--slug", "other", "--name", "Other"]);
        assert.equal(cliWrite.code, 1);
        assert.match(cliWrite.stderr, /in use by another Guard process/);
        const org = await fetch(`${server.url}/api/v1/org/lock`);
        assert.equal(org.status, 200, "the running server is unaffected");
      } finally {
        assert.equal(await server.stop(), 0);
      }
      assert.equal(
        fs.existsSync(path.join(cli.dataDir, "guard.lock")),
        false,
        "a clean stop releases the lock",
      );
      const afterStop = await cli.run(["--json", "org", "create", "--slug", "other", "--name", "Other"]);
      assert.equal(afterStop.code, 0, afterStop.stderr);
    });

    test("a stale lock from a dead process is taken over", async () => {
      // pid 2^22+1 is above Linux's default pid_max, so no live process has it.
      fs.writeFileSync(path.join(cli.dataDir, "guard.lock"), `${2 ** 22 + 1}\n`);
      const result = await cli.run(["--json", "migrate"]);
      assert.equal(result.code, 0, result.stderr);
    });
  },
);
