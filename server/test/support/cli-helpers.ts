// Runs the real `guard` command (server/bin/guard.js) as a child process against a temporary data
// directory (PGlite) or a fresh database on the test cluster (PostgreSQL). Or, for the many tests
// of what commands do rather than of the process around them, in this process: the same main()
// a running server runs a forwarded invocation with (cli/cli-socket.ts), against a database opened
// once, which saves a Node start and a database open per command. server/test/cli/ keeps testing
// the real process (start-up, configuration, locking, streams, exit).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { linkAllQueued } from "../../src/audit/sequencer.js";
import type { CliHost } from "../../src/cli/cli-socket.js";
import { CliContext } from "../../src/cli/context.js";
import { createOutput, type CliIo } from "../../src/cli/io.js";
import { main } from "../../src/cli/main.js";
import { loadConfig } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { openConfiguredDatabase } from "../../src/server.js";
import { createPostgresDatabase, engine } from "./harness.js";

const GUARD_BIN = fileURLToPath(new URL("../../bin/guard.js", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

export interface CliEnvironment {
  dataDir: string;
  env: Record<string, string>;
  run(args: string[], options?: { stdin?: string }): Promise<CliResult>;
  serve(args?: string[]): Promise<RunningCli>;
  /**
   * Runs `work` against the environment's database, as a test that reads or tampers with it
   * directly needs: the in-process commands' own connection, or one opened for the call.
   */
  withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T>;
  dispose(): Promise<void>;
}

const devNull = { write: () => true };

export interface RunningCli {
  child: ChildProcess;
  url: string;
  /** The line `--json serve` printed once listening: `{url, demo}` (demo: the seeded secrets, or null). */
  ready: { url: string; demo: Record<string, string> | null };
  output: () => string;
  stop(): Promise<number | null>;
}

/**
 * A data directory (PGlite) or database (PostgreSQL) of its own, and a `guard` to run against it.
 * `inProcess`: commands run in this process (see the top of this file) while no `serve` child
 * holds the directory; the output and exit code are the command's own either way.
 */
export async function createCliEnvironment(options: { inProcess?: boolean } = {}): Promise<CliEnvironment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-cli-"));
  const env: Record<string, string> = { GUARD_DATA_DIR: dataDir, GUARD_LOG_LEVEL: "warn" };
  let dropDatabase: (() => Promise<void>) | undefined;
  if (engine === "postgres") {
    const created = await createPostgresDatabase();
    env.DATABASE_URL = created.url;
    env.GUARD_TOKEN_SECRET = "cli-test-token-secret-cli-test-token-secret";
    env.GUARD_AUDIT_HASH_KEYS = "1:cli-test-audit-secret-cli-test-audit-secret";
    env.GUARD_SECRETS_KEY = "cli-test-secrets-key-cli-test-secrets-key";
    dropDatabase = created.drop;
  }
  const baseEnv = () => {
    const merged: Record<string, string | undefined> = { ...process.env, ...env };
    if (engine === "pglite") delete merged.DATABASE_URL;
    return merged as NodeJS.ProcessEnv;
  };

  const runProcess: CliEnvironment["run"] = (args, options = {}) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [GUARD_BIN, ...args], {
        env: baseEnv(),
        stdio: ["pipe", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.on("error", reject);
      child.on("close", (code) =>
        resolve({ code: code ?? -1, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }),
      );
      child.stdin.end(options.stdin ?? "");
    });

  // In-process commands share one opened database (`host`), closed while a served child needs it.
  let host: { context: CliContext; host: CliHost } | undefined;
  let serving = 0;
  const openHost = async () => {
    if (!host) {
      const config = loadConfig(baseEnv());
      const context = new CliContext(config, createOutput(true, { out: devNull, err: devNull }));
      host = { context, host: { db: await context.db(), config, url: "(in-process test runner)" } };
    }
    return host.host;
  };
  const closeHost = async () => {
    const open = host;
    host = undefined;
    await open?.context.close();
  };
  const runInProcess: CliEnvironment["run"] = async (args, options = {}) => {
    const opened = await openHost();
    let stdout = "";
    let stderr = "";
    const io: CliIo = {
      out: { write: (text: string) => (stdout += text) },
      err: { write: (text: string) => (stderr += text) },
      stdin: { kind: "forwarded", text: options.stdin ?? "" },
      cwd: process.cwd(),
    };
    const code = await main(args, { io, host: opened });
    // What the command queued on the audit chain is linked now, as a server's sequencer would.
    await linkAllQueued(opened.db, Date.now());
    return { code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T };
  };
  const run: CliEnvironment["run"] = (args, runOptions) =>
    options.inProcess && serving === 0 ? runInProcess(args, runOptions) : runProcess(args, runOptions);

  const serve: CliEnvironment["serve"] = async (args = []) => {
    await closeHost();
    serving += 1;
    try {
      const running = await serveProcess(args);
      return {
        ...running,
        stop: async () => {
          try {
            return await running.stop();
          } finally {
            serving -= 1;
          }
        },
      };
    } catch (error) {
      serving -= 1;
      throw error;
    }
  };

  const serveProcess: CliEnvironment["serve"] = (args = []) =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [GUARD_BIN, "--json", "serve", "--port", "0", ...args], {
        env: baseEnv(),
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      const exited = new Promise<number | null>((done) => child.on("exit", (code) => done(code)));
      child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        // --json serve prints one result line {url, demo} once it listens (logs are pino JSON too).
        for (const line of stdout.split("\n")) {
          if (!line.startsWith('{"url"')) continue;
          const ready = JSON.parse(line) as RunningCli["ready"];
          resolve({
            child,
            url: ready.url,
            ready,
            output: () => stdout + stderr,
            stop: async () => {
              child.kill("SIGTERM");
              return exited;
            },
          });
        }
      });
      void exited.then((code) =>
        reject(new Error(`guard serve exited (${code}) before listening:\n${stdout}${stderr}`)),
      );
    });

  const withDatabase: CliEnvironment["withDatabase"] = async (work) => {
    if (options.inProcess && serving === 0) return work((await openHost()).db);
    const db = await openConfiguredDatabase(loadConfig(baseEnv()));
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  };

  return {
    dataDir,
    env,
    run,
    serve,
    withDatabase,
    dispose: async () => {
      await closeHost();
      await dropDatabase?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
