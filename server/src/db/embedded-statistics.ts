// Planner statistics for the embedded database. A PostgreSQL server's autovacuum ANALYZEs a table
// once enough of it has changed since its last ANALYZE; PGlite runs no autovacuum, so without this
// its tables are never analyzed and the planner guesses from page counts alone. Past some size
// those guesses pick the wrong index (a guest's consent found by filtering every guest consent of
// the organisation: bench/README.md, "Embedded database statistics"). This job applies
// autovacuum's analyze rule on the embedded database's own timer (db/database.ts).
import type { Queryable } from "./database.js";

/**
 * Autovacuum's defaults (`autovacuum_analyze_threshold`, `autovacuum_analyze_scale_factor`): a
 * table is analyzed once more than 50 rows plus 10 % of its rows at the last ANALYZE have been
 * inserted, updated or deleted since.
 */
export const ANALYZE_THRESHOLD_ROWS = 50;
export const ANALYZE_SCALE_FACTOR = 0.1;

/**
 * ANALYZEs every table changed past the threshold since its last ANALYZE, most changed first, and
 * returns their names. An ANALYZE also invalidates the cached plans of statements on the table,
 * so prepared statements are planned again against the new statistics, as on a server.
 */
export async function analyzeChangedTables(db: Queryable): Promise<string[]> {
  // Counters reach pg_stat_user_tables when a session flushes them, at most once a second and
  // otherwise when it goes idle long enough; PGlite's one session is seldom idle that long.
  await db.query("SELECT pg_stat_force_next_flush()");
  // reltuples is -1 until the first ANALYZE (or VACUUM): such a table counts as empty, so it is
  // analyzed once 50 rows have changed, as autovacuum would.
  const due = await db.query<{ table_name: string }>(
    `SELECT format('%I.%I', s.schemaname, s.relname) AS table_name
       FROM pg_stat_user_tables s
       JOIN pg_class c ON c.oid = s.relid
      WHERE s.n_mod_since_analyze > $1 + $2 * greatest(c.reltuples, 0)
      ORDER BY s.n_mod_since_analyze DESC`,
    [ANALYZE_THRESHOLD_ROWS, ANALYZE_SCALE_FACTOR],
  );
  const analyzed: string[] = [];
  for (const { table_name: table } of due) {
    // One table per statement, so the requests waiting on the database run between them.
    await db.query(`ANALYZE ${table}`);
    analyzed.push(table);
  }
  return analyzed;
}
