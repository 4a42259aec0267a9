// One query interface over both ways of running PostgreSQL: embedded PGlite (in-process, persisted
// to a data directory) and a PostgreSQL server through `pg`. Same SQL, same migrations.
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { acquireDataDirLock, type DataDirLock } from "./data-dir-lock.js";

export type Row = Record<string, unknown>;

export interface Queryable {
  /** Runs one parameterised statement ($1, $2, …) and returns its rows. */
  query<T extends Row = Row>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

// Epoch-millisecond times are BIGINT columns. They fit a JavaScript number exactly (< 2^53), so
// both drivers parse int8 to number instead of the default string.
const INT8_OID = 20;
const parseInt8 = (value: string): number => Number(value);

class PgliteDatabase implements Database {
  readonly kind = "pglite" as const;
  constructor(
    private readonly db: PGlite,
    private readonly lock: DataDirLock | undefined,
  ) {}

  async query<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await this.db.query<T>(sql, params as unknown[]);
    return result.rows;
  }

  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    return this.db.transaction(async (tx) =>
      work({
        query: async <R extends Row>(sql: string, params: readonly unknown[] = []) =>
          (await tx.query<R>(sql, params as unknown[])).rows,
      }),
    );
  }

  /** A tarball of the whole database (PGlite only): tests start from a migrated snapshot. */
  async dumpSnapshot(): Promise<Blob> {
    return this.db.dumpDataDir("none");
  }

  async close(): Promise<void> {
    try {
      if (!this.db.closed) await this.db.close();
    } finally {
      this.lock?.release();
    }
  }
}

class PostgresDatabase implements Database {
  readonly kind = "postgres" as const;
  constructor(private readonly pool: pg.Pool) {}

  async query<T extends Row>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    const result = await this.pool.query<T>(sql, params as unknown[]);
    return result.rows;
  }

  async transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    try {
      await client.query("BEGIN");
      const result = await work({
        query: async <R extends Row>(sql: string, params: readonly unknown[] = []) =>
          (await client.query<R>(sql, params as unknown[])).rows,
      });
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

export interface OpenDatabaseOptions {
  /** PostgreSQL server URL; when absent, the embedded database is used. */
  databaseUrl?: string | undefined;
  /** Directory of the embedded database (`<dataDir>/pgdata`); `undefined` with no URL = in memory. */
  dataDir?: string | undefined;
  /** Pool size for a PostgreSQL server. */
  maxConnections?: number;
  /** In-memory PGlite only: start from this dump (see dumpPgliteSnapshot) instead of an empty cluster. */
  snapshot?: Blob;
}

/** Dumps an embedded database to a tarball; undefined for a PostgreSQL server. */
export async function dumpPgliteSnapshot(db: Database): Promise<Blob | undefined> {
  return db instanceof PgliteDatabase ? db.dumpSnapshot() : undefined;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.maxConnections ?? 10,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? parseInt8
            : pg.types.getTypeParser(oid, format as "text")) as typeof pg.types.getTypeParser,
      },
    });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on("error", () => undefined);
    return new PostgresDatabase(pool);
  }
  let lock: DataDirLock | undefined;
  let dataPath: string | undefined;
  if (options.dataDir) {
    // PGlite is one process's private database: a second opener would corrupt it, so refuse first.
    lock = acquireDataDirLock(options.dataDir);
    dataPath = path.join(options.dataDir, "pgdata");
  }
  try {
    const db = new PGlite(dataPath, {
      parsers: { [INT8_OID]: parseInt8 },
      ...(options.snapshot && !dataPath ? { loadDataDir: options.snapshot } : {}),
    });
    await db.waitReady;
    return new PgliteDatabase(db, lock);
  } catch (error) {
    lock?.release();
    throw error;
  }
}
