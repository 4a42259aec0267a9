// Where PostgreSQL's time goes, for the benchmarks' `--statements` flag: a cluster started with
// `STATEMENT_STATS_SETTINGS` preloads pg_stat_statements; `enableStatementStats` creates the
// extension, `resetStatementStats` starts a measurement and `statementStats` reads the statements
// that took most of the database's execution and planning time since, per unit of work (a request,
// a session). The extension costs a little itself, so rates come from runs without it.
import pg from "pg";

/** The server settings (`startThrowawayPostgres({ settings })`) that make the statistics available. */
export const STATEMENT_STATS_SETTINGS = {
  shared_preload_libraries: "pg_stat_statements",
  "pg_stat_statements.track": "all",
};

const STATEMENT_ROWS = 12;

/** Runs `use` on a connection of its own to `url`, closed afterwards. */
export async function withClient(url, use) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

export const enableStatementStats = (url) =>
  withClient(url, (client) => client.query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements"));

export const resetStatementStats = (url) =>
  withClient(url, (client) => client.query("SELECT pg_stat_statements_reset()"));

/**
 * The statements that took most of the database's time since the reset, per `units` (`unit` names
 * them in the columns: "req", "session"): µs, share, calls and rows per call.
 */
export async function statementStats(url, units, unit = "req") {
  return withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT query, calls, rows, total_exec_time + total_plan_time AS total_ms
         FROM pg_stat_statements
        WHERE query NOT LIKE '%pg_stat_statements%'
        ORDER BY total_exec_time + total_plan_time DESC`,
    );
    const totalMs = rows.reduce((sum, r) => sum + Number(r.total_ms), 0);
    return {
      totalMicrosPerUnit: (totalMs * 1000) / units,
      top: rows.slice(0, STATEMENT_ROWS).map((r) => ({
        [`µs/${unit}`]: Number(((Number(r.total_ms) * 1000) / units).toFixed(1)),
        share: `${((100 * Number(r.total_ms)) / totalMs).toFixed(0)}%`,
        [`calls/${unit}`]: Number((Number(r.calls) / units).toFixed(3)),
        "rows/call": Number((Number(r.rows) / Math.max(1, Number(r.calls))).toFixed(1)),
        statement: r.query.replace(/\s+/g, " ").slice(0, 110),
      })),
    };
  });
}
