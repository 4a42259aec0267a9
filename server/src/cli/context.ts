// What every CLI command needs: the parsed configuration and, opened lazily, the migrated database.
// The same DATABASE_URL / --data-dir rules as the server apply. The embedded database has one
// opener (the data directory's lock): when a running server holds it, db() hands the invocation to
// that server (RunThroughServer, cli-socket.ts), which runs it with its own database (`host`).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { findOrganizationBySlug, type Organization } from "../accounts/organizations.js";
import { linkAllQueued } from "../audit/sequencer.js";
import { ConfigError, DEFAULT_DATA_DIR, loadConfig, type Config } from "../config.js";
import { describeConnectionFailure } from "../db/connection-failure.js";
import { DataDirLockedError } from "../db/data-dir-lock.js";
import type { Database } from "../db/database.js";
import { planFreshStart, type FreshStart } from "../db/fresh-snapshot.js";
import { migrate } from "../db/migrate.js";
import { openConfiguredDatabase } from "../server.js";
import { CLI_SOCKET_FILE, RunThroughServer, type CliHost } from "./cli-socket.js";
import { CliError, processIo, type CliIo, type Output } from "./io.js";

export interface GlobalOptions {
  json?: boolean;
  dataDir?: string;
}

/**
 * PGlite settings for a command that is not `guard serve`. PGlite clears its whole buffer pool at
 * every start (128 MB by default), a cost a command pays each time it runs and never recovers in a
 * process that lives for one command; 16 MB holds what any command touches more than once, and
 * reads beyond it come from the operating system's file cache (bench/README.md, "Start-up").
 */
const ONE_SHOT_SETTINGS = { shared_buffers: "16MB" };

export class CliContext {
  private database: Database | undefined;
  /** Whether this context migrated the database (only then can a command have queued audit entries). */
  private migrated = false;
  /** How the database this context opened began (saves the snapshot after the first migration). */
  private freshStart: FreshStart | undefined;
  constructor(
    readonly config: Config,
    readonly out: Output,
    readonly io: CliIo = processIo(),
    /** The running server this invocation was forwarded to: its database is used, never closed. */
    readonly host?: CliHost,
    /** Whether the command reads stdin (a secret): a forwarded invocation then carries it. */
    private readonly readsStdin = false,
  ) {}

  static create(
    options: GlobalOptions & { port?: number },
    out: Output,
    invocation: { io?: CliIo; host?: CliHost; readsStdin?: boolean } = {},
  ): CliContext {
    const { io, host, readsStdin } = invocation;
    if (host) return new CliContext(host.config, out, io, host, readsStdin);
    try {
      const overrides: { dataDir?: string; port?: number } = {};
      if (options.dataDir) overrides.dataDir = options.dataDir;
      if (options.port !== undefined) overrides.port = options.port;
      return new CliContext(loadConfig(process.env, overrides), out, io, undefined, readsStdin);
    } catch (error) {
      // A wrong setting is the operator's error like a refused value (exit 1), not a usage error (2).
      if (error instanceof ConfigError) throw new CliError(error.message, 1);
      throw dataDirError(error, options.dataDir ?? process.env.GUARD_DATA_DIR) ?? error;
    }
  }

  /**
   * The database, opened and (unless `migrateOnOpen` is false) migrated on first use. `serving`:
   * for `guard serve`; any other command is one short-lived process, which opens the embedded
   * database with a smaller buffer pool (ONE_SHOT_SETTINGS).
   */
  async db(options: { migrateOnOpen?: boolean; serving?: boolean } = {}): Promise<Database> {
    // The server migrated its database when it started.
    if (this.host) return (this.database = this.host.db);
    if (!this.database) {
      const { databaseUrl, dataDir } = this.config;
      // A fresh directory starts from the migrated snapshot when there is one (db/fresh-snapshot.ts).
      const start = (this.freshStart = planFreshStart(this.config));
      // The slow phases say what they are doing: creating an embedded database takes seconds.
      if (start.fresh) {
        this.out.note(
          start.snapshot
            ? `Creating the embedded database in ${dataDir}…`
            : `Creating the embedded database in ${dataDir} (first start, a few seconds)…`,
        );
      }
      try {
        this.database = await openConfiguredDatabase(this.config, {
          fromSnapshot: start.snapshot,
          embeddedSettings: options.serving ? undefined : ONE_SHOT_SETTINGS,
        });
      } catch (error) {
        if (error instanceof DataDirLockedError) {
          // A server holding the directory listens on its socket: the command runs there.
          const socketPath = path.join(dataDir, CLI_SOCKET_FILE);
          if (fs.existsSync(socketPath)) throw new RunThroughServer(socketPath, error, this.readsStdin);
          throw new CliError(error.message);
        }
        if (databaseUrl === undefined)
          throw dataDirError(error, dataDir) ?? damagedDatabaseError(error, dataDir);
        throw error;
      }
      if (options.migrateOnOpen !== false) {
        await this.migrate();
        this.migrated = true;
      }
    }
    return this.database;
  }

