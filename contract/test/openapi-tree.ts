// The parsed OpenAPI description (contract/openapi/v1.yaml) and small readers over its JSON tree,
// shared by the contract's test files. Readers assert as they go, so a malformed document fails the
// test that reads it with the path of the bad node.
import assert from "node:assert/strict";
import { loadOpenApiDocument } from "../src/index.js";

const HTTP_METHODS = ["get", "put", "post", "delete", "patch", "options", "head", "trace"];

/** The tags the document declares; every operation carries at least one of them. */
export const TAGS = [
  "public",
  "consent",
  "principal",
  "gate",
  "registers",
  "offline",
  "staff",
  "operator",
  "accounts",
  "system",
];

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function asObject(value: unknown, where: string): JsonObject {
  assert.ok(isObject(value), `${where} is not an object`);
  return value;
}

export function asStrings(value: unknown, where: string): string[] {
  assert.ok(
    Array.isArray(value) && value.every((item) => typeof item === "string"),
    `${where}: not a string[]`,
  );
  return value as string[];
}

export function resolvePointer(doc: JsonObject, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split("/")) {
    const part = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[part];
    if (node === undefined) return undefined;
  }
  return node;
}

/** Follows `$ref` chains to the target object. */
export function deref(doc: JsonObject, value: unknown, where: string): JsonObject {
  let node = asObject(value, where);
  for (let hops = 0; typeof node.$ref === "string"; hops++) {
    assert.ok(hops < 20, `${where}: $ref cycle`);
    node = asObject(resolvePointer(doc, node.$ref), `${where} -> ${node.$ref}`);
  }
  return node;
}

/** Yields every value in a JSON tree with its JSON-pointer-ish path. */
export function* walk(node: unknown, path = "#"): Generator<[string, unknown]> {
  yield [path, node];
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* walk(item, `${path}/${index}`);
  } else if (isObject(node)) {
    for (const [key, item] of Object.entries(node)) yield* walk(item, `${path}/${key}`);
  }
}

export interface Operation {
  readonly method: string;
  readonly path: string;
  readonly id: string;
  readonly op: JsonObject;
  readonly pathItem: JsonObject;
}

function operationsOf(doc: JsonObject): Operation[] {
  const result: Operation[] = [];
  for (const [path, item] of Object.entries(asObject(doc.paths, "paths"))) {
    const pathItem = asObject(item, path);
    for (const method of HTTP_METHODS) {
      if (pathItem[method] === undefined) continue;
      const op = asObject(pathItem[method], `${method} ${path}`);
      result.push({ method, path, op, pathItem, id: String(op.operationId) });
    }
  }
  return result;
}

export function responsesOf(op: Operation): JsonObject {
  return asObject(op.op.responses, `${op.id}.responses`);
}

export function errorStatuses(op: Operation): number[] {
  return Object.keys(responsesOf(op))
    .map(Number)
    .filter((status) => status >= 400);
}

export function isLegacyPath(path: string): boolean {
  return path.startsWith("/cm/v1/") || path === "/api/v1/cm/signal";
}

export function typesOf(schema: JsonObject): string[] {
  if (typeof schema.type === "string") return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === "string");
  return [];
}

export function parametersOf(doc: JsonObject, op: Operation): JsonObject[] {
  const all = [...((op.pathItem.parameters as unknown[]) ?? []), ...((op.op.parameters as unknown[]) ?? [])];
  return all.map((p, i) => deref(doc, p, `${op.id}.parameters[${i}]`));
}

export function jsonSchemaOf(doc: JsonObject, holder: unknown, where: string): unknown {
  const content = asObject(deref(doc, holder, where).content, `${where}.content`);
  return asObject(content["application/json"], `${where} application/json`).schema;
}

export const doc = loadOpenApiDocument();
export const operations = operationsOf(doc);
export const schemas = asObject(asObject(doc.components, "components").schemas, "components.schemas");
