// guard backup <file> | guard restore <file>: the embedded database's backup, as two files.
//
// `<file>` is PGlite's own dump of the cluster (dumpDataDir: a tar of pgdata), gzipped: any `tar -tzf`
// lists it. `<file>.secrets.json` is a small JSON manifest: what the backup is (format, Guard
// version, migration level, organisation count, the tarball's size and SHA-256) and the data
// directory's secrets.json (audit-hash keys, token secret, secrets key), without which the restored
// audit chain cannot be verified and sealed webhook secrets cannot be opened. Two files rather than
// one archive because no archive library is a dependency of the server, and a hand-rolled tar
// writer is not worth owning for this. Both are written 0600; the manifest is the sensitive one.
//
// With DATABASE_URL both refuse: PostgreSQL is backed up with pg_dump / pg_restore (docs/deploy.md).
//
// Neither goes through main.ts's `run`: that builds a CliContext first, and building one generates
// secrets.json in an absent data directory, which `restore` must find empty and `backup` must not
// create. Like every command today they open the data directory themselves, so they cannot run
// while a server holds it (the lock says so). If the CLI learns to run commands through a running
// server, `backup` must take the snapshot from that server's open database (dumpDataDir inside the
// server process) rather than open the directory itself; `restore` always needs the directory to
// itself, so it stays local.
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { Command } from "commander";
import { countOrganizations } from "../../accounts/store.js";
import { verifyAllAuditChains } from "../../audit/verify.js";
import { DEFAULT_DATA_DIR } from "../../config.js";
import { DataDirLockedError } from "../../db/data-dir-lock.js";
import { dumpPgliteSnapshot, openDatabase, type Database } from "../../db/database.js";
import { appliedMigrationIds, listMigrations } from "../../db/migrate.js";
import { CliContext, type GlobalOptions } from "../context.js";
import { CliError, createOutput } from "../io.js";
import { makeDirectory } from "../../lib/make-directory.js";

const FORMAT = "guard-embedded-backup";
const FORMAT_VERSION = 1;
const SECRETS_SUFFIX = ".secrets.json";
/** The secrets the embedded database generates into secrets.json unless the environment sets them. */
const SECRET_SETTINGS = ["GUARD_TOKEN_SECRET", "GUARD_AUDIT_HASH_KEYS", "GUARD_SECRETS_KEY"] as const;

interface Manifest {
  format: typeof FORMAT;
  version: number;
  createdAt: number;
  guardVersion: string;
  /** The last migration applied to the backed-up database (null: none). */
  migration: string | null;
  organizations: number;
  snapshot: { file: string; bytes: number; sha256: string };
  /** The data directory's secrets.json as it was; null when it had none (secrets from the environment). */
  secrets: Record<string, unknown> | null;
}

function refuseDatabaseUrl(verb: "backup" | "restore"): void {
  // As loadConfig reads it: an empty DATABASE_URL means the embedded database.
  if (process.env.DATABASE_URL) {
    const tool = verb === "backup" ? "pg_dump --format=custom" : "pg_restore --clean --if-exists";
    throw new CliError(
      `guard ${verb} is for the embedded database; with DATABASE_URL set, use ${tool} (docs/deploy.md, "Backups and restore")`,
    );
  }
}

/** The data directory as loadConfig resolves it, without loadConfig's side effect of generating secrets.json. */
function dataDirOf(globals: GlobalOptions): string {
  return path.resolve(globals.dataDir ?? (process.env.GUARD_DATA_DIR || DEFAULT_DATA_DIR));
}

function guardVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

const sha256 = (bytes: Buffer): string => createHash("sha256").update(bytes).digest("hex");

function writePrivate(file: string, bytes: Buffer | string): void {
  // "wx": a new file, so the mode applies (and an existing backup is never overwritten).
  fs.writeFileSync(file, bytes, { mode: 0o600, flag: "wx" });
  fs.chmodSync(file, 0o600);
}

