// `npm run bench:startup`: how long Guard takes from `guard serve` to its first 200 on /healthz,
// next to the floor on the same machine in the same run. Targets (issue 28, not asserted): warm
// <= 1 s and cold <= 2 s on the embedded database, <= 1 s on PostgreSQL. In interleaved rounds
// (default 3) it times:
//   - `node -e 0` (starting Node at all);
//   - a bare Fastify server with one route, to its first 200;
//   - Guard on the embedded database, warm (a data directory it has opened before);
//   - Guard on the embedded database, cold (a fresh data directory);
//   - Guard on a throwaway PostgreSQL server (migrated before the rounds).
// and prints min / median / max of each and the medians' ratios to the two floors. The server's
// build (server/bin/build.js) is made before the rounds, as `npm install` or the first start makes it;
// so is the migrated snapshot the cold rounds start from (db/fresh-snapshot.ts), in the run's own
// scratch directory.
//   node bench/startup.mjs [--rounds 3]
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const GUARD = path.join(ROOT, "server/bin/guard.js");
const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" } } });
const rounds = Number(values.rounds);

const BARE_FASTIFY = `
const { default: Fastify } = await import("fastify");
const app = Fastify();
app.get("/healthz", async () => ({ ok: true }));
await app.listen({ host: "127.0.0.1", port: Number(process.env.PORT) });
`;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Milliseconds from spawning `argv` to its exit (for `node -e 0`). */
async function timeToExit(argv) {
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), { stdio: "ignore" });
  await new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", resolve);
  });
  return performance.now() - started;
}

/** Milliseconds from spawning `argv` to the first 200 on /healthz; the process is then stopped. */
async function timeToFirst200(argv, env) {
  const port = await freePort();
  let output = "";
  const started = performance.now();
  const child = spawn(argv[0], argv.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env, PORT: String(port), GUARD_PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  let exited = false;
  const exit = new Promise((resolve) => child.once("exit", () => resolve((exited = true))));
  try {
    for (;;) {
      if (exited) throw new Error(`${argv.join(" ")} exited before answering:\n${output}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        if (response.status === 200) return performance.now() - started;
      } catch {
        // not listening yet
      }
      await sleep(5);
    }
  } finally {
    child.kill("SIGTERM");
    await exit;
  }
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "guard-startup-"));
fs.mkdirSync(path.join(scratch, "snapshot"));
// The cold rounds start from a migrated snapshot this run's code made (the warm directory's
// creation below saves it), not from whatever snapshot an earlier build left beside the server.
const guardServe = (env) =>
  timeToFirst200(["node", GUARD, "serve"], {
    GUARD_LOG_FORMAT: "json",
    GUARD_SNAPSHOT_DIR: path.join(scratch, "snapshot"),
    ...env,
  });
const postgres = await startThrowawayPostgres();
try {
  // The build, the warm data directory and the PostgreSQL schema exist before the first round.
  await timeToExit(["node", GUARD, "--version"]);
  const warmDir = path.join(scratch, "warm");
  await guardServe({ GUARD_DATA_DIR: warmDir });
  if (!fs.readdirSync(path.join(scratch, "snapshot")).some((name) => name.endsWith(".tar")))
    throw new Error("the first start saved no migrated snapshot: the cold rounds would take the slow path");
  const postgresEnv = {
    DATABASE_URL: postgres.adminUrl,
    GUARD_DATA_DIR: path.join(scratch, "pg"),
    // Several instances share these with a PostgreSQL server; throwaway values for the bench.
    GUARD_TOKEN_SECRET: "startup-bench-token-secret-0123456789abcdef",
    GUARD_AUDIT_HASH_KEYS: "1:startup-bench-audit-key-0123456789abcdef",
    GUARD_SECRETS_KEY: "startup-bench-secrets-key-0123456789abcdef",
  };
  await guardServe(postgresEnv);

  const targets = {
    "node -e 0": () => timeToExit(["node", "-e", "0"]),
    "bare Fastify": () => timeToFirst200(["node", "--input-type=module", "-e", BARE_FASTIFY], {}),
    "Guard, embedded, warm": () => guardServe({ GUARD_DATA_DIR: warmDir }),
    "Guard, embedded, cold": () =>
      guardServe({ GUARD_DATA_DIR: path.join(scratch, `cold-${Math.random()}`) }),
    "Guard, PostgreSQL": () => guardServe(postgresEnv),
  };
  const times = Object.fromEntries(Object.keys(targets).map((name) => [name, []]));
  for (let round = 1; round <= rounds; round += 1) {
    for (const [name, measure] of Object.entries(targets)) times[name].push(await measure());
    process.stderr.write(`round ${round}/${rounds} done\n`);
  }

  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  const ms = (value) => `${Math.round(value)} ms`.padStart(8);
  const nodeFloor = median(times["node -e 0"]);
  const fastifyFloor = median(times["bare Fastify"]);
  console.log(
    `Start-up to the first 200 on /healthz, ${rounds} interleaved rounds (${os.cpus().length} cores)`,
  );
  console.log(
    `${"target".padEnd(24)}${"min".padStart(8)}${"median".padStart(8)}${"max".padStart(8)}   ratio to node -e 0 / bare Fastify`,
  );
  for (const [name, list] of Object.entries(times)) {
    const mid = median(list);
    console.log(
      `${name.padEnd(24)}${ms(Math.min(...list))}${ms(mid)}${ms(Math.max(...list))}   ${(mid / nodeFloor).toFixed(1)}x / ${(mid / fastifyFloor).toFixed(1)}x`,
    );
  }
  console.log("Targets: embedded warm <= 1000 ms, embedded cold <= 2000 ms, PostgreSQL <= 1000 ms.");
} finally {
  await postgres.stop();
  fs.rmSync(scratch, { recursive: true, force: true });
}
