// Starts a benchmark target (`target-server.mjs`) as its own process and talks to it over a
// control channel on file descriptor 3: the target writes one JSON line when it is ready, one in
// answer to each command line sent, and one when it stops. Its stdout and stderr, where a Guard
// server writes its logs as a deployment would, go to a file: the load generator never reads them,
// so a chatty log level costs the server what it costs in production and the load generator nothing.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";

/**
 * Starts `target-server.mjs` with `args`; resolves once it is ready with
 * `{ ready, pid, ask(command), stop(), logBytes() }`. `ready` is its first JSON line, `ask` sends
 * one command and resolves with the answer line, `stop` sends SIGTERM and resolves with its last
 * line, `logBytes` is the size of what it has logged so far.
 */
export async function startTarget(args) {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-log-"));
  const logFile = path.join(logDir, "target.log");
  const log = fs.openSync(logFile, "a");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL("./target-server.mjs", import.meta.url).pathname, ...args],
    { stdio: ["ignore", log, log, "pipe"] },
  );
  fs.closeSync(log);
  const control = child.stdio[3];
  const lines = readline.createInterface({ input: control });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) => reject(new Error(`target exited with ${code}`));
      child.once("exit", onExit);
      lines.once("line", (line) => {
        child.off("exit", onExit);
        resolve(JSON.parse(line));
      });
    });
  const cleanUp = () => fs.rmSync(logDir, { recursive: true, force: true });
  let ready;
  try {
    ready = await next();
  } catch (error) {
    process.stderr.write(fs.readFileSync(logFile, "utf8").slice(-4000));
    cleanUp();
    throw error;
  }
  return {
    ready,
    pid: child.pid,
    ask: (command) => {
      const answer = next();
      control.write(`${command}\n`);
      return answer;
    },
    logBytes: () => fs.statSync(logFile).size,
    stop: async () => {
      const last = next().catch(() => undefined);
      child.kill("SIGTERM");
      const answer = await last;
      const code = await exited;
      if (code !== 0) process.stderr.write(fs.readFileSync(logFile, "utf8").slice(-4000));
      cleanUp();
      return answer;
    },
  };
}
