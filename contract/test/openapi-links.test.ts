// The OpenAPI `links` of responses: each names an operation of this document, supplies every path
// parameter that operation needs, and reads only values its source declares (a response-body
// field, a path parameter or request-body field of the source request). Stateful fuzzing
// (scripts/fuzz.mjs) follows these links, so a broken one would silently stop testing a chain.
// Run: node --import tsx --test contract/test/openapi-links.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  asObject,
  deref,
  doc,
  isObject,
  jsonSchemaOf,
  operations,
  parametersOf,
  responsesOf,
  type JsonObject,
  type Operation,
} from "./openapi-tree.js";

interface Link {
  where: string;
  source: Operation;
  status: string;
  target: Operation;
  link: JsonObject;
}

function allLinks(): Link[] {
  const byId = new Map(operations.map((op) => [op.id, op]));
  const links: Link[] = [];
  for (const source of operations) {
    for (const [status, holder] of Object.entries(responsesOf(source))) {
      const response = deref(doc, holder, `${source.id}.responses.${status}`);
      if (response.links === undefined) continue;
      for (const [name, value] of Object.entries(asObject(response.links, `${source.id}.${status}.links`))) {
        const where = `${source.id} ${status} links.${name}`;
        const link = asObject(value, where);
        assert.equal(link.operationRef, undefined, `${where}: name the target by operationId`);
        const target = byId.get(String(link.operationId));
        assert.ok(target, `${where}: no operation ${String(link.operationId)}`);
        links.push({ where, source, status, target, link });
      }
    }
  }
  return links;
}

/** Whether `pointer` (`/a/0/b`) can address a value of `schema`, through $ref, allOf and array items. */
function schemaHas(schema: unknown, parts: string[], where: string): boolean {
  const [head, ...rest] = parts;
  if (head === undefined) return true;
  const node = deref(doc, schema, where);
  if (Array.isArray(node.allOf) && node.allOf.some((s) => schemaHas(s, parts, where))) return true;
  if (/^\d+$/.test(head) && node.items !== undefined) return schemaHas(node.items, rest, where);
  const properties = isObject(node.properties) ? node.properties : {};
  return head in properties && schemaHas(properties[head], rest, where);
}

const bodyPointer = (expression: string, prefix: string) =>
  expression.slice(prefix.length).split("/").filter(Boolean);

/** Checks one runtime expression (possibly embedded, `Bearer {$response.body#/x}`) against its source. */
function checkExpression({ where, source, status }: Link, value: unknown): void {
  assert.equal(typeof value, "string", `${where}: expressions are strings`);
  const text = String(value);
  const expressions = text.startsWith("$")
    ? [text]
    : [...text.matchAll(/\{(\$[^}]+)\}/g)].map((m) => m[1] ?? "");
  assert.ok(expressions.length > 0, `${where}: ${text} holds no runtime expression`);
  for (const expression of expressions) {
    if (expression.startsWith("$response.body#/")) {
      const schema = jsonSchemaOf(doc, responsesOf(source)[status], `${where} response`);
      const pointer = bodyPointer(expression, "$response.body#");
      assert.ok(
        schemaHas(schema, pointer, where),
        `${where}: the ${status} body has no ${pointer.join("/")}`,
      );
    } else if (expression.startsWith("$request.path.")) {
      const name = expression.slice("$request.path.".length);
      const declared = parametersOf(doc, source).some((p) => p.in === "path" && p.name === name);
      assert.ok(declared, `${where}: ${source.id} has no path parameter ${name}`);
    } else if (expression.startsWith("$request.body#/")) {
      const schema = jsonSchemaOf(doc, source.op.requestBody, `${where} request`);
      const pointer = bodyPointer(expression, "$request.body#");
      assert.ok(
        schemaHas(schema, pointer, where),
        `${where}: ${source.id}'s body has no ${pointer.join("/")}`,
      );
    } else {
      assert.fail(`${where}: unsupported expression ${expression}`);
    }
  }
}

describe("OpenAPI links", () => {
  const links = allLinks();

  test("the contract declares links", () => {
    assert.ok(links.length > 0);
  });

  test("each link supplies the target's path parameters, and only parameters it has", () => {
    for (const link of links) {
      const { where, target } = link;
      const parameters = asObject(link.link.parameters ?? {}, `${where}.parameters`);
      const targetParameters = parametersOf(doc, target);
      for (const [key, value] of Object.entries(parameters)) {
        checkExpression(link, value);
        const [location, name] = key.includes(".") ? key.split(".", 2) : [undefined, key];
        if (location === "header" && name === "Authorization") {
          // The credential of a bearer-authenticated target (a brokered token), not a parameter.
          const bearer = (target.op.security as JsonObject[]).some((r) => "principalToken" in r);
          assert.ok(bearer, `${where}: ${target.id} takes no principal token`);
          continue;
        }
        const declared = targetParameters.some((p) => p.name === name && (!location || p.in === location));
        assert.ok(declared, `${where}: ${target.id} has no parameter ${key}`);
      }
      for (const p of targetParameters.filter((p) => p.in === "path")) {
        assert.ok(String(p.name) in parameters, `${where}: path parameter ${String(p.name)} not supplied`);
      }
    }
  });

  test("a link's request body names fields of the target's body", () => {
    for (const link of links) {
      if (link.link.requestBody === undefined) continue;
      const { where, target } = link;
      const schema = jsonSchemaOf(doc, target.op.requestBody, `${where} target body`);
      for (const [field, value] of Object.entries(asObject(link.link.requestBody, `${where}.requestBody`))) {
        assert.ok(schemaHas(schema, [field], where), `${where}: ${target.id}'s body has no ${field}`);
        checkExpression(link, value);
      }
    }
  });
});
