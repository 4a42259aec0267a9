// How every operation is declared: a unique operationId, tags, summary and security; its
// parameters; the error statuses it must document (and the headers that go with 429 and
// Idempotency-Key); and request bodies that are required JSON, bounded, and open to new fields.
// Run: node --import tsx --test contract/test/openapi-operations.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import {
  asObject,
  asStrings,
  deref,
  doc,
  errorStatuses,
  isObject,
  jsonSchemaOf,
  operations,
  parametersOf,
  responsesOf,
  TAGS,
  typesOf,
  type JsonObject,
} from "./openapi-tree.js";

describe("OpenAPI operations", () => {
  test("operationIds are present and unique", () => {
    const ids = operations.map((op) => op.op.operationId);
    for (const [i, id] of ids.entries()) assert.ok(typeof id === "string" && id.length > 0, `op #${i}`);
    assert.equal(new Set(ids).size, ids.length, `duplicate operationIds: ${ids.join(", ")}`);
  });

  test("every operation has tags, a summary and a security list", () => {
    const schemes = Object.keys(asObject(asObject(doc.components, "components").securitySchemes, "schemes"));
    for (const op of operations) {
      const tags = asStrings(op.op.tags, `${op.id}.tags`);
      assert.ok(tags.length > 0 && tags.every((tag) => TAGS.includes(tag)), `${op.id}: tags ${tags.join()}`);
      assert.ok(typeof op.op.summary === "string" && op.op.summary.length > 0, `${op.id}: summary`);
      assert.ok(Array.isArray(op.op.security), `${op.id}: security must be declared ([] for none)`);
      for (const requirement of op.op.security as unknown[]) {
        for (const name of Object.keys(asObject(requirement, `${op.id}.security`))) {
          assert.ok(schemes.includes(name), `${op.id}: unknown scheme ${name}`);
        }
      }
    }
  });

  test("every path parameter is declared, required, and used", () => {
    for (const op of operations) {
      const inTemplate = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const pathParams = parametersOf(doc, op).filter((p) => p.in === "path");
      assert.deepEqual(pathParams.map((p) => p.name).sort(), inTemplate, op.id);
      for (const p of pathParams)
        assert.equal(p.required, true, `${op.id}: ${String(p.name)} must be required`);
    }
  });

  test("id parameters use the Id schema", () => {
    const idNames = [
      "orgId",
      "noticeId",
      "consentId",
      "requestId",
      "grievanceId",
      "apiKeyId",
      "id",
      "organizationId",
    ];
    for (const op of operations) {
      for (const p of parametersOf(doc, op)) {
        if (!idNames.includes(String(p.name))) continue;
        assert.equal(
          asObject(p.schema, "schema").$ref,
          "#/components/schemas/Id",
          `${op.id}: ${String(p.name)}`,
        );
      }
    }
  });

  test("every operation declares 400, 404 and 500; writes declare 413 and 415", () => {
    for (const op of operations) {
      const statuses = errorStatuses(op);
      for (const status of [400, 404, 500]) assert.ok(statuses.includes(status), `${op.id}: no ${status}`);
      if (op.op.requestBody !== undefined || op.method !== "get") {
        for (const status of [413, 415]) assert.ok(statuses.includes(status), `${op.id}: no ${status}`);
      }
    }
  });

  test("authenticated operations declare 401; rate-limited ones 429 with Retry-After", () => {
    for (const op of operations) {
      const statuses = errorStatuses(op);
      if ((op.op.security as unknown[]).length > 0) assert.ok(statuses.includes(401), `${op.id}: no 401`);
      if (statuses.includes(429)) {
        const headers = asObject(deref(doc, responsesOf(op)["429"], op.id).headers, `${op.id} 429 headers`);
        assert.ok(headers["Retry-After"] !== undefined, `${op.id}: 429 without Retry-After`);
      }
    }
    for (const id of [
      "giveConsentAnonymous",
      "createOfflineConsentLink",
      "syncOfflineCaptures",
      "createPosConsentRequest",
      "recordIvrConsentArtifact",
    ]) {
      const op = operations.find((candidate) => candidate.id === id);
      assert.ok(op && errorStatuses(op).includes(429), `${id}: no 429`);
    }
  });

  test("Idempotency-Key routes declare 409 and document Idempotent-Replayed", () => {
    const mustTakeKey = ["giveConsentAnonymous", "createDsrRequest", "createGrievance"];
    for (const op of operations) {
      const takesKey = parametersOf(doc, op).some((p) => p.name === "Idempotency-Key" && p.in === "header");
      if (mustTakeKey.includes(op.id)) assert.ok(takesKey, `${op.id}: no Idempotency-Key`);
      if (!takesKey) continue;
      assert.ok(errorStatuses(op).includes(409), `${op.id}: no 409`);
      const success = Object.keys(responsesOf(op)).find((status) => status.startsWith("2")) ?? "";
      const headers = asObject(
        deref(doc, responsesOf(op)[success], op.id).headers,
        `${op.id} ${success} headers`,
      );
      assert.ok(headers["Idempotent-Replayed"] !== undefined, `${op.id}: no Idempotent-Replayed header`);
    }
  });

  test("request bodies are required JSON", () => {
    for (const op of operations) {
      if (op.op.requestBody === undefined) continue;
      const body = deref(doc, op.op.requestBody, `${op.id}.requestBody`);
      assert.equal(body.required, true, `${op.id}: requestBody.required`);
      assert.deepEqual(Object.keys(asObject(body.content, `${op.id} content`)), ["application/json"], op.id);
    }
  });

  test("request strings and arrays are bounded; request objects stay open", () => {
    const seen = new Set<JsonObject>();
    const check = (node: unknown, where: string): void => {
      if (!isObject(node)) return;
      const schema = deref(doc, node, where);
      if (seen.has(schema) && node.$ref !== undefined) return;
      seen.add(schema);
      const types = typesOf(schema);
      const enumerated = schema.enum !== undefined || schema.const !== undefined;
      if (types.includes("string") && !enumerated) {
        assert.ok(Number(schema.minLength) >= 1, `${where}: string without minLength >= 1`);
        assert.ok(typeof schema.maxLength === "number", `${where}: string without maxLength`);
      }
      if (types.includes("array")) {
        assert.ok(Number(schema.minItems) >= 1, `${where}: array without minItems >= 1`);
        assert.ok(typeof schema.maxItems === "number", `${where}: array without maxItems`);
      }
      assert.notEqual(schema.additionalProperties, false, `${where}: request objects must stay open`);
      for (const [name, property] of Object.entries(isObject(schema.properties) ? schema.properties : {})) {
        check(property, `${where}.${name}`);
      }
      check(schema.items, `${where}[]`);
      for (const key of ["anyOf", "oneOf", "allOf"]) {
        if (Array.isArray(schema[key]))
          (schema[key] as unknown[]).forEach((s, i) => check(s, `${where}.${key}[${i}]`));
      }
    };
    for (const op of operations) {
      if (op.op.requestBody !== undefined)
        check(jsonSchemaOf(doc, op.op.requestBody, op.id), `${op.id} body`);
      for (const p of parametersOf(doc, op)) check(p.schema, `${op.id} ${String(p.in)} ${String(p.name)}`);
    }
  });
});
