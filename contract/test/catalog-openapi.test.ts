// The error catalog and the OpenAPI description agree in both directions: every code the document
// names exists with the status it is declared under, every api code's status is declared somewhere,
// and error bodies use the right schema (the legacy `Error` only on the /cm/v1 routes).
// Run: node --import tsx --test contract/test/catalog-openapi.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { API_ERROR_CODES, ERROR_CATALOG, isErrorCode, statusForCode } from "../src/index.js";
import {
  asObject,
  asStrings,
  deref,
  doc,
  errorStatuses,
  isLegacyPath,
  jsonSchemaOf,
  operations,
  responsesOf,
  schemas,
  walk,
} from "./openapi-tree.js";

/**
 * Where a code is documented with a status other than its catalog status, on purpose.
 * Anonymous capture answers ALREADY_CONSENTED with 400, as contract 1.6.0 does.
 */
const STATUS_EXCEPTIONS: ReadonlySet<string> = new Set([
  "giveConsentAnonymous 400 ALREADY_CONSENTED",
  "400 ALREADY_CONSENTED",
]);

const apiEntries = ERROR_CATALOG.filter((entry) => entry.surface === "api");

describe("catalog and OpenAPI agree", () => {
  test("ApiError.code x-guard-codes lists every api code, in catalog order", () => {
    const code = asObject(asObject(asObject(schemas.ApiError, "ApiError").properties, "props").code, "code");
    assert.deepEqual(asStrings(code["x-guard-codes"], "x-guard-codes"), [...API_ERROR_CODES]);
    for (const example of asStrings(code.examples, "examples")) assert.ok(isErrorCode(example), example);
  });

  test("every declared error status maps to an api code with that status", () => {
    const apiStatuses = new Set(apiEntries.map((entry) => entry.status));
    for (const op of operations) {
      for (const status of errorStatuses(op)) {
        assert.ok(apiStatuses.has(status), `${op.id} declares ${status}, which no api code maps to`);
      }
    }
  });

  test("every api code's status is declared by some operation", () => {
    const declared = new Set(operations.flatMap(errorStatuses));
    for (const { code, status } of apiEntries)
      assert.ok(declared.has(status), `${code} (${status}) is never declared`);
  });

  test("error responses name api codes with their own status", () => {
    for (const op of operations) {
      for (const status of errorStatuses(op)) {
        const declared = asObject(responsesOf(op)[String(status)], `${op.id} ${status}`);
        const description = String(
          declared.description ?? deref(doc, declared, `${op.id} ${status}`).description,
        );
        const named = [...description.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)].map((m) => m[1] ?? "");
        assert.ok(named.length > 0, `${op.id} ${status}: description names no catalog code`);
        for (const code of named) {
          assert.ok(isErrorCode(code), `${op.id} ${status}: \`${code}\` is not a catalog code`);
          const entry = ERROR_CATALOG.find((e) => e.code === code);
          assert.equal(entry?.surface, "api", `${op.id} ${status}: ${code} is not an api code`);
          if (!STATUS_EXCEPTIONS.has(`${op.id} ${status} ${code}`)) {
            assert.equal(entry?.status, status, `${op.id} ${status}: ${code} maps to ${entry?.status}`);
          }
        }
      }
    }
  });

  test('"`<status> <CODE>`" mentions anywhere in the document use the catalog status', () => {
    for (const [path, value] of walk(doc)) {
      if (typeof value !== "string") continue;
      for (const [, status, code] of value.matchAll(/`(\d{3}) ([A-Z][A-Z0-9_]+)`/g)) {
        assert.ok(isErrorCode(code), `${path}: ${code} is not a catalog code`);
        if (!STATUS_EXCEPTIONS.has(`${status} ${code}`)) {
          assert.equal(String(statusForCode(code)), status, `${path}: ${code} is not ${status}`);
        }
      }
    }
  });

  test("error bodies: Error on /cm/v1 and /api/v1/cm/signal, ApiError everywhere else", () => {
    for (const op of operations) {
      const expected = isLegacyPath(op.path) ? "#/components/schemas/Error" : "#/components/schemas/ApiError";
      for (const status of errorStatuses(op)) {
        const schema = asObject(
          jsonSchemaOf(doc, responsesOf(op)[String(status)], `${op.id} ${status}`),
          "schema",
        );
        assert.equal(schema.$ref, expected, `${op.id} ${status}`);
      }
    }
  });
});
