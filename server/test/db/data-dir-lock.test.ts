// The embedded database has one opener: a second process on the same data directory exits with a
// clear message and changes nothing; a lock left by a dead process is taken over, even when its pid
// now belongs to this process (pid 1 after a container restart) or to an unrelated one, and however
// many processes find the same stale lock at once, exactly one of them takes it over.
import assert from "node:assert/strict";
import { fork, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { acquireDataDirLock, DataDirLockedError } from "../../src/db/data-dir-lock.js";
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
        // A second server is told where the first one runs (through its CLI socket, cli-socket.ts).
        const second = await cli.run(["serve", "--port", "0"]);
        assert.equal(second.code, 1);
        assert.match(second.stderr, /already running on this data directory at http:\/\/\S+ \(pid \d+\)/);
        // Without the socket, the lock alone decides: a CLI write is refused and changes nothing.
        const socket = path.join(cli.dataDir, "cli.sock");
        const hidden = `${socket}.hidden`;
        fs.renameSync(socket, hidden);
        try {
          const cliWrite = await cli.run(["org", "create", "--slug", "other", "--name", "Other"]);
          assert.equal(cliWrite.code, 1);
          assert.match(cliWrite.stderr, /in use by another Guard process \(pid \d+\)/);
        } finally {
          fs.renameSync(hidden, socket);
        }
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

const WORKER = fileURLToPath(new URL("./data-dir-lock-worker.ts", import.meta.url));
// Above Linux's default pid_max (2^22), so no live process has it.
const DEAD_PID = 2 ** 22 + 1;

interface WorkerReply {
  ready?: boolean;
  held?: boolean;
  error?: string;
  message?: string;
  released?: boolean;
}

/** A separate Node process running data-dir-lock-worker.ts. */
class LockWorker {
  private readonly replies: WorkerReply[] = [];
  private waiting: { resolve(reply: WorkerReply): void; reject(error: Error): void } | undefined;
  private constructor(readonly child: ChildProcess) {
    child.on("message", (reply: WorkerReply) => {
      const waiting = this.waiting;
      this.waiting = undefined;
      if (waiting) waiting.resolve(reply);
      else this.replies.push(reply);
    });
    child.once("exit", (code, signal) =>
      this.waiting?.reject(new Error(`lock worker exited (${code ?? signal})`)),
    );
  }

  static async start(): Promise<LockWorker> {
    const worker = new LockWorker(fork(WORKER, [], { execArgv: ["--import", "tsx"], stdio: "ignore" }));
    assert.deepEqual(await worker.reply(), { ready: true });
    return worker;
  }

  get pid(): number {
    return this.child.pid!;
  }

  reply(): Promise<WorkerReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async acquire(dataDir: string, extra: { at?: number; heartbeatMs?: number } = {}): Promise<WorkerReply> {
    this.child.send({ op: "acquire", dataDir, ...extra });
    return this.reply();
  }

  async release(): Promise<void> {
    this.child.send({ op: "release" });
    assert.deepEqual(await this.reply(), { released: true });
  }

  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.once("exit", resolve));
    this.child.kill("SIGKILL");
    await exited;
  }
}

/** Fields 22 (start time, clock ticks since boot) of /proc/<pid>/stat; undefined without /proc. */
function procStartTime(pid: number | "self"): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

const onLinux = procStartTime("self") !== undefined;

/** A lock in the current format, as another process with the given identity would have written it. */
function writeLock(
  dataDir: string,
  owner: { pid: number; start?: string; pidns?: string },
  name = "guard.lock",
): void {
  const identity = {
    pid: owner.pid,
    claim: "0123456789abcdef0123456789abcdef",
    host: os.hostname(),
    boot: fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim(),
    pidns: owner.pidns ?? fs.readlinkSync("/proc/self/ns/pid"),
    start: owner.start ?? "1",
  };
  fs.writeFileSync(path.join(dataDir, name), `${owner.pid}\n${JSON.stringify(identity)}\n`);
}

