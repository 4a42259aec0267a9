// One parameterised statement on PGlite in a single call into the database, the way node-postgres
// talks to a PostgreSQL server: Parse, Bind, Describe, Execute and Sync written together, the
// parameters sent as text with their types left for the server to infer. A hot statement can be
// prepared by name, as on a PostgreSQL server: parsed and planned once for the session, then only
// Bind, Describe, Execute and Sync per call.
//
// Why not PGlite's own `query()`: it makes six separate calls into the WebAssembly database per
// statement (Parse, then Describe to learn the parameter types, then Bind, Describe, Execute,
// Sync); one call is cheaper. And since both engines serialise parameters and parse results with
// the same rules (node-postgres's), a statement behaves the same on either.
//
// PGlite runs on the server's own thread. Handing its statements to a worker thread (these same
// bytes posted to it, its raw answers posted back) saves the server thread less than the extra
// busy thread costs in context switches and cold caches when cores are few, as on a machine that
// also runs the load generator. Figures, and when to measure it again: bench/README.md.
import type { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { serialize } from "pg-protocol";

export type TypeParser = (oid: number) => (text: string) => unknown;

/** A JavaScript value as PostgreSQL text, as node-postgres sends it (null stays null). */
export function toPostgresText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (typeof value === "boolean") return value ? "true" : "false";
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value).toString("hex")}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

/** `{"a","b",NULL}`: every element quoted, so commas, braces and spaces inside stay data. */
function arrayLiteral(values: readonly unknown[]): string {
  const elements = values.map((element) => {
    if (Array.isArray(element)) return arrayLiteral(element);
    const text = toPostgresText(element);
    return text === null ? "NULL" : `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  });
  return `{${elements.join(",")}}`;
}

/** The message sequence for one statement, as one buffer; `prepared`: a statement already parsed. */
function statementMessages(
  sql: string,
  params: readonly unknown[],
  prepared: string | undefined,
): Uint8Array {
  const execution = [
    serialize.bind({ statement: prepared ?? "", values: params.map(toPostgresText) }),
    serialize.describe({ type: "P" }),
    serialize.execute({}),
    serialize.sync(),
  ];
  return Buffer.concat(prepared === undefined ? [serialize.parse({ text: sql }), ...execution] : execution);
}

/**
 * The statements one PGlite session has prepared, by name. A name stands for one SQL text for the
 * session's life (prepared statements are not transactional: a rollback keeps them).
 */
export class PreparedStatements {
  private readonly byName = new Map<string, string>();

  /** Prepares `sql` as `name` unless it already is; call holding PGlite's lock. */
  async ensure(db: PGlite, name: string, sql: string): Promise<void> {
    const known = this.byName.get(name);
    if (known === sql) return;
    if (known !== undefined) throw new Error(`Statement name ${name} is already prepared for other SQL`);
    // Parse on its own, once: if it fails nothing is prepared and the error is the caller's; a
    // Parse sent with the first execution would stay prepared when a later message of that call
    // failed, and every later call would fail on "already exists".
    await db.execProtocol(Buffer.concat([serialize.parse({ name, text: sql }), serialize.sync()]), {
      syncToFs: false,
    });
    this.byName.set(name, sql);
  }
}

interface Field {
  name: string;
  dataTypeID: number;
}

/** How runPipelined runs a statement. */
export interface PipelinedOptions {
  parseType: TypeParser;
  /** The caller holds PGlite's transaction lock already (inside `transaction()`). */
  inTransaction: boolean;
  /** Prepare the statement under this name (once per session) and execute it by name. */
  prepared?: { name: string; statements: PreparedStatements };
}

/** Runs one statement and returns its rows, values parsed by `options.parseType`. */
export async function runPipelined<T>(
  db: PGlite,
  sql: string,
  params: readonly unknown[],
  { parseType, inTransaction, prepared }: PipelinedOptions,
): Promise<T[]> {
  // PGlite's protocol calls take none of its locks: take the ones its own query() takes, so a
  // statement never runs inside another caller's open transaction. `syncToFs` copies an in-memory
  // file system out to browser storage; the two Guard uses (a data directory through NodeFS, which
  // writes files directly, and plain memory) have nothing to copy, so it is skipped.
  const run = () =>
    db.runExclusive(async () => {
      if (prepared) await prepared.statements.ensure(db, prepared.name, sql);
      return db.execProtocol(statementMessages(sql, params, prepared?.name), { syncToFs: false });
    });
  const { messages } = await (inTransaction ? run() : db._runExclusiveTransaction(run));
  let fields: Field[] = [];
  let parsers: ((text: string) => unknown)[] = [];
  const rows: T[] = [];
  for (const message of messages) {
    if (message.name === "rowDescription") {
      fields = (message as unknown as { fields: Field[] }).fields;
      parsers = fields.map((field) => parseType(field.dataTypeID));
    } else if (message.name === "dataRow") {
      const values = (message as unknown as { fields: (string | null)[] }).fields;
      const row: Record<string, unknown> = {};
      fields.forEach((field, index) => {
        const text = values[index];
        row[field.name] = text === null || text === undefined ? null : parsers[index]?.(text);
      });
      rows.push(row as T);
    }
  }
  return rows;
}

/** node-postgres's text parsers, with `overrides` by type oid. */
export function typeParsers(overrides: Record<number, (text: string) => unknown>): TypeParser {
  return (oid) => overrides[oid] ?? pg.types.getTypeParser(oid, "text");
}
