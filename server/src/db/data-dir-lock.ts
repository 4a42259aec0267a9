// Single-opener guard for the embedded database. PGlite has no server to arbitrate between
// processes, so two processes on one data directory would corrupt it. Like PostgreSQL's own
// postmaster.pid, a lock file names its owner, and a lock whose owner is gone is stale and taken over.
//
// Two things make that harder than "a file holding a pid":
//
// 1. Pids are reused. After kill -9 a restarted container's process is pid 1 again, and on a host the
//    old pid may by now belong to an unrelated process. So the lock names its owner precisely: pid,
//    the process's start time (/proc/<pid>/stat field 22) and the kernel's boot id, plus the pid
//    namespace it was read in. A process with that pid that started at another time is not the owner.
//    Where the owner cannot be checked from here — another pid namespace (another container on the
//    same volume), another boot or host, a system without /proc, a pid hidden by /proc's hidepid —
//    the owner's heartbeat decides: a holder refreshes its lock file's mtime every `heartbeatMs`
//    (from a worker thread, so a long synchronous query cannot starve it), and a lock whose mtime does
//    not move for `staleAfterMs` is stale. That is the only case in which opening waits.
//
// 2. Taking over must be atomic. "Read the owner, see it is dead, delete the file, create ours" lets
//    two processes that both read the same dead owner both end up holding the lock (the second one
//    deletes the first one's fresh lock). See claim() for how a takeover is made exclusive.
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { makeDirectory } from "../lib/make-directory.js";

export class DataDirLockedError extends Error {
  override name = "DataDirLockedError";
  constructor(
    readonly dataDir: string,
    readonly ownerPid: number,
  ) {
    super(
      `The data directory ${dataDir} is in use by another Guard process (pid ${ownerPid}). ` +
        "Stop that process, or give this one another --data-dir (or GUARD_DATA_DIR). " +
        "To share one database between processes, use a PostgreSQL server via DATABASE_URL.",
    );
  }
}

export interface DataDirLock {
  release(): void;
}

export interface DataDirLockOptions {
  /** How often the holder refreshes its lock file's mtime. */
  heartbeatMs?: number;
  /** An owner that cannot be checked directly is gone once its lock's mtime stood still this long. */
  staleAfterMs?: number;
}

const LOCK_FILE = "guard.lock";
const DEFAULT_HEARTBEAT_MS = 2_000;
const DEFAULT_STALE_AFTER_MS = 10_000;
// A takeover guard's holder is between two file operations; if it stays there this long it is stuck.
const GUARD_WAIT_MS = 5_000;
const RETRY_SLEEP_MS = 20;
// Guards of guards exist only when takers die mid-takeover; more than a few levels means something else.
const MAX_GUARD_DEPTH = 4;
// Each turn of a claim's loop follows a change another process made; this many means none settles.
const MAX_ATTEMPTS = 1_000;
// A lock whose mtime is this many stale periods old (by the owner's clock) needs no watching: the
// margin covers clock skew between hosts sharing the directory.
const OLD_BY_THEIR_CLOCK = 6;
const LEFTOVER_AGE_MS = 60_000;

/** Who wrote a lock file. All but `pid` are absent in files written by Guard before they existed. */
interface Owner {
  pid: number;
  /** Random per lock file: tells apart two files of one process, and names takeover guards. */
  claim?: string;
  host?: string;
  /** Linux only: /proc/sys/kernel/random/boot_id, /proc/self/ns/pid, /proc/self/stat field 22. */
  boot?: string;
  pidns?: string;
  start?: string;
}

