// A fresh embedded data directory starts from a snapshot of an empty, migrated database instead of
// running initdb and every migration, which cost most of a cold start (bench/README.md, "Start-up").
// The snapshot is made once, by the first start that had to
// create a database the slow way (or at image build, docs/deploy.md), and is kept beside the server
// code (server/.embedded-<digest>.tar, or in GUARD_SNAPSHOT_DIR) under a digest of the migrations:
// a release that adds a migration gets a new snapshot; the old one is removed. Best effort
// throughout: a snapshot that cannot be read or written only means the slow path.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dumpPgliteSnapshot, type Database } from "./database.js";
import { listMigrations } from "./migrate.js";

// server/, from server/src/db/ and from a build's server/.build-<key>/db/ alike.
const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PREFIX = ".embedded-";

/** The snapshot file of the current migrations in `dir` (default: the server's directory). */
export function freshSnapshotFile(dir: string | undefined): string {
  const digest = createHash("sha256").update(JSON.stringify(listMigrations())).digest("hex").slice(0, 16);
  return path.join(dir ?? SERVER_DIR, `${PREFIX}${digest}.tar`);
}

/** The snapshot of the current migrations, when one was made. */
export function readFreshSnapshot(dir: string | undefined): Blob | undefined {
  try {
    return new Blob([fs.readFileSync(freshSnapshotFile(dir))]);
  } catch {
    return undefined;
  }
}

/**
 * Saves `db` (just created and migrated, holding nothing else) as the snapshot for later fresh
 * directories; removes snapshots of other migration sets. Never throws.
 */
export async function saveFreshSnapshot(db: Database, dir: string | undefined): Promise<void> {
  try {
    const file = freshSnapshotFile(dir);
    const folder = path.dirname(file);
    if (fs.existsSync(file)) return;
    const snapshot = await dumpPgliteSnapshot(db);
    if (!snapshot) return;
    // Written beside the final name and renamed: a concurrent start never reads half a file.
    const partial = `${file}.${process.pid}.partial`;
    fs.writeFileSync(partial, Buffer.from(await snapshot.arrayBuffer()), { mode: 0o644 });
    fs.renameSync(partial, file);
    for (const name of fs.readdirSync(folder)) {
      if (name.startsWith(PREFIX) && path.join(folder, name) !== file && !name.endsWith(".partial")) {
        fs.rmSync(path.join(folder, name), { force: true });
      }
    }
  } catch {
    // A read-only install: every fresh directory takes the slow path.
  }
}
