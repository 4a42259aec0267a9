// One query interface over both ways of running PostgreSQL: embedded PGlite (in-process, persisted
// to a data directory) and a PostgreSQL server through `pg`. Same SQL, same migrations.
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.js";
import { makeDirectoryPrivate, makeTreePrivate } from "./data-dir-permissions.js";
import { analyzeChangedTables } from "./embedded-statistics.js";
import { PreparedStatements, runPipelined, typeParsers, type PipelinedOptions } from "./pglite-pipelined.js";
import { removeUnpackLeftovers, unpackSnapshotTar, type SnapshotTar } from "./snapshot-tar.js";

export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one parameterised statement ($1, $2, …) and returns its rows. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[], options?: QueryOptions): Promise<T[]>;
}

/** Callbacks waiting for a transaction's COMMIT, by the transaction's Queryable. */
const commitCallbacks = new WeakMap<Queryable, Array<() => void>>();

/**
 * Runs `callback` once the transaction `db` belongs to has committed, or at once when `db` is not a
 * transaction (its statements commit as they run); never when it rolls back. For signals to other
 * sessions (a worker's wake-up) that must not arrive before the rows they announce are visible.
 * Callbacks must not throw: the transaction has committed, and its caller is told it succeeded.
 */
export function afterCommit(db: Queryable, callback: () => void): void {
  const waiting = commitCallbacks.get(db);
  if (waiting) waiting.push(callback);
  else callback();
}

/** Registers `tx` as a transaction; the function returned runs its callbacks, once COMMIT has succeeded. */
function trackCommitCallbacks(tx: Queryable): () => void {
  const waiting: Array<() => void> = [];
  commitCallbacks.set(tx, waiting);
  return () => {
    commitCallbacks.delete(tx);
    for (const callback of waiting) callback();
  };
}

export interface QueryOptions {
  /**
   * Hot statements only: a name (unique per SQL text) makes the database parse and plan the
   * statement once per connection (once per session on PGlite) instead of on every call.
   */
  preparedAs?: string;
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Receives the payloads of `NOTIFY channel` (pg_notify) from every session, this one's included,
   * as they commit. Resolves once listening.
   */
  listen(channel: string, handlers: NotificationHandlers): Promise<NotificationListener>;
  close(): Promise<void>;
}

export interface NotificationHandlers {
  message(payload: string): void;
  /**
   * Called whenever notifications may have been missed (the listening connection dropped): the
   * receiver must forget whatever the notifications would have told it to forget.
   */
  reset(): void;
}

export interface NotificationListener {
  /** False while the listening connection is down: notifications are being missed. */
  readonly connected: boolean;
  close(): Promise<void>;
}

// Epoch-millisecond times are BIGINT columns. They fit a JavaScript number exactly (< 2^53), so
// both drivers parse int8 to number instead of the default string.
const INT8_OID = 20;
const parseInt8 = (value: string): number => Number(value);
const PARSE_TYPE = typeParsers({ [INT8_OID]: parseInt8 });

// PostgreSQL keeps a prepared statement's plan until something invalidates it; on a server, the
// ANALYZE that autovacuum runs as a table grows does, and the new statistics also steer every
// statement planned afresh. PGlite runs no autovacuum, so the embedded database checks this often
// for tables changed past autovacuum's threshold and ANALYZEs them (db/embedded-statistics.ts):
// its plans then follow its tables as a server's do. Once a minute is autovacuum's default naptime.
const PGLITE_STATISTICS_INTERVAL_MS = 60_000;

class PgliteDatabase implements Database {
  readonly kind = "pglite" as const;
  private readonly prepared = new PreparedStatements();
  private readonly statisticsTimer: NodeJS.Timeout;
  private statisticsRun: Promise<string[]> | undefined;
  constructor(
    private readonly db: PGlite,
    private readonly lock: DataDirLock | undefined,
    private readonly dataDir: string | undefined,
  ) {
    // A failed turn (the database closing meanwhile) leaves the statistics to the next one, as a
    // server's autovacuum does when its worker is cancelled.
    const refresh = () => void this.refreshStatistics().catch(() => undefined);
    this.statisticsTimer = setInterval(refresh, PGLITE_STATISTICS_INTERVAL_MS);
    this.statisticsTimer.unref();
  }

  /**
   * ANALYZEs the tables changed past autovacuum's threshold and resolves to their names; called
   * while a run is in progress, it joins that run.
   */
  private refreshStatistics(): Promise<string[]> {
    if (this.db.closed) return Promise.resolve([]);
    this.statisticsRun ??= analyzeChangedTables(this).finally(() => {
      this.statisticsRun = undefined;
    });
    return this.statisticsRun;
  }

  /**
   * Drops every cached plan of the session (prepared statements stay, and re-plan on next use).
   * Not needed to follow growth: the ANALYZE of refreshStatistics invalidates the plans of the
   * statements on the tables it analyzes.
   */
  async discardPlans(): Promise<void> {
    if (this.db.closed) return;
    // A failure (the database closing meanwhile) only leaves the old plans until the next turn.
    await this.db.exec("DISCARD PLANS").catch(() => undefined);
  }

