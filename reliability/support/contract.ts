// The operations a running Guard serves, read from its own /api/v1/openapi.json (which lists exactly
// the implemented operations of contract/openapi/v1.yaml), with parameters and request bodies
// resolved, so the matrix tests cover a new route the day it is registered.
import type { LiveServer } from "./live-server.js";

export type Schema = Record<string, unknown>;

export interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required: boolean;
  schema: Schema;
}

export interface Operation {
  operationId: string;
  method: string;
  /** The templated path, e.g. `/api/v1/staff/dsr/{requestId}`. */
  path: string;
  /** Security scheme names, one per alternative; empty when the operation is public. */
  security: string[];
  parameters: Parameter[];
  /** The JSON request body's schema, refs resolved on access through `resolve`. */
  body: Schema | undefined;
  bodyRequired: boolean;
}

export interface ServedContract {
  operations: Operation[];
  /** Follows `$ref`s (one level at a time, until a non-ref schema). */
  resolve(schema: unknown): Schema;
}

const METHODS = ["get", "post", "put", "patch", "delete"];

export async function servedContract(server: Pick<LiveServer, "call">): Promise<ServedContract> {
  const res = await server.call("/api/v1/openapi.json");
  if (res.status !== 200) throw new Error(`openapi.json: ${res.status}`);
  const doc = res.json<{
    paths: Record<string, Record<string, unknown>>;
    security?: Record<string, unknown>[];
  }>();
  const resolve = (schema: unknown): Schema => {
    let current = schema as Schema;
    for (let hops = 0; current && typeof current.$ref === "string"; hops++) {
      if (hops > 20) throw new Error(`$ref loop at ${String(current.$ref)}`);
      const pointer = (current.$ref as string).replace(/^#\//, "").split("/");
      current = pointer.reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, "/").replace(/~0/g, "~")],
        doc,
      ) as Schema;
    }
    return current ?? {};
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as Record<string, unknown> | undefined;
      if (!op?.operationId) continue;
      const parameters = [...shared, ...((op.parameters as unknown[] | undefined) ?? [])].map((p) => {
        const param = resolve(p);
        return {
          name: String(param.name),
          in: param.in as Parameter["in"],
          required: Boolean(param.required),
          schema: resolve(param.schema ?? {}),
        };
      });
      const security = ((op.security ?? doc.security ?? []) as Record<string, unknown>[]).flatMap((s) =>
        Object.keys(s),
      );
      const requestBody = op.requestBody ? resolve(op.requestBody) : undefined;
      const content = requestBody?.content as Record<string, { schema?: unknown }> | undefined;
      const json = content?.["application/json"]?.schema;
      operations.push({
        operationId: String(op.operationId),
        method: method.toUpperCase(),
        path,
        security,
        parameters,
        body: json === undefined ? undefined : resolve(json),
        bodyRequired: Boolean(requestBody?.required),
      });
    }
  }
  return { operations, resolve };
}

/** The path with every `{name}` replaced by `values[name]` (URI-encoded). */
export function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter ${name} of ${path}`);
    return encodeURIComponent(value);
  });
}

/**
 * The top-level properties of a JSON body schema, merged over allOf/oneOf/anyOf branches (enough
 * to find every field a caller can send; nested objects are walked by `stringFields`).
 */
export function bodyProperties(contract: ServedContract, schema: Schema | undefined): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  const walk = (s: Schema, depth: number) => {
    if (depth > 8) return;
    const r = contract.resolve(s);
    for (const key of ["allOf", "oneOf", "anyOf"]) {
      for (const branch of (r[key] as Schema[] | undefined) ?? []) walk(branch, depth + 1);
    }
    for (const [name, prop] of Object.entries((r.properties as Record<string, Schema> | undefined) ?? {})) {
      out[name] ??= contract.resolve(prop);
    }
  };
  if (schema) walk(schema, 0);
  return out;
}
