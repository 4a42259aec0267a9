// Throwaway PostgreSQL cluster for tests and local development.
//
//   import { startThrowawayPostgres } from "./lib/postgres-cluster.mjs";
//   const pgc = await startThrowawayPostgres({ log: console.log });
//   ... use pgc.adminUrl / pgc.url ...
//   await pgc.stop();
//
// CLI: `node scripts/lib/postgres-cluster.mjs` starts one, prints its URLs and stays up until Ctrl-C.
//
// The cluster lives in a fresh directory under os.tmpdir(), runs as a non-root user (`postgres` when we
// are root, otherwise the current user), listens on 127.0.0.1 only, on a free port, with trust auth
// for the superuser `guard` and durability switched off (fast, disposable). `postgres` runs in the
// foreground as our child; a small detached watchdog shuts it down and deletes the directory if this
// process dies without calling stop() (even on SIGKILL).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;
const LOG_TAIL_LINES = 200;
const SUPERUSER = "guard";

/** Clusters started by this process that have not been stopped yet. */
const live = new Set();

/** Directory holding initdb, postgres and pg_isready: $PG_BIN, Debian's newest, pg_config, or PATH. */
export function findPostgresBinDir() {
  const has = (dir) =>
    dir && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "postgres"));
  if (process.env.PG_BIN) {
    if (has(process.env.PG_BIN)) return process.env.PG_BIN;
    throw new Error(`PG_BIN=${process.env.PG_BIN} does not contain initdb and postgres`);
  }
  const debianRoot = "/usr/lib/postgresql";
  if (fs.existsSync(debianRoot)) {
    const versions = fs
      .readdirSync(debianRoot)
      .filter((v) => has(path.join(debianRoot, v, "bin")))
      .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a));
    if (versions[0]) return path.join(debianRoot, versions[0], "bin");
  }
  const pgConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (pgConfig.status === 0 && has(pgConfig.stdout.trim())) return pgConfig.stdout.trim();
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) if (has(dir)) return dir;
  throw new Error(
    "PostgreSQL server binaries not found (looked in $PG_BIN, /usr/lib/postgresql/*/bin, pg_config, PATH). " +
      "On Debian: apt-get install -y postgresql",
  );
}

