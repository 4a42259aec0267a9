// Reads the contract's OpenAPI description and turns each operation into what Fastify needs:
// method, path, and JSON schemas for params, query, headers, body and every response status.
// Routes are registered by operationId only, so the server cannot drift from the contract.
import { loadOpenApiDocument } from "@guard/contract";
import type { SecurityKind } from "../lib/credentials.js";

/** `$id` under which the contract's components are registered with the validators and serialisers. */
export const CONTRACT_SCHEMA_ID = "guard-contract";

export interface ContractOperation {
  operationId: string;
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI path, `/api/v1/org/{slug}`. */
  path: string;
  /** Fastify path, `/api/v1/org/:slug`. */
  routePath: string;
  /** Alternatives in order; empty means public. */
  security: SecurityKind[];
  /** Legacy `/cm/v1` and `cm/signal` routes declare the `Error` schema for failures. */
  legacyErrorShape: boolean;
  schema: {
    params?: JsonSchema;
    querystring?: JsonSchema;
    headers?: JsonSchema;
    body?: JsonSchema;
    response: Record<string, JsonSchema>;
  };
  /**
   * Statuses whose declared body is not JSON (a CSV export), with its media type: the handler
   * answers them with a stream, which is neither serialised nor checked against a schema.
   */
  streamedResponses: Record<string, string>;
  /** Whether the request body is required. */
  bodyRequired: boolean;
}

export type JsonSchema = Record<string, unknown>;

type OpenApiParameter = { name: string; in: string; required?: boolean; schema?: JsonSchema; $ref?: string };
type OpenApiOperation = {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
  responses: Record<string, { $ref?: string; content?: Record<string, { schema?: JsonSchema }> }>;
};

const METHODS = ["get", "post", "put", "patch", "delete"] as const;

/** Rewrites document-local `#/components/...` references to the registered contract schema. */
export function externaliseRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => externaliseRefs(item)) as T;
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] =
        key === "$ref" && typeof child === "string" && child.startsWith("#/")
          ? `${CONTRACT_SCHEMA_ID}${child}`
          : externaliseRefs(child);
    }
    return out as T;
  }
  return value;
}

function resolveLocal<T>(doc: Record<string, unknown>, ref: string): T {
  let node: unknown = doc;
  for (const part of ref.replace(/^#\//, "").split("/")) node = (node as Record<string, unknown>)[part];
  if (node === undefined) throw new Error(`Unresolvable $ref ${ref} in the contract`);
  return node as T;
}

/** The shared schema holding every component, registered once under CONTRACT_SCHEMA_ID. */
export function contractComponentsSchema(): JsonSchema {
  const doc = loadOpenApiDocument();
  return { $id: CONTRACT_SCHEMA_ID, components: structuredClone(doc.components) };
}

function parametersSchema(params: OpenApiParameter[], location: string): JsonSchema | undefined {
  const selected = params.filter((p) => p.in === location);
  if (selected.length === 0) return undefined;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const p of selected) {
    // HTTP header names are case-insensitive and Node lower-cases them.
    const name = location === "header" ? p.name.toLowerCase() : p.name;
    properties[name] = externaliseRefs(p.schema ?? {});
    if (p.required) required.push(name);
  }
  return { type: "object", properties, required, additionalProperties: true };
}

let operations: Map<string, ContractOperation> | undefined;

/** Every operation of the contract, by operationId. */
export function contractOperations(): Map<string, ContractOperation> {
  if (operations) return operations;
  const doc = loadOpenApiDocument();
  const paths = doc.paths as Record<string, Record<string, OpenApiOperation>>;
  operations = new Map();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const params = (op.parameters ?? []).map((p) =>
        p.$ref ? resolveLocal<OpenApiParameter>(doc, p.$ref) : p,
      );
      const response: Record<string, JsonSchema> = {};
      const streamedResponses: Record<string, string> = {};
      let legacyErrorShape = false;
      for (const [status, declared] of Object.entries(op.responses)) {
        const resolved = declared.$ref ? resolveLocal<typeof declared>(doc, declared.$ref) : declared;
        const schema = resolved.content?.["application/json"]?.schema;
        if (schema) response[status] = externaliseRefs(schema);
        const otherMediaType = Object.keys(resolved.content ?? {}).find((m) => m !== "application/json");
        if (!schema && otherMediaType) streamedResponses[status] = otherMediaType;
        if (status.startsWith("4") && JSON.stringify(schema ?? {}).includes('/schemas/Error"'))
          legacyErrorShape = true;
      }
      const security = (op.security ?? []).flatMap((alt) => Object.keys(alt)) as SecurityKind[];
      const bodySchema = op.requestBody?.content?.["application/json"]?.schema;
      const schema: ContractOperation["schema"] = { response };
      const paramsSchema = parametersSchema(params, "path");
      const querySchema = parametersSchema(params, "query");
      const headerSchema = parametersSchema(params, "header");
      if (paramsSchema) schema.params = paramsSchema;
      if (querySchema) schema.querystring = querySchema;
      if (headerSchema) schema.headers = headerSchema;
      if (bodySchema) schema.body = externaliseRefs(bodySchema);
      operations.set(op.operationId, {
        operationId: op.operationId,
        method: method.toUpperCase() as ContractOperation["method"],
        path,
        routePath: path.replace(/\{([^}]+)\}/g, ":$1"),
        security,
        legacyErrorShape,
        schema,
        streamedResponses,
        bodyRequired: op.requestBody?.required === true,
      });
    }
  }
  return operations;
}

export function contractOperation(operationId: string): ContractOperation {
  const op = contractOperations().get(operationId);
  if (!op) throw new Error(`operationId ${operationId} is not in contract/openapi/v1.yaml`);
  return op;
}

/**
 * The OpenAPI document this server serves: the contract, limited to the operations it implements.
 * Operations of later issues stay in the contract file but are not advertised until they work.
 */
export function servedOpenApiDocument(implemented: ReadonlySet<string>): Record<string, unknown> {
  const doc = structuredClone(loadOpenApiDocument());
  const paths = doc.paths as Record<string, Record<string, unknown>>;
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const op = item[method] as OpenApiOperation | undefined;
      if (op && !implemented.has(op.operationId)) delete item[method];
    }
    if (!METHODS.some((m) => item[m])) delete paths[path];
  }
  return doc;
}
