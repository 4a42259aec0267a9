// The start banner people read (`guard serve` without --json, as `npm start` runs it): where to go
// next, the demo's one-time credentials with how to get new ones on the first start, and on every
// later start how to get new ones instead of the secrets.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

const GUARD_BIN = fileURLToPath(new URL("../../bin/guard.js", import.meta.url));

/** Starts `guard serve --seed-demo` for people, waits for its banner, stops it; the banner's text. */
function banner(cli: CliEnvironment): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...cli.env };
  if (engine === "pglite") delete env.DATABASE_URL;
  const child = spawn(process.execPath, [GUARD_BIN, "serve", "--seed-demo", "--port", "0"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let shown = false;
  return new Promise((resolve, reject) => {
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString();
      // The banner's last line: the demo shop's address.
      if (!shown && /^ {2}Demo shop: .*\n/m.test(stderr)) {
        shown = true;
        child.kill("SIGTERM");
      }
    });
    child.stdout.resume();
    void exited.then((code) =>
      shown
        ? resolve(stderr)
        : reject(new Error(`guard serve exited (${code}) before its banner:\n${stderr}`)),
    );
  });
}

describe("the start banner", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment();
  });
  after(() => cli.dispose());

  test("first start: the addresses, where to go next, the demo's secrets and how to get new ones", async () => {
    const text = await banner(cli);
    assert.match(text, /^Guard is running at http:\/\/127\.0\.0\.1:\d+ /m);
    assert.match(text, /^ {2}API reference: +http:\/\/127\.0\.0\.1:\d+\/docs$/m);
    assert.match(text, /^ {2}Next: +docs\/getting-started\.md /m);
    assert.match(text, /^ {2}staff admin: +admin@demo\.example \/ \S+$/m);
    assert.match(text, /^ {2}service key: +gk_live_\S+$/m);
    assert.match(text, /^ {2}lost them\? +npx guard demo reset-credentials /m);
    assert.doesNotMatch(text, /\n\s+at /, "no stack trace");
  });

  test("later starts: no secrets, and the command that makes new ones", async () => {
    const text = await banner(cli);
    assert.match(text, /^ {2}Next: +docs\/getting-started\.md /m);
    assert.doesNotMatch(text, /gk_live_|staff admin:/);
    assert.match(
      text,
      /its credentials were shown once, on its first start\. New ones:\n {2}run: npx guard demo reset-credentials$/m,
    );
  });
});