/** How to run a command as the non-root cluster owner: a prefix for spawn, and the uid/gid to chown to. */
function clusterOwner() {
  if (typeof process.getuid !== "function" || process.getuid() !== 0)
    return { prefix: [], uid: null, gid: null };
  const id = (flag) => spawnSync("id", [flag, "postgres"], { encoding: "utf8" });
  const uid = id("-u");
  const gid = id("-g");
  if (uid.status !== 0 || gid.status !== 0) {
    throw new Error(
      "running as root but there is no `postgres` user to own the cluster (apt-get install postgresql)",
    );
  }
  const setpriv = spawnSync("setpriv", ["--version"], { stdio: "ignore" });
  const prefix =
    setpriv.status === 0
      ? // setpriv execs in place, so signals reach postgres directly (runuser forks and relays them).
        ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]
      : ["runuser", "-u", "postgres", "--"];
  return { prefix, uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** A parent for the data directory that the cluster owner can traverse. */
function tempParent(owner) {
  const parent = os.tmpdir();
  if (owner.uid === null) return parent;
  // Every ancestor must be world-searchable for the postgres user to reach the directory.
  for (let dir = path.resolve(parent); ; dir = path.dirname(dir)) {
    if ((fs.statSync(dir).mode & 0o001) === 0) return "/tmp";
    if (dir === path.dirname(dir)) return parent;
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function run(cmd, args, opts) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  if (r.error) throw r.error;
  if (r.status !== 0) {
    throw new Error(
      `${path.basename(cmd)} failed (exit ${r.status ?? r.signal}):\n${r.stdout ?? ""}${r.stderr ?? ""}`,
    );
  }
  return r;
}

/**
 * Start a throwaway cluster.
 * @param {{ log?: (msg: string) => void, durable?: boolean, settings?: Record<string, string> }} [options]
 *   durable: keep PostgreSQL's default fsync/synchronous_commit (benchmarks that claim durability);
 *   by default the cluster trades durability for speed, which is what tests want.
 *   settings: more server settings (`-c name=value`), e.g. to preload pg_stat_statements.
 * @returns {Promise<{ url: string, adminUrl: string, port: number, dataDir: string, logTail: () => string, stop: () => Promise<void> }>}
 *   adminUrl: superuser `guard` on the `postgres` database (create databases from it);
 *   url: the same superuser on an empty `guard` database.
 */
export async function startThrowawayPostgres({ log = () => {}, durable = false, settings = {} } = {}) {
  const bin = findPostgresBinDir();
  const owner = clusterOwner();
  const baseDir = fs.mkdtempSync(path.join(tempParent(owner), "guard-pg-"));
  const dataDir = path.join(baseDir, "data");
  const logLines = [];
  const logTail = () => logLines.join("\n");
  let proc = null;
  let watchdog = null;
  let stopping = null;

  const cluster = { url: "", adminUrl: "", port: 0, dataDir, logTail, stop: () => stop() };

  async function stop() {
    stopping ??= (async () => {
      live.delete(cluster);
      syncSignalHandlers();
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise((resolve) => proc.once("exit", resolve));
        proc.kill("SIGINT"); // fast shutdown: abort transactions, disconnect clients, checkpoint
        const timer = setTimeout(() => proc.kill("SIGKILL"), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      // Backends may outlive the postmaster by a few ms; wait for the pid file to go.
      for (let i = 0; i < 50 && fs.existsSync(path.join(dataDir, "postmaster.pid")); i++) await sleep(100);
      if (watchdog) {
        // Kill the watchdog's whole group (sh and its cat) before closing the pipe it waits on.
        try {
          process.kill(-watchdog.pid, "SIGKILL");
        } catch {
          // already gone
        }
        watchdog.stdin.destroy();
      }
      fs.rmSync(baseDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
      log(`postgres: stopped, removed ${baseDir}`);
    })();
    return stopping;
  }

  try {
    if (owner.uid !== null) {
      fs.chownSync(baseDir, owner.uid, owner.gid);
      fs.chmodSync(baseDir, 0o700);
    }
    const asOwner = (exe, args) => [...owner.prefix, path.join(bin, exe), ...args];
    const [initCmd, ...initArgs] = asOwner("initdb", [
      ...["-D", dataDir, "-A", "trust", "-U", SUPERUSER, "--no-sync", "-E", "UTF8", "--locale=C"],
    ]);
    run(initCmd, initArgs, { cwd: baseDir, env: { ...process.env, LC_ALL: "C" } });

    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      try {
        proc = await launch(port);
        cluster.port = port;
        break;
      } catch (err) {
        // Another process may have taken the port between our probe and postgres binding it.
        if (attempt >= START_ATTEMPTS || !/could not (bind|create listen)|already in use/i.test(logTail()))
          throw err;
        log(`postgres: port ${port} was taken, retrying`);
      }
    }
    watchdog = startWatchdog(proc.pid, baseDir);
    live.add(cluster);
    syncSignalHandlers();
    cluster.adminUrl = `postgres://${SUPERUSER}@127.0.0.1:${cluster.port}/postgres`;
    cluster.url = `postgres://${SUPERUSER}@127.0.0.1:${cluster.port}/${SUPERUSER}`;
    await query(cluster.adminUrl, `CREATE DATABASE ${SUPERUSER}`);
    log(`postgres: ${path.basename(path.dirname(bin))} ready at ${cluster.adminUrl} (data ${dataDir})`);
    return cluster;
  } catch (err) {
    await stop().catch(() => {});
    const tail = logTail();
    throw new Error(`${err.message}${tail ? `\n--- postgres log (tail) ---\n${tail}` : ""}`, { cause: err });
  }

  async function launch(port) {
    const [cmd, ...args] = asOwnerArgs(port);
    const child = spawn(cmd, args, {
      cwd: baseDir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, LC_ALL: "C" },
    });
    const collect = (chunk) => {
      for (const line of chunk.toString("utf8").split("\n")) {
        if (!line) continue;
        logLines.push(line);
        if (logLines.length > LOG_TAIL_LINES) logLines.shift();
      }
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    const earlyExit = new Promise((resolve) =>
      child.once("exit", (code, sig) => resolve(`exited (${code ?? sig})`)),
    );
    child.once("error", (e) => logLines.push(String(e)));
    const deadline = Date.now() + READY_TIMEOUT_MS;
    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`;
    while (Date.now() < deadline) {
      const outcome = await Promise.race([earlyExit, sleep(100).then(() => null)]);
      if (outcome) throw new Error(`postgres ${outcome} during start-up`);
      if (spawnSync(path.join(bin, "pg_isready"), ["-q", "-h", "127.0.0.1", "-p", String(port)]).status !== 0)
        continue;
      try {
        await query(url, "SELECT 1");
        child.stdout.unref?.();
        child.stderr.unref?.();
        return child;
      } catch {
        // accepting connections but not queries yet (e.g. still in recovery); keep polling
      }
    }
    child.kill("SIGKILL");
    throw new Error(`postgres did not become ready within ${READY_TIMEOUT_MS / 1000}s`);
  }

  function asOwnerArgs(port) {
    return [
      ...owner.prefix,
      path.join(bin, "postgres"),
      ...["-D", dataDir, "-p", String(port), "-k", baseDir],
      ...["-c", "listen_addresses=127.0.0.1", "-c", "max_connections=300"],
      ...(durable ? [] : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]),
      ...Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]),
    ];
  }
}

async function query(url, sql) {
  const { default: pg } = await import("pg");
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query(sql);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * A detached shell that waits for EOF on its stdin (our end of a pipe, closed when this process exits
 * for whatever reason), then shuts the postmaster down and removes the directory. stop() kills it first.
 */
function startWatchdog(pid, dir) {
  // Waits while the pid file exists and the postmaster is alive (neither gone nor a zombie); 30 s cap.
  const script = [
    'cat >/dev/null; kill -INT "$1" 2>/dev/null; i=0',
    'alive() { s=$(cut -d" " -f3 "/proc/$1/stat" 2>/dev/null); [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]; }',
    'while [ -e "$2/data/postmaster.pid" ] && alive "$1" && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done',
    'if alive "$1"; then kill -KILL "$1" 2>/dev/null; sleep 0.2; fi; rm -rf "$2"',
  ].join("\n");
  const child = spawn("sh", ["-c", script, "guard-pg-watchdog", String(pid), dir], {
    detached: true,
    stdio: ["pipe", "ignore", "ignore"],
  });
  child.unref();
  child.stdin.unref?.();
  child.stdin.on("error", () => {});
  return child;
}

// ---- process-level cleanup -------------------------------------------------------------------------

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"];
const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15, SIGHUP: 1 };
let handlersInstalled = false;

function onExit() {
  // Synchronous last chance; the watchdog finishes the job (waits for shutdown, removes the directory).
  for (const c of live) c.stop();
}

function onSignal(signal) {
  const others = process.listenerCount(signal) - 1;
  Promise.allSettled([...live].map((c) => c.stop())).then(() => {
    // If the host program has its own handler it decides when to exit; otherwise keep the default
    // behaviour of the signal (terminate) that our handler displaced.
    if (others === 0) process.exit(128 + SIGNAL_NUMBERS[signal]);
  });
}

function syncSignalHandlers() {
  if (live.size > 0 && !handlersInstalled) {
    process.on("exit", onExit);
    for (const s of SIGNALS) process.on(s, onSignal);
    handlersInstalled = true;
  } else if (live.size === 0 && handlersInstalled) {
    process.off("exit", onExit);
    for (const s of SIGNALS) process.off(s, onSignal);
    handlersInstalled = false;
  }
}

// ---- CLI ---------------------------------------------------------------------------------------------

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cluster = await startThrowawayPostgres({ log: (m) => console.error(m) });
  console.log(cluster.adminUrl);
  console.error(`\nadmin (create databases here): ${cluster.adminUrl}`);
  console.error(`empty database:                ${cluster.url}`);
  console.error(`  e.g. psql ${cluster.url}`);
  console.error(
    `       GUARD_TEST_DB=postgres GUARD_TEST_DATABASE_URL=${cluster.adminUrl} node --import tsx --test ...`,
  );
  console.error("Ctrl-C to stop and delete it.");
  const shutdown = () => cluster.stop().then(() => process.exit(0));
  for (const s of SIGNALS) process.once(s, shutdown);
  // Stay alive until a signal arrives.
  setInterval(() => {}, 1 << 30);
}