  private pipelinedOptions(inTransaction: boolean, options: QueryOptions | undefined): PipelinedOptions {
    const name = options?.preparedAs;
    return {
      parseType: PARSE_TYPE,
      inTransaction,
      ...(name ? { prepared: { name, statements: this.prepared } } : {}),
    };
  }

  query<T extends Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<T[]> {
    return runPipelined<T>(this.db, sql, params, this.pipelinedOptions(false, options));
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    // PGlite's transaction() holds its transaction lock and runs BEGIN/COMMIT/ROLLBACK; the
    // statements inside go through the same pipelined path as everywhere else.
    let committed: (() => void) | undefined;
    const result = await this.db.transaction(async (tx) => {
      const queryable: Queryable = {
        query: <R extends Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions) => {
          if (tx.closed) return Promise.reject(new Error("Transaction is closed"));
          return runPipelined<R>(this.db, sql, params, this.pipelinedOptions(true, options));
        },
      };
      committed = trackCommitCallbacks(queryable);
      return work(queryable);
    });
    committed?.();
    return result;
  }

  async listen(channel: string, handlers: NotificationHandlers): Promise<NotificationListener> {
    // In-process: notifications cannot be missed, so the listener is always connected.
    const unlisten = await this.db.listen(channel, (payload) => handlers.message(payload));
    const db = this.db;
    return {
      connected: true,
      close: async () => {
        if (!db.closed) await unlisten();
      },
    };
  }

  /** A tarball of the whole database (PGlite only): tests start from a migrated snapshot. */
  async dumpSnapshot(): Promise<Blob> {
    return this.db.dumpDataDir("none");
  }

  async close(): Promise<void> {
    clearInterval(this.statisticsTimer);
    // An ANALYZE in progress finishes first; its failure is the timer's, not the closer's.
    await this.statisticsRun?.catch(() => undefined);
    try {
      if (!this.db.closed) await this.db.close();
      // Whatever PostgreSQL wrote during the session is left private too.
      if (this.dataDir) makeTreePrivate(this.dataDir);
    } finally {
      this.lock?.release();
    }
  }
}

/** One statement on the pool or a transaction's client, prepared by name when asked. */
async function runPgQuery<T extends Row>(
  target: pg.Pool | pg.PoolClient,
  sql: string,
  params: readonly unknown[],
  options: QueryOptions | undefined,
): Promise<T[]> {
  const values = params as unknown[];
  const result = options?.preparedAs
    ? await target.query<T>({ name: options.preparedAs, text: sql, values })
    : await target.query<T>(sql, values);
  return result.rows;
}

class PostgresDatabase implements Database {
  readonly kind = "postgres" as const;
  constructor(
    private readonly pool: pg.Pool,
    private readonly clientConfig: pg.ClientConfig,
  ) {}

