// Starts conformance/fixture-server.mjs as a child process for the test runner, waits for its JSON
// line, and hands back the fixtures with a stop() that takes its whole process group down.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const START_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 10_000;

/** Resolves to { fixtures, fixturesJson, stop() }; rejects if the server does not come up. */
export function startFixtureServer({ log = () => {} } = {}) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "conformance/fixture-server.mjs", "--exit-with-parent"],
    {
      cwd: ROOT,
      // Its own process group, so stop() also reaches anything it started; the stdin pipe closing
      // (this process dying, however it dies) stops it too.
      detached: true,
      stdio: ["pipe", "pipe", "pipe"],
    },
  );
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (text) => {
    for (const line of text.split("\n").filter(Boolean)) log(line);
  });
  let exited = false;
  const exit = new Promise((resolve) =>
    child.on("exit", () => {
      exited = true;
      resolve();
    }),
  );

  const stop = async () => {
    if (exited) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }, STOP_GRACE_MS);
    await exit;
    clearTimeout(timer);
  };

  return new Promise((resolve, reject) => {
    let buffered = "";
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`the fixture server printed no fixtures within ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (text) => {
      buffered += text;
      const newline = buffered.indexOf("\n");
      if (newline === -1) return;
      clearTimeout(timer);
      const fixturesJson = buffered.slice(0, newline);
      try {
        resolve({ fixtures: JSON.parse(fixturesJson), fixturesJson, stop });
      } catch (error) {
        void stop();
        reject(new Error(`the fixture server printed something other than JSON: ${error.message}`));
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the fixture server exited (code ${code}) before printing its fixtures`));
    });
  });
}
