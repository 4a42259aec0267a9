// A fresh embedded data directory starts from a snapshot of an empty, migrated database instead of
// running initdb and every migration, which cost most of a cold start (bench/README.md, "Start-up").
// The snapshot is made once, by the first start that had to
// create a database the slow way (or at image build, docs/deploy.md), and is kept beside the server
// code (server/.embedded-<digest>.tar, or in GUARD_SNAPSHOT_DIR) under a digest of the migrations:
// a release that adds a migration gets a new snapshot; the old one is removed. A fresh directory
// gets the snapshot's files unpacked by Node (snapshot-tar.ts, database.ts), not by PGlite. Best
// effort throughout: a snapshot that cannot be read, parsed or written only means the slow path.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { dumpPgliteSnapshot, embeddedClusterExists, type Database } from "./database.js";
import { listMigrations } from "./migrate.js";
import { readSnapshotTar, SnapshotTarError, type SnapshotTar } from "./snapshot-tar.js";

// server/, from server/src/db/ and from a build's server/.build-<key>/db/ alike.
const SERVER_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const PREFIX = ".embedded-";
// Part of the snapshot's digest beside the migrations: a snapshot made by code that shaped it
// differently (before the template databases were dropped) is not reused, and is removed.
const SNAPSHOT_LAYOUT = "checkpointed, without template databases";

/** A digest of the current migrations and the snapshot's layout: what a snapshot is valid for. */
export function snapshotDigest(): string {
  return createHash("sha256")
    .update(JSON.stringify({ layout: SNAPSHOT_LAYOUT, migrations: listMigrations() }))
    .digest("hex")
    .slice(0, 16);
}

/** The snapshot file of the current migrations in `dir` (default: the server's directory). */
export function freshSnapshotFile(dir: string | undefined): string {
  return path.join(dir ?? SERVER_DIR, `${PREFIX}${snapshotDigest()}.tar`);
}

/**
 * The snapshot of the current migrations, read and checked whole, when one was made. One that does
 * not parse (a damaged file) is removed, so the slow creation that follows saves a sound one.
 */
export function readFreshSnapshot(dir: string | undefined): SnapshotTar | undefined {
  const file = freshSnapshotFile(dir);
  let tar: Buffer;
  try {
    tar = fs.readFileSync(file);
  } catch {
    return undefined;
  }
  try {
    return readSnapshotTar(tar);
  } catch (error) {
    if (error instanceof SnapshotTarError) {
      try {
        fs.rmSync(file, { force: true });
      } catch {
        // A read-only install: every fresh directory takes the slow path.
      }
    }
    return undefined;
  }
}

/**
 * Drops the cluster's two template databases. A fresh directory is mostly files to create, and
 * creating files is what makes a cold start slow and unsteady (bench/README.md, "Start-up"):
 * template0 and template1 are 600 of its 1 380 files, and Guard never reads them. They exist for
 * `CREATE DATABASE`, which an embedded database (one process, one database, `postgres`) never runs;
 * dropping them is PostgreSQL's own supported operation (after clearing `IS_TEMPLATE`), not a
 * removal of files behind its back, so the catalog stays consistent. The database in use keeps
 * everything; a PostgreSQL server is never touched (this runs on the embedded snapshot only).
 */
export async function dropTemplateDatabases(db: Database): Promise<void> {
  if (db.kind !== "pglite") return;
  for (const name of ["template0", "template1"]) {
    const exists = await db.query("SELECT 1 FROM pg_database WHERE datname = $1", [name]);
    if (exists.length === 0) continue;
    await db.query(`ALTER DATABASE ${name} IS_TEMPLATE false`);
    await db.query(`DROP DATABASE ${name}`);
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
    await dropTemplateDatabases(db);
    // Everything reaches the data files first: a directory unpacked from the snapshot then opens
    // with no WAL to replay (bench/README.md, "Start-up").
    await db.query("CHECKPOINT");
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

/** How one opening of the configured database begins (`planFreshStart`). */
export interface FreshStart {
  /** An embedded data directory that does not exist yet: this opening creates it. */
  fresh: boolean;
  /** The snapshot a fresh directory is unpacked from; undefined when there is none (the slow way). */
  snapshot: SnapshotTar | undefined;
  /**
   * Call once the database is migrated: a directory this opening created the slow way, holding
   * nothing but the schema yet, is saved as the snapshot the next fresh directory starts from.
   */
  afterMigrations(db: Database): Promise<void>;
}

/**
 * The fresh-directory rule that `guard serve` (cli/context.ts) and `startServer` share: a new embedded
 * data directory starts from the migrated snapshot when there is one, and one created the slow way
 * is saved as that snapshot once migrated. A PostgreSQL server (`databaseUrl`) is never fresh.
 */
export function planFreshStart(config: {
  databaseUrl?: string | undefined;
  dataDir: string;
  snapshotDir?: string | undefined;
}): FreshStart {
  const fresh = config.databaseUrl === undefined && !embeddedClusterExists(config.dataDir);
  const snapshot = fresh ? readFreshSnapshot(config.snapshotDir) : undefined;
  let saveAfterMigrations = fresh && !snapshot;
  return {
    fresh,
    snapshot,
    afterMigrations: async (db) => {
      if (!saveAfterMigrations) return;
      saveAfterMigrations = false;
      await saveFreshSnapshot(db, config.snapshotDir);
    },
  };
}
