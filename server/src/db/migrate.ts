// Migrations: numbered SQL files in ./migrations, applied in order, each recorded in
// schema_migrations. The same files run on PGlite and on a PostgreSQL server. All pending files are
// applied in one transaction under an advisory lock, so instances starting together apply them once.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Database, Queryable } from "./database.js";

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "migrations");
// An arbitrary constant naming "Guard's migration lock" for pg_advisory_xact_lock.
const MIGRATION_LOCK_ID = 7_155_052_001;

export interface Migration {
  id: string;
  sql: string;
}

// Before the first release, migrations that created objects a later one dropped were folded, so
// that each object is created once, in its final form: 0040_gate_decisions replaces these five and
// took the decision log's first table out of 0003_consents. A database that applied all five has
// exactly 0040_gate_decisions's schema, so that is recorded for it too (the old ids stay, so a
// Guard from before the fold still finds itself up to date); one that applied 0003_consents and
// only some of them holds a schema no shipped migration leads on from, and is refused.
const FOLDED_INTO = "0040_gate_decisions";
const FOLDED = [
  "0040_gate_decisions_time_order",
  "0041_gate_record_decisions",
  "0042_gate_decisions_by_consent",
  "0043_gate_statement_prepared",
  "0044_gate_decision_groups",
];

/** A database this Guard cannot migrate; the message says why and what to do. */
export class MigrationError extends Error {
  override name = "MigrationError";
}

let migrations: Migration[] | undefined;

export function listMigrations(): Migration[] {
  migrations ??= fs
    .readdirSync(MIGRATIONS_DIR)
    .filter((name) => /^\d{4}_[a-z0-9_]+\.sql$/.test(name))
    .sort()
    .map((name) => ({
      id: name.replace(/\.sql$/, ""),
      sql: fs.readFileSync(path.join(MIGRATIONS_DIR, name), "utf8"),
    }));
  return migrations;
}

/** Applies pending migrations; returns the ids it applied (empty when up to date). */
export interface MigrateOptions {
  /** Told the pending migrations before they are applied (only when there are some). */
  onPending?: (migrationIds: readonly string[]) => void;
}

export async function migrate(
  db: Database,
  now: number = Date.now(),
  options: MigrateOptions = {},
): Promise<string[]> {
  // Every start after the first finds the schema up to date: two plain reads then, instead of the
  // transaction and lock below, whose statements are a cold catalogue's first work on the embedded
  // database (bench/README.md, "Start-up"). Applied migrations are never undone, so what the reads
  // see needs no lock.
  if (await isUpToDate(db)) return [];
  return db.transaction(async (tx) => {
    await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_ID})`);
    // schema_migrations is the one table without organization_id: it describes the schema itself.
    await tx.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (migration_id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)",
    );
    const applied = new Set(
      (await tx.query<{ migration_id: string }>("SELECT migration_id FROM schema_migrations")).map(
        (r) => r.migration_id,
      ),
    );
    await recordFoldedMigrations(tx, applied);
    const pending = listMigrations().filter((m) => !applied.has(m.id));
    if (pending.length > 0) options.onPending?.(pending.map((m) => m.id));
    for (const migration of pending) {
      for (const statement of splitStatements(migration.sql)) await tx.query(statement);
      await tx.query("INSERT INTO schema_migrations (migration_id, applied_at) VALUES ($1, $2)", [
        migration.id,
        now,
      ]);
    }
    return pending.map((m) => m.id);
  });
}

/** Records FOLDED_INTO for a database that applied everything it replaces; refuses a partial one. */
async function recordFoldedMigrations(tx: Queryable, applied: Set<string>): Promise<void> {
  if (applied.has(FOLDED_INTO) || !applied.has("0003_consents")) return;
  const missing = FOLDED.filter((id) => !applied.has(id));
  if (missing.length > 0) {
    throw new MigrationError(
      `This database was created by a pre-release Guard whose migrations have since been folded ` +
        `together (it applied 0003_consents but not ${missing.join(", ")}), so it cannot be migrated. Recreate it: move the ` +
        `data directory aside (GUARD_DATA_DIR or --data-dir, default ./.guard-data), or drop and ` +
        `recreate the PostgreSQL database named by DATABASE_URL, then start Guard again.`,
    );
  }
  await tx.query(
    `INSERT INTO schema_migrations (migration_id, applied_at)
     SELECT $1, max(applied_at) FROM schema_migrations WHERE migration_id = ANY($2::text[])`,
    [FOLDED_INTO, FOLDED],
  );
  applied.add(FOLDED_INTO);
}

/** The ids of the migrations applied to this database, in order; none before the first migrate. */
export async function appliedMigrationIds(db: Database): Promise<string[]> {
  const [table] = await db.query<{ name: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS name",
  );
  if (!table?.name) return [];
  const rows = await db.query<{ migration_id: string }>(
    "SELECT migration_id FROM schema_migrations ORDER BY migration_id",
  );
  return rows.map((r) => r.migration_id);
}

/** True when schema_migrations exists and records every known migration. */
async function isUpToDate(db: Database): Promise<boolean> {
  const [table] = await db.query<{ name: string | null }>(
    "SELECT to_regclass('schema_migrations')::text AS name",
  );
  return table?.name ? isMigrated(db) : false;
}

/** True when every known migration has been applied (readiness). */
export async function isMigrated(db: Database): Promise<boolean> {
  const rows = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM schema_migrations WHERE migration_id = ANY($1::text[])",
    [listMigrations().map((m) => m.id)],
  );
  return rows[0]?.n === listMigrations().length;
}

/**
 * Splits a migration file into statements on `;` at line ends (extended-protocol queries take one
 * statement each). Inside a dollar-quoted body (`$$ … $$`, `$body$ … $body$`, as in a PL/pgSQL
 * function) a `;` ends nothing. Whole-line `--` comments are dropped; a trailing `--` comment is
 * ignored when looking for dollar quotes.
 */
export function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let current: string[] = [];
  let dollarTag: string | undefined;
  for (const line of sql.split("\n")) {
    if (dollarTag === undefined && line.trim().startsWith("--")) continue;
    current.push(line);
    const code = dollarTag === undefined ? line.replace(/--.*$/, "") : line;
    for (const [tag] of code.matchAll(/\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/g)) {
      if (dollarTag === undefined) dollarTag = tag;
      else if (tag === dollarTag) dollarTag = undefined;
    }
    if (dollarTag === undefined && /;\s*(--.*)?$/.test(line)) {
      statements.push(
        current
          .join("\n")
          .replace(/;\s*(--.*)?$/, "")
          .trim(),
      );
      current = [];
    }
  }
  statements.push(current.join("\n").trim());
  return statements.filter(Boolean);
}
