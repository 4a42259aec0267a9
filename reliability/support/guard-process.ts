// A real `guard serve` process (server/bin/guard.js, as `npm start` runs it) on the engine under test:
// PGlite in a data directory of its own, or a fresh database on the test PostgreSQL cluster. The
// process can be killed with SIGKILL and started again on the same data.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openDatabase, type Database } from "../../server/src/db/database.js";
import { createPostgresDatabase, engine } from "../../server/test/support/harness.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const START_TIMEOUT_MS = 60_000;

/** What `guard --json serve --seed-demo` prints on its first start. */
export interface DemoSeed {
  organizationId: string;
  noticeId: string;
  apiKey: string;
}

export interface GuardProcess {
  url: string;
  /** Set on the first start only (the demo organisation exists afterwards). */
  demo: DemoSeed | null;
  kill(signal: NodeJS.Signals): Promise<void>;
}

export interface GuardDeployment {
  /** Starts a server process on this deployment's data; resolves once it listens. */
  start(): Promise<GuardProcess>;
  /** The deployment's database, opened in this process (only while no server process runs on PGlite). */
  openDatabase(): Promise<Database>;
  dispose(): Promise<void>;
}

// Fixed secrets, as several instances on one PostgreSQL server must share them (config.ts).
const SHARED_SECRETS = {
  GUARD_TOKEN_SECRET: "reliability-token-secret-0123456789abcdef",
  GUARD_AUDIT_HASH_KEYS: "1:reliability-audit-secret-0123456789abcdef",
  GUARD_SECRETS_KEY: "reliability-secrets-key-0123456789abcdef",
};

export async function createDeployment(): Promise<GuardDeployment> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-reliability-"));
  const postgres = engine === "postgres" ? await createPostgresDatabase() : undefined;
  const env: Record<string, string | undefined> = {
    ...process.env,
    GUARD_LOG_LEVEL: "warn",
    GUARD_DATA_DIR: dataDir,
    DATABASE_URL: postgres?.url,
    ...(postgres ? SHARED_SECRETS : {}),
  };
  if (!postgres) delete env.DATABASE_URL;
  const children = new Set<ChildProcess>();
  return {
    start: () => startProcess(env, children),
    openDatabase: () => openDatabase(postgres ? { databaseUrl: postgres.url } : { dataDir }),
    dispose: async () => {
      for (const child of children) child.kill("SIGKILL");
      await postgres?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function startProcess(
  env: Record<string, string | undefined>,
  children: Set<ChildProcess>,
): Promise<GuardProcess> {
  const child = spawn(
    process.execPath,
    [path.join(ROOT, "server/bin/guard.js"), "--json", "serve", "--port", "0", "--seed-demo"],
    { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.add(child);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  void exited.then(() => children.delete(child));
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString("utf8")).slice(-8_000);
  });
  return new Promise((resolve, reject) => {
    let stdout = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`guard serve did not start within ${START_TIMEOUT_MS}ms: ${stderr}`));
    }, START_TIMEOUT_MS);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`guard serve exited (${code ?? signal}) before listening: ${stderr}`));
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
      const line = stdout.split("\n").find((l) => l.startsWith("{"));
      if (!line) return;
      clearTimeout(timer);
      const started = JSON.parse(line) as { url: string; demo: DemoSeed | null };
      resolve({
        url: started.url,
        demo: started.demo,
        kill: async (signal) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      });
    });
  });
}
