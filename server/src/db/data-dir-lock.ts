// Single-opener guard for the embedded database. PGlite has no server to arbitrate between
// processes, so two processes on one data directory would corrupt it. Like PostgreSQL's own
// postmaster.pid, a lock file holds the owner's pid; a lock whose owner is gone is stale and taken over.
import fs from "node:fs";
import path from "node:path";

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

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function acquireDataDirLock(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, "guard.lock");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      // O_EXCL: exactly one process can create the file, even when two start at the same instant.
      fs.writeFileSync(lockFile, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        try {
          if (fs.readFileSync(lockFile, "utf8").trim() === String(process.pid)) fs.unlinkSync(lockFile);
        } catch {
          // Already gone: nothing to release.
        }
      };
      process.once("exit", release);
      return { release };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const ownerPid = Number.parseInt(fs.readFileSync(lockFile, "utf8"), 10);
      if (Number.isInteger(ownerPid) && ownerPid !== process.pid && processIsAlive(ownerPid)) {
        throw new DataDirLockedError(dataDir, ownerPid);
      }
      if (ownerPid === process.pid) throw new DataDirLockedError(dataDir, ownerPid);
      // Stale lock from a process that died without cleaning up: remove it and try once more.
      fs.rmSync(lockFile, { force: true });
    }
  }
  throw new Error(`Could not acquire the lock on ${dataDir}`);
}
