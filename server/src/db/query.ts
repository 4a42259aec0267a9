// The typed query layer: Kysely builds statements against the table types generated from the
// migrations (db/schema.ts), and they run through the connection layer (db/database.ts) on
// either engine, inside whatever transaction the caller holds. Kysely only compiles here; it
// never opens a connection of its own, so transactions, prepared statements and the PGlite
// pipeline stay in one place.
//
//   const row = await first(tx, qb.selectFrom("consents").selectAll().where("consent_id", "=", id));
//
// Hand-written SQL (`tx.query(sql, params)`) is kept for the few statements a builder cannot
// express or that a hot path prepares by name; each says why in one line.
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Compilable,
  type InferResult,
} from "kysely";
import type { QueryOptions, Queryable, Row } from "./database.js";
import type { Tables } from "./schema.js";

export { sql } from "kysely";
export type { Tables } from "./schema.js";

/** Builds (compiles) statements; run them with `rows`, `first` or `execute`. */
export const qb = new Kysely<Tables>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

type Result<Q> = Q extends Compilable<infer O> ? (O extends Row ? O : never) : never;

// `options.preparedAs` (QueryOptions) names a hot statement so the database plans it once per
// connection. Only for a statement whose compiled text never varies between calls: no `in` lists,
// no optional clauses, the same columns every time (a name is bound to one text).

/** Every row the statement returns. */
export function rows<Q extends Compilable<Row>>(
  db: Queryable,
  query: Q,
  options?: QueryOptions,
): Promise<Result<Q>[]> {
  const compiled = query.compile();
  return db.query<Result<Q>>(compiled.sql, compiled.parameters, options);
}

/** The first row the statement returns, or undefined. */
export async function first<Q extends Compilable<Row>>(
  db: Queryable,
  query: Q,
  options?: QueryOptions,
): Promise<Result<Q> | undefined> {
  const [row] = await rows(db, query, options);
  return row;
}

/** Runs a statement for its effect (use `rows` to read what a RETURNING clause gives back). */
export async function execute<Q extends Compilable<unknown>>(
  db: Queryable,
  query: Q,
  options?: QueryOptions,
): Promise<void> {
  const compiled = query.compile();
  await db.query(compiled.sql, compiled.parameters, options);
}

export type { InferResult };