  /** Applies pending migrations to the open database, saying how many and how long they took. */
  async migrate(): Promise<string[]> {
    if (!this.database) throw new Error("migrate() before db()");
    const started = performance.now();
    const applied = await migrate(this.database, Date.now(), {
      onPending: (ids) =>
        this.out.note(`Applying ${ids.length} database migration${ids.length === 1 ? "" : "s"}…`),
    });
    if (applied.length > 0) this.out.note(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    await this.freshStart?.afterMigrations(this.database);
    return applied;
  }

  /**
   * What a command's failure means to the operator: a PostgreSQL server that cannot be reached or
   * signed in to (the pool first connects on a command's first statement, whichever it is) becomes
   * one line naming DATABASE_URL; anything else is passed on as it is.
   */
  operatorError(error: unknown): unknown {
    const { databaseUrl } = this.config;
    const described = databaseUrl === undefined ? undefined : describeConnectionFailure(error, databaseUrl);
    return described === undefined ? error : new CliError(described);
  }

  async organization(slug: string): Promise<Organization> {
    const org = await findOrganizationBySlug(await this.db(), slug);
    if (!org) throw new CliError(`No organisation has the slug "${slug}" (create it with: guard org create)`);
    return org;
  }

  async close(): Promise<void> {
    // The server's database stays open; its own sequencer links what the command queued.
    if (!this.database || this.host) return;
    try {
      if (!this.migrated) return;
      // Link what this command queued on the audit chain, as a server's sequencer would; left
      // queued (durable) if this fails, for the next server start to link.
      await linkAllQueued(this.database, Date.now());
    } finally {
      await this.database.close();
      this.database = undefined;
    }
  }
}

/** What the file system answers when a path cannot be a private, writable directory. */
const DATA_DIR_ERRNOS = new Set([
  "EEXIST",
  "ENOENT",
  "ENOTDIR",
  "EACCES",
  "EPERM",
  "EROFS",
  "ENOSPC",
  "ELOOP",
]);

/**
 * A data directory Guard cannot create or write (a file in the way, no permission, a read-only or
 * full file system) as one line naming the setting, instead of the file system's stack trace;
 * undefined for any other error.
 */
function dataDirError(error: unknown, configured: string | undefined): CliError | undefined {
  const { code, path: where } = (error ?? {}) as { code?: unknown; path?: unknown };
  if (typeof code !== "string" || !DATA_DIR_ERRNOS.has(code) || typeof where !== "string") return undefined;
  const dir = configured ?? DEFAULT_DATA_DIR;
  return new CliError(
    `The data directory ${dir} cannot be used (${code} on ${where}): set GUARD_DATA_DIR or --data-dir to a directory this user can create and write`,
  );
}

/**
 * An existing embedded database PGlite cannot start on (files damaged or from an incompatible
 * version): one line saying how to recover, instead of PGlite's stack. Never repaired in place:
 * a half-readable database is evidence, and a restore replaces it as a whole.
 */
function damagedDatabaseError(error: unknown, dataDir: string): unknown {
  const pgdata = path.join(dataDir, "pgdata");
  if (!fs.existsSync(pgdata)) return error;
  const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
  return new CliError(
    `The embedded database in ${pgdata} cannot be opened (${reason}): restore the data directory from a backup (guard --data-dir ${dataDir} restore <backup.tgz>, after moving the damaged one aside) or set GUARD_DATA_DIR to another directory`,
  );
}

/** The OS user running the command line, as changes it makes are recorded. */
export function cliUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    // No passwd entry (some containers).
    return "unknown";
  }
}

/** Who a change made from the command line is recorded as: `system` / `cli:<OS user>`. */
export function cliActor(): { kind: "system"; id: string } {
  return { kind: "system", id: `cli:${cliUser()}` };
}
