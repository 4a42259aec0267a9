// Runs the real `guard` command (server/bin/guard.js) as a child process against a temporary data
// directory (PGlite) or a fresh database on the test cluster (PostgreSQL).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
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
  dispose(): Promise<void>;
}

export interface RunningCli {
  child: ChildProcess;
  url: string;
  /** The line `--json serve` printed once listening: `{url, demo}` (demo: the seeded secrets, or null). */
  ready: { url: string; demo: Record<string, string> | null };
  output: () => string;
  stop(): Promise<number | null>;
}

export async function createCliEnvironment(): Promise<CliEnvironment> {
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

  const run: CliEnvironment["run"] = (args, options = {}) =>
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

  const serve: CliEnvironment["serve"] = (args = []) =>
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

  return {
    dataDir,
    env,
    run,
    serve,
    dispose: async () => {
      await dropDatabase?.();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