describe("ownership of the data directory lock", () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), "guard-lock-"));
  const workers: LockWorker[] = [];
  let dirs = 0;
  const freshDir = () => {
    const dir = path.join(parent, `d${++dirs}`);
    fs.mkdirSync(dir);
    return dir;
  };
  after(async () => {
    await Promise.all(workers.map((worker) => worker.kill()));
    fs.rmSync(parent, { recursive: true, force: true });
  });
  const startWorker = async () => {
    const worker = await LockWorker.start();
    workers.push(worker);
    return worker;
  };

  test("a lock an older Guard left naming this very pid (pid 1 after a container restart) is taken over", () => {
    const dataDir = freshDir();
    fs.writeFileSync(path.join(dataDir, "guard.lock"), `${process.pid}\n`);
    acquireDataDirLock(dataDir).release();
  });

  test(
    "a lock naming this pid but written by another process (another start time) is taken over",
    {
      skip: !onLinux && "needs /proc",
    },
    () => {
      const dataDir = freshDir();
      writeLock(dataDir, { pid: process.pid, start: String(Number(procStartTime("self")) - 1) });
      acquireDataDirLock(dataDir).release();
    },
  );

  test(
    "a lock naming a live process that is not its owner (pid reused) is taken over",
    {
      skip: !onLinux && "needs /proc",
    },
    () => {
      const dataDir = freshDir();
      writeLock(dataDir, { pid: process.ppid, start: String(Number(procStartTime(process.ppid)) + 1) });
      acquireDataDirLock(dataDir).release();
    },
  );

  test("a live Guard process's lock is refused, and taken over as soon as that process is killed", async () => {
    const dataDir = freshDir();
    const holder = await startWorker();
    assert.deepEqual(await holder.acquire(dataDir), { held: true });
    assert.throws(
      () => acquireDataDirLock(dataDir),
      (error) => error instanceof DataDirLockedError && error.ownerPid === holder.pid,
    );
    await holder.kill();
    acquireDataDirLock(dataDir).release();
  });

  test("one process cannot hold the same directory twice", () => {
    const dataDir = freshDir();
    const lock = acquireDataDirLock(dataDir);
    try {
      assert.throws(
        () => acquireDataDirLock(dataDir),
        (error) => error instanceof DataDirLockedError && error.ownerPid === process.pid,
      );
    } finally {
      lock.release();
    }
    acquireDataDirLock(dataDir).release();
  });

  test(
    "an owner in another pid namespace is judged by its heartbeat",
    { skip: !onLinux && "needs /proc" },
    async () => {
      const dataDir = freshDir();
      // Old and never refreshed: its owner is gone.
      writeLock(dataDir, { pid: 1, pidns: "pid:[1]" });
      const longAgo = new Date(Date.now() - 3_600_000);
      fs.utimesSync(path.join(dataDir, "guard.lock"), longAgo, longAgo);
      acquireDataDirLock(dataDir, { staleAfterMs: 1_000 }).release();

      // A live holder whose pid cannot be checked from here (as if in another container).
      const holder = await startWorker();
      assert.deepEqual(await holder.acquire(dataDir, { heartbeatMs: 100 }), { held: true });
      const lockFile = path.join(dataDir, "guard.lock");
      const [pidLine, json] = fs.readFileSync(lockFile, "utf8").split("\n");
      fs.writeFileSync(
        lockFile,
        `${pidLine}\n${JSON.stringify({ ...JSON.parse(json!), pidns: "pid:[1]" })}\n`,
      );
      assert.throws(() => acquireDataDirLock(dataDir, { staleAfterMs: 1_000 }), DataDirLockedError);
      await holder.kill();
      const started = Date.now();
      acquireDataDirLock(dataDir, { staleAfterMs: 1_000 }).release();
      assert.ok(Date.now() - started < 5_000);
    },
  );

  test(
    "a takeover abandoned half-way (its taker killed) does not block the next one",
    {
      skip: !onLinux && "needs /proc",
    },
    () => {
      const dataDir = freshDir();
      const lockFile = path.join(dataDir, "guard.lock");
      writeLock(dataDir, { pid: DEAD_PID });
      // The takeover guard a dead taker of that lock left (named as data-dir-lock.ts names it), and a
      // claim it never linked.
      const fingerprint = createHash("sha256")
        .update(`${fs.statSync(lockFile).ino}\n${fs.readFileSync(lockFile, "utf8")}`)
        .digest("hex")
        .slice(0, 32);
      writeLock(dataDir, { pid: DEAD_PID }, `guard.lock.takeover-${fingerprint}`);
      writeLock(dataDir, { pid: DEAD_PID }, "guard.lock.00112233445566778899aabbccddeeff.tmp");
      const longAgo = new Date(Date.now() - 3_600_000);
      fs.utimesSync(path.join(dataDir, "guard.lock.00112233445566778899aabbccddeeff.tmp"), longAgo, longAgo);

      const lock = acquireDataDirLock(dataDir);
      assert.deepEqual(fs.readdirSync(dataDir), ["guard.lock"], "the leftovers are cleared away");
      lock.release();
    },
  );

  test(
    "processes racing for one stale lock: exactly one takes it over, every time",
    { timeout: 60_000 },
    async () => {
      const racers = await Promise.all([1, 2, 3, 4].map(() => startWorker()));
      const dataDir = freshDir();
      const trials = 60;
      const notOneHolder: string[] = [];
      const otherErrors: string[] = [];
      for (let trial = 0; trial < trials; trial++) {
        // Alternately a lock from an older Guard (pid only) and one in the current format.
        if (trial % 2 === 0) fs.writeFileSync(path.join(dataDir, "guard.lock"), `${DEAD_PID}\n`);
        else if (onLinux) writeLock(dataDir, { pid: DEAD_PID });
        else fs.writeFileSync(path.join(dataDir, "guard.lock"), `${DEAD_PID}\n`);
        const at = Date.now() + 30;
        const replies = await Promise.all(racers.map((racer) => racer.acquire(dataDir, { at })));
        const holders = racers.filter((_, index) => replies[index]!.held);
        if (holders.length !== 1) notOneHolder.push(`trial ${trial}: ${holders.length} holders`);
        for (const reply of replies) {
          if (!reply.held && reply.error !== "DataDirLockedError")
            otherErrors.push(`trial ${trial}: ${reply.message}`);
        }
        await Promise.all(holders.map((holder) => holder.release()));
        // A holder that lost its lock file to another would have left the directory without one.
        fs.rmSync(path.join(dataDir, "guard.lock"), { force: true });
      }
      assert.deepEqual(
        notOneHolder,
        [],
        `of ${trials} trials, these were not held by exactly one of ${racers.length} processes`,
      );
      assert.deepEqual(otherErrors, [], "the others were refused as DataDirLockedError");
      assert.deepEqual(fs.readdirSync(dataDir), [], "no claim or takeover files are left behind");
    },
  );
});