function readOptional(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** State (field 3) and start time (field 22) of a process; undefined when /proc does not show it. */
function procStat(pid: number | "self"): { state: string; start: string } | undefined {
  const stat = readOptional(() => fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  if (!stat) return undefined;
  // Field 2 (the command name, in parentheses) may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const [state, start] = [fields[0], fields[19]];
  return state && start ? { state, start } : undefined;
}

let me: Owner | undefined;
function currentProcess(): Owner {
  if (!me) {
    const boot = readOptional(() => fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8"));
    const pidns = readOptional(() => fs.readlinkSync("/proc/self/ns/pid"));
    const start = procStat("self")?.start;
    me = { pid: process.pid, host: os.hostname(), ...(boot && pidns && start ? { boot, pidns, start } : {}) };
  }
  return me;
}

/** Claims of lock files this process holds. */
const heldClaims = new Set<string>();

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

type Verdict = "alive" | "gone" | "unknown";

/** Whether the process that wrote a lock is still running, when that can be told from here. */
function judge(owner: Owner): Verdict {
  const self = currentProcess();
  if (!Number.isSafeInteger(owner.pid) || owner.pid <= 0) return "gone"; // not a lock anyone wrote whole
  if (owner.claim === undefined) {
    // Written by a Guard before owners were named precisely: all there is is a pid. This process
    // cannot be its owner; another live process with that pid may or may not be, so it is kept.
    return owner.pid !== self.pid && pidExists(owner.pid) ? "alive" : "gone";
  }
  if (owner.boot && self.boot && owner.boot === self.boot && owner.pidns === self.pidns) {
    if (owner.pid === self.pid && owner.start === self.start) {
      return heldClaims.has(owner.claim) ? "alive" : "gone";
    }
    const proc = procStat(owner.pid);
    if (proc)
      return proc.start === owner.start && proc.state !== "Z" && proc.state !== "X" ? "alive" : "gone";
    // Not in /proc: gone, unless /proc hides other users' processes (mounted with hidepid).
    return pidExists(owner.pid) ? "unknown" : "gone";
  }
  if (!owner.boot && !self.boot && owner.host === self.host) {
    // No /proc on either side (macOS, Windows): one machine, one pid space, but no start times.
    if (owner.pid === self.pid) return heldClaims.has(owner.claim) ? "alive" : "gone";
    return pidExists(owner.pid) ? "unknown" : "gone";
  }
  return "unknown";
}

function parseOwner(content: string): Owner {
  // Line 1 is the pid alone, which is all a Guard from before this format reads; line 2 the rest.
  const [pidLine = "", detail] = content.split("\n");
  const pid = /^\d+$/.test(pidLine.trim()) ? Number(pidLine.trim()) : Number.NaN;
  if (!detail) return { pid };
  try {
    const parsed = JSON.parse(detail) as Owner;
    if (parsed.pid !== pid || typeof parsed.claim !== "string") return { pid: Number.NaN };
    return parsed;
  } catch {
    return { pid: Number.NaN };
  }
}

interface Found {
  owner: Owner;
  content: string;
  ino: number;
  mtimeMs: number;
}

/** The lock file at `file` as one open file saw it; undefined when there is none. */
function readLockFile(file: string): Found | undefined {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  try {
    const stat = fs.fstatSync(fd);
    const content = fs.readFileSync(fd, "utf8");
    return { owner: parseOwner(content), content, ino: stat.ino, mtimeMs: stat.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

function sameFile(a: Found | undefined, b: Found): boolean {
  return a !== undefined && a.ino === b.ino && a.content === b.content;
}

const sleeper = new Int32Array(new SharedArrayBuffer(4));
/** Opening a database is synchronous up to here; a short blocking wait keeps it so. */
function sleep(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

/**
 * An owner that cannot be checked directly, judged by its heartbeat: alive if the file's mtime
 * moves while we watch, gone if it has not moved for `staleAfterMs` (measured on our clock, so a
 * skewed clock on the owner's side cannot make a live lock look old). `changed` when the file
 * itself was replaced or removed meanwhile: judge again.
 */
function watchHeartbeat(file: string, found: Found, staleAfterMs: number): "alive" | "gone" | "changed" {
  if (Date.now() - found.mtimeMs >= OLD_BY_THEIR_CLOCK * staleAfterMs) return "gone";
  const watchUntil = Date.now() + staleAfterMs;
  while (Date.now() < watchUntil) {
    sleep(Math.min(250, staleAfterMs / 4));
    const now = readLockFile(file);
    if (!now || now.ino !== found.ino) return "changed";
    if (now.mtimeMs !== found.mtimeMs) return "alive";
  }
  return "gone";
}

interface Claim {
  file: string;
  ino: number;
  id: string;
}

function tryLink(from: string, to: string): boolean {
  try {
    fs.linkSync(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
}

/** Removes `claim.file` if it is still the file this process put there. */
function unclaim(claim: Claim): void {
  try {
    if (fs.statSync(claim.file).ino === claim.ino) fs.unlinkSync(claim.file);
  } catch {
    // Already gone.
  } finally {
    heldClaims.delete(claim.id);
  }
}

/**
 * Puts a file naming this process at `file`, exclusively: the file appears only if there was none,
 * or replaces exactly the stale file this process judged, never a newer one. Throws
 * DataDirLockedError naming the owner when a live one holds it.
 *
 * A claim is written whole to a private temporary file and hard-linked into place: link() fails
 * if `file` exists, so of any number of processes finding no lock, one gets it, and no reader ever
 * sees a half-written lock.
 *
 * Replacing a stale file S is the hard part: there is no "delete S only if it is still S". So a
 * taker first claims the takeover guard for S — `<file>.takeover-<fingerprint of S>`, a file named
 * after S's inode and content, claimed with this same function — and only its holder may delete S.
 * Under the guard it reads the lock again; if it is still S (same inode, same content) it unlinks it
 * and links its own claim. The interleavings:
 * - Two takers of S: only one creates the guard. The other finds it held by a live process and
 *   waits; once the first has replaced S, the other reads the first's lock and is refused.
 * - A taker slower than the one that already replaced S (and released the guard): it may claim the
 *   guard for S, but then reads a lock that is no longer S, so it deletes nothing and judges again.
 * - A newcomer that arrives between the taker's unlink and link finds no lock and links its claim:
 *   the taker's link then fails, it judges the newcomer (alive) and is refused. One holder either way.
 * - A taker killed while holding the guard leaves a guard whose owner is gone: it is itself stale
 *   and replaced by the same procedure, one level down (`depth`).
 * - Nothing else ever deletes a lock file: a holder deletes only its own (release), and only while
 *   it is alive, when nobody judges it gone.
 */
function claim(file: string, options: Required<DataDirLockOptions>, depth: number, dataDir: string): Claim {
  if (depth > MAX_GUARD_DEPTH) throw new Error(`Too many abandoned takeovers of ${dataDir}'s lock`);
  const self = currentProcess();
  const id = randomBytes(16).toString("hex");
  const owner: Owner = { ...self, claim: id };
  const temporary = path.join(path.dirname(file), `${LOCK_FILE}.${id}.tmp`);
  fs.writeFileSync(temporary, `${owner.pid}\n${JSON.stringify(owner)}\n`, { flag: "wx", mode: 0o600 });
  const ours: Claim = { file, ino: fs.statSync(temporary).ino, id };
  heldClaims.add(ours.id);
  let held = false;
  try {
    const waitUntil = Date.now() + GUARD_WAIT_MS;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      if (tryLink(temporary, file)) {
        held = true;
        return ours;
      }
      const found = readLockFile(file);
      if (!found) continue; // released just now
      let verdict: Verdict | "changed" = judge(found.owner);
      if (verdict === "unknown") verdict = watchHeartbeat(file, found, options.staleAfterMs);
      if (verdict === "changed") continue;
      if (verdict === "alive") throw new DataDirLockedError(dataDir, found.owner.pid);

      const fingerprint = createHash("sha256")
        .update(`${found.ino}\n${found.content}`)
        .digest("hex")
        .slice(0, 32);
      let guard: Claim;
      try {
        guard = claim(
          `${path.join(path.dirname(file), LOCK_FILE)}.takeover-${fingerprint}`,
          options,
          depth + 1,
          dataDir,
        );
      } catch (error) {
        // Another live process is replacing S right now; once it has, its lock is what we judge.
        if (!(error instanceof DataDirLockedError) || Date.now() > waitUntil) throw error;
        sleep(RETRY_SLEEP_MS);
        continue;
      }
      try {
        if (sameFile(readLockFile(file), found)) {
          fs.unlinkSync(file);
          if (tryLink(temporary, file)) {
            held = true;
            return ours;
          }
        }
      } finally {
        unclaim(guard);
      }
    }
    throw new Error(`Could not acquire the lock on ${dataDir}: it kept changing`);
  } finally {
    fs.rmSync(temporary, { force: true });
    if (!held) heldClaims.delete(ours.id);
  }
}

/** Claim and takeover files left by processes that died mid-way: harmless, but clutter. */
function removeLeftovers(dataDir: string): void {
  for (const name of fs.readdirSync(dataDir)) {
    if (!name.startsWith(`${LOCK_FILE}.`)) continue;
    const file = path.join(dataDir, name);
    let found: Found | undefined;
    try {
      found = readLockFile(file);
    } catch {
      continue; // not a file Guard wrote
    }
    // Only files whose writer is certainly gone: a live taker's guard or claim is in use. A claim
    // being written reads as garbage until it is whole, hence the age as well.
    if (
      found &&
      Date.now() - found.mtimeMs > LEFTOVER_AGE_MS &&
      judge(found.owner) === "gone" &&
      sameFile(readLockFile(file), found)
    ) {
      fs.rmSync(file, { force: true });
    }
  }
}

/** One heartbeat: refreshes the lock file's mtime if the file is still the one this process put there. */
function touchIfOurs(lock: { file: string; ino: number }): void {
  try {
    const fd = fs.openSync(lock.file, "r");
    try {
      const now = new Date();
      if (fs.fstatSync(fd).ino === lock.ino) fs.futimesSync(fd, now, now);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    // Gone (released, or the directory removed): nothing to keep alive.
  }
}

// The worker thread's program: touchIfOurs (keep the two alike) on a timer, in plain CommonJS, as a
// worker thread gets no TypeScript loader.
const HEARTBEAT_SOURCE = `
const fs = require("node:fs");
const { workerData: lock } = require("node:worker_threads");
setInterval(() => {
  try {
    const fd = fs.openSync(lock.file, "r");
    try {
      const now = new Date();
      if (fs.fstatSync(fd).ino === lock.ino) fs.futimesSync(fd, now, now);
    } finally {
      fs.closeSync(fd);
    }
  } catch {}
}, lock.heartbeatMs);
`;

/**
 * Locks `dataDir` for this process, or throws DataDirLockedError naming the process that holds it.
 * Synchronous; returns at once unless the current lock's owner can only be judged by its heartbeat
 * (see the top of this file), in which case it may wait up to `staleAfterMs`.
 */
export function acquireDataDirLock(dataDir: string, options: DataDirLockOptions = {}): DataDirLock {
  const settings: Required<DataDirLockOptions> = {
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    staleAfterMs: options.staleAfterMs ?? DEFAULT_STALE_AFTER_MS,
  };
  makeDirectory(dataDir, 0o700);
  const lock = claim(path.join(dataDir, LOCK_FILE), settings, 0, dataDir);
  removeLeftovers(dataDir);

  // Started at once: the main thread may be busy for long stretches right after opening (migrations).
  const workerData = { file: lock.file, ino: lock.ino, heartbeatMs: settings.heartbeatMs };
  let heartbeat: Worker | NodeJS.Timeout;
  try {
    const worker = new Worker(HEARTBEAT_SOURCE, { eval: true, execArgv: [], workerData });
    worker.on("error", () => undefined);
    worker.unref();
    heartbeat = worker;
  } catch {
    // No thread to be had: beat from this one, where a long synchronous task can delay a beat.
    heartbeat = setInterval(() => touchIfOurs(lock), settings.heartbeatMs);
    heartbeat.unref();
  }

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.removeListener("exit", release);
    if (heartbeat instanceof Worker) void heartbeat.terminate();
    else clearInterval(heartbeat);
    unclaim(lock);
  };
  process.once("exit", release);
  return { release };
}