async function backup(globals: GlobalOptions, file: string): Promise<void> {
  refuseDatabaseUrl("backup");
  const out = createOutput(Boolean(globals.json));
  const dataDir = dataDirOf(globals);
  if (!fs.existsSync(path.join(dataDir, "pgdata", "PG_VERSION"))) {
    throw new CliError(
      `There is no embedded database in ${dataDir} to back up (give its --data-dir or GUARD_DATA_DIR)`,
    );
  }
  const target = path.resolve(file);
  const secretsTarget = target + SECRETS_SUFFIX;
  for (const existing of [target, secretsTarget]) {
    if (fs.existsSync(existing))
      throw new CliError(`${existing} already exists: choose another name or remove it`);
  }

  const ctx = CliContext.create(globals, out);
  try {
    // Not migrated: a backup keeps the database as it is (take one before upgrading Guard).
    const db = await ctx.db({ migrateOnOpen: false });
    // Everything written reaches the data files first, so the snapshot needs no WAL replay.
    await db.query("CHECKPOINT");
    const migrations = await appliedMigrationIds(db);
    const organizations = await countOrganizations(db);
    // PGlite runs one statement at a time and this process holds the data directory alone, so the
    // dump is a consistent copy of the cluster.
    const snapshot = await dumpPgliteSnapshot(db);
    if (!snapshot) throw new Error("the embedded database gave no snapshot");
    const tarball = gzipSync(Buffer.from(await snapshot.arrayBuffer()));

    const secretsFile = path.join(dataDir, "secrets.json");
    const secrets = fs.existsSync(secretsFile)
      ? (JSON.parse(fs.readFileSync(secretsFile, "utf8")) as Record<string, unknown>)
      : null;
    const manifest: Manifest = {
      format: FORMAT,
      version: FORMAT_VERSION,
      createdAt: Date.now(),
      guardVersion: guardVersion(),
      migration: migrations.at(-1) ?? null,
      organizations,
      snapshot: { file: path.basename(target), bytes: tarball.length, sha256: sha256(tarball) },
      secrets,
    };
    writePrivate(target, tarball);
    writePrivate(secretsTarget, `${JSON.stringify(manifest, null, 2)}\n`);

    const fromEnvironment = SECRET_SETTINGS.filter((name) => process.env[name]);
    out.result({
      file: target,
      bytes: tarball.length,
      sha256: manifest.snapshot.sha256,
      secretsFile: secretsTarget,
      migration: manifest.migration,
      migrations: migrations.length,
      organizations,
      createdAt: manifest.createdAt,
      ...(fromEnvironment.length > 0 ? { secretsFromEnvironment: fromEnvironment } : {}),
    });
    out.note(
      `Backed up ${dataDir} to ${target} (${tarball.length} bytes) and ${secretsTarget}; keep both, and keep the secrets file private.`,
    );
    if (fromEnvironment.length > 0) {
      out.note(
        `${fromEnvironment.join(", ")} come from the environment: the backup cannot hold them, keep them with it.`,
      );
    }
  } catch (error) {
    throw ctx.operatorError(error);
  } finally {
    await ctx.close();
  }
}

/** Reads and checks both files; a CliError naming the file for anything unreadable or corrupt. */
function readBackup(file: string): { manifest: Manifest; tarball: Buffer } {
  const source = path.resolve(file);
  const secretsSource = source + SECRETS_SUFFIX;
  let tarball: Buffer;
  let manifest: Manifest;
  try {
    tarball = fs.readFileSync(source);
  } catch (error) {
    throw new CliError(`cannot read the backup ${source}: ${(error as Error).message}`);
  }
  try {
    manifest = JSON.parse(fs.readFileSync(secretsSource, "utf8")) as Manifest;
  } catch (error) {
    throw new CliError(
      `cannot read ${secretsSource}, which guard backup writes beside ${path.basename(source)} with the secrets the backup needs: ${(error as Error).message}`,
    );
  }
  if (manifest?.format !== FORMAT || typeof manifest.snapshot?.sha256 !== "string") {
    throw new CliError(`${secretsSource} is not a Guard backup manifest`);
  }
  if (manifest.version > FORMAT_VERSION) {
    throw new CliError(
      `${secretsSource} is backup format ${manifest.version}; this Guard reads up to ${FORMAT_VERSION}: upgrade Guard`,
    );
  }
  if (sha256(tarball) !== manifest.snapshot.sha256) {
    throw new CliError(
      `the backup ${source} is corrupt: its SHA-256 does not match the one recorded in ${secretsSource}`,
    );
  }
  let tar: Buffer;
  try {
    tar = gunzipSync(tarball);
  } catch {
    throw new CliError(`the backup ${source} is corrupt: not a gzip file`);
  }
  if (tar.subarray(257, 262).toString("latin1") !== "ustar") {
    throw new CliError(`the backup ${source} is corrupt: not a tar archive`);
  }
  return { manifest, tarball: tar };
}