  query<T extends Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<T[]> {
    return runPgQuery<T>(this.pool, sql, params, options);
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const queryable: Queryable = {
        query: <R extends Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions) =>
          runPgQuery<R>(client, sql, params, options),
      };
      const committed = trackCommitCallbacks(queryable);
      const result = await work(queryable);
      await client.query("COMMIT");
      committed();
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  listen(channel: string, handlers: NotificationHandlers): Promise<NotificationListener> {
    return PostgresListener.start(this.clientConfig, channel, handlers);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

const LISTEN_RECONNECT_MIN_MS = 100;
const LISTEN_RECONNECT_MAX_MS = 5_000;

/**
 * LISTEN needs a session of its own (a pooled connection is shared and would drop it), kept open
 * for the process's lifetime and re-established with backoff when it drops. Every (re)connection
 * calls `reset`, since whatever was notified while it was down is lost.
 */
class PostgresListener implements NotificationListener {
  connected = false;
  private client: pg.Client | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = LISTEN_RECONNECT_MIN_MS;

  private constructor(
    private readonly clientConfig: pg.ClientConfig,
    private readonly channel: string,
    private readonly handlers: NotificationHandlers,
  ) {}

  static async start(
    clientConfig: pg.ClientConfig,
    channel: string,
    handlers: NotificationHandlers,
  ): Promise<PostgresListener> {
    const listener = new PostgresListener(clientConfig, channel, handlers);
    await listener.connect();
    return listener;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.clientConfig);
    this.client = client;
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.connected = false;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (message) => {
      if (message.channel === this.channel && message.payload !== undefined)
        this.handlers.message(message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(this.channel)}`);
    } catch {
      lost();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.connected = true;
    this.retryDelayMs = LISTEN_RECONNECT_MIN_MS;
    this.handlers.reset();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.connect();
    }, this.retryDelayMs);
    this.retryTimer.unref();
    this.retryDelayMs = Math.min(this.retryDelayMs * 2, LISTEN_RECONNECT_MAX_MS);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }
}

export interface OpenDatabaseOptions {
  /** PostgreSQL server URL; when absent, the embedded database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database (`<dataDir>/pgdata`); `undefined` with no URL = in memory. */
  dataDir?: string | undefined;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
  /**
   * PGlite only: start from this dump (see dumpPgliteSnapshot) instead of an empty cluster, in
   * memory or in a data directory that holds no database yet (`guard restore`; PGlite refuses one
   * that does).
   */
  snapshot?: Blob;
  /**
   * PGlite in a data directory only: when it holds no database yet, these files of a migrated
   * snapshot (fresh-snapshot.ts) are unpacked into it by Node (snapshot-tar.ts) before PGlite
   * opens it; a database already there is opened as it is.
   */
  freshSnapshot?: SnapshotTar;
  /**
   * PGlite only: server settings for this start (`-c name=value` after PGlite's own), e.g. a smaller
   * `shared_buffers` for the thousands of short-lived test databases (server/test/support/harness.ts).
   */
  settings?: Record<string, string>;
}

/**
 * Beside `pgdata` while PGlite creates a cluster there the slow way (its initdb, when there is no
 * snapshot to unpack), which writes into the directory itself. A first start interrupted then
 * (Ctrl-C) leaves the marker, and the next start, under the same lock, removes the half-made
 * directory and creates it again, instead of reporting a damaged database the operator never used.
 * The marker goes as soon as PGlite is ready: before any migration or data reaches the directory.
 */
const CREATING_SUFFIX = ".creating";

/**
 * Whether `dataDir` holds an embedded cluster (a whole one: not one PGlite was interrupted while
 * creating, which the next open replaces).
 */
export function embeddedClusterExists(dataDir: string): boolean {
  const dataPath = path.join(dataDir, "pgdata");
  return fs.existsSync(dataPath) && !fs.existsSync(dataPath + CREATING_SUFFIX);
}

function removeInterruptedCreation(dataPath: string): void {
  const marker = dataPath + CREATING_SUFFIX;
  if (!fs.existsSync(marker)) return;
  fs.rmSync(dataPath, { recursive: true, force: true });
  fs.rmSync(marker, { force: true });
}

function pgliteStartParams(settings: Record<string, string>): string[] {
  const extra = Object.entries(settings).flatMap(([name, value]) => ["-c", `${name}=${value}`]);
  return [...PGlite.defaultStartParams, ...extra];
}

/** Dumps an embedded database to a tarball; undefined for a PostgreSQL server. */
export async function dumpPgliteSnapshot(db: Database): Promise<Blob | undefined> {
  return db instanceof PgliteDatabase ? db.dumpSnapshot() : undefined;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const clientConfig: pg.ClientConfig = {
      connectionString: options.databaseUrl,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? parseInt8
            : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
      },
    };
    const pool = new pg.Pool({ ...clientConfig, max: options.maxConnections ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on("error", () => undefined);
    return new PostgresDatabase(pool, clientConfig);
  }
  let lock: DataDirLock | undefined;
  let dataPath: string | undefined;
  if (options.dataDir) {
    // PGlite is one process's private database: a second opener would corrupt it, so refuse first.
    lock = acquireDataDirLock(options.dataDir);
    dataPath = path.join(options.dataDir, "pgdata");
  }
  try {
    // A directory an older Guard left open to other users is closed before anything is read from
    // it; everything below a 0700 directory is out of other users' reach from then on, so the walk
    // over every file (below) waits until PGlite has started, and is made once per open.
    if (options.dataDir) makeDirectoryPrivate(options.dataDir);
    // Set when PGlite creates the cluster itself (no snapshot to unpack): see CREATING_SUFFIX.
    let creating: string | undefined;
    if (dataPath) {
      // Under the lock: no other process unpacks here, so what an interrupted unpack left goes.
      removeUnpackLeftovers(dataPath);
      removeInterruptedCreation(dataPath);
      if (options.freshSnapshot && !fs.existsSync(dataPath))
        await unpackSnapshotTar(options.freshSnapshot, dataPath);
      if (!fs.existsSync(dataPath)) {
        creating = dataPath + CREATING_SUFFIX;
        fs.writeFileSync(creating, "", { mode: 0o600 });
      }
    }
    // No `parsers`: results are parsed by db/pglite-pipelined.ts with node-postgres's rules.
    // One options object: PGlite reads a second argument only when the first is a directory.
    const db = new PGlite({
      dataDir: dataPath,
      ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
      ...(options.settings ? { startParams: pgliteStartParams(options.settings) } : {}),
    });
    await db.waitReady;
    if (creating) fs.rmSync(creating, { force: true });
    // Starting writes files with loose modes: the cluster unpacked on first start, and the
    // relation cache files rewritten on every start.
    if (options.dataDir) makeTreePrivate(options.dataDir);
    return new PgliteDatabase(db, lock, options.dataDir);
  } catch (error) {
    lock?.release();
    throw error;
  }
}