async function restore(globals: GlobalOptions, file: string): Promise<void> {
  refuseDatabaseUrl("restore");
  const out = createOutput(Boolean(globals.json));
  const { manifest, tarball } = readBackup(file);
  const dataDir = dataDirOf(globals);
  if (fs.existsSync(dataDir) && fs.readdirSync(dataDir).length > 0) {
    throw new CliError(
      `The data directory ${dataDir} is not empty: restore only into an empty or absent one (move this one aside first, or give another --data-dir)`,
    );
  }

  // Built beside the target and renamed into place, so a failed restore leaves nothing behind.
  const staging = `${dataDir}.restoring-${process.pid}`;
  makeDirectory(path.dirname(dataDir));
  fs.mkdirSync(staging, { mode: 0o700 });
  try {
    if (manifest.secrets)
      writePrivate(path.join(staging, "secrets.json"), JSON.stringify(manifest.secrets, null, 2));
    out.note(`Loading the snapshot into ${dataDir}…`);
    let db: Database;
    try {
      db = await openDatabase({
        dataDir: staging,
        // gunzipSync's buffer is never shared; the view only tells the Blob's types so.
        snapshot: new Blob(
          [new Uint8Array(tarball.buffer as ArrayBuffer, tarball.byteOffset, tarball.length)],
          {
            type: "application/x-tar",
          },
        ),
      });
    } catch (error) {
      if (error instanceof DataDirLockedError) throw new CliError(error.message);
      throw new CliError(
        `the backup ${path.resolve(file)} could not be loaded: ${String((error as Error).message).split("\n")[0]}`,
      );
    }
    await db.close();
    if (fs.existsSync(dataDir)) fs.rmdirSync(dataDir); // empty, checked above
    fs.renameSync(staging, dataDir);
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }

  // Opened as every command opens it: migrated (a backup from an older Guard is upgraded), then
  // every organisation's audit chain checked with the restored keys.
  const ctx = CliContext.create(globals, out);
  try {
    const db = await ctx.db();
    const migrations = await appliedMigrationIds(db);
    const audit = await verifyAllAuditChains(db, ctx.config.auditKeys);
    const broken = audit.organizations.filter((r) => !r.intact);
    out.result({
      dataDir,
      from: path.resolve(file),
      backupCreatedAt: manifest.createdAt,
      migrationBefore: manifest.migration,
      migration: migrations.at(-1) ?? null,
      pendingMigrations: listMigrations().length - migrations.length,
      organizations: audit.organizations.length,
      auditIntact: audit.intact,
      audit: audit.organizations.map((r) => ({
        organizationId: r.organizationId,
        intact: r.intact,
        entries: r.entries,
        problemCount: r.problemCount,
      })),
    });
    if (!manifest.secrets) {
      out.note(
        "The backup held no secrets.json: the secrets come from the environment (GUARD_TOKEN_SECRET, GUARD_AUDIT_HASH_KEYS, GUARD_SECRETS_KEY).",
      );
    }
    if (broken.length > 0) {
      throw new CliError(
        `restored into ${dataDir}, but ${broken.length} of ${audit.organizations.length} audit chains do not verify (are these the backup's secrets?); see: guard audit verify --all`,
      );
    }
    out.note(
      `Restored into ${dataDir}: ${audit.organizations.length} organisation(s), every audit chain intact.`,
    );
  } catch (error) {
    throw ctx.operatorError(error);
  } finally {
    await ctx.close();
  }
}

export function registerBackupCommands(program: Command): void {
  program
    .command("backup")
    .description(
      "embedded database only: write a consistent snapshot to <file> and its manifest with the data directory's secrets to <file>.secrets.json (both 0600)",
    )
    .argument("<file>", "the backup to write (e.g. guard-2026-01-31.tar.gz); must not exist")
    .action((file: string) => backup(program.opts<GlobalOptions>(), file));
  program
    .command("restore")
    .description(
      "embedded database only: recreate an empty or absent data directory from <file> and <file>.secrets.json, migrate it and verify every audit chain",
    )
    .argument("<file>", "a backup written by guard backup")
    .action((file: string) => restore(program.opts<GlobalOptions>(), file));
}
