// The error catalog (errors.json) against what the contract fixes and against the hand-written code
// unions of src/errors.ts: fields, order, statuses, and the version every copy carries.
// Run: node --import tsx --test contract/test/error-catalog.test.ts
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  API_ERROR_CODES,
  CONTRACT_VERSION,
  ERROR_CATALOG,
  ERROR_CATALOG_VERSION,
  ERROR_CODES,
  MCP_ERROR_CODES,
  isErrorCode,
  parseErrorCatalog,
  statusForCode,
} from "../src/index.js";
import { asObject, doc, type JsonObject } from "./openapi-tree.js";

// What the contract fixes (CONTRACT.md and the contract 1.6.0 outline), restated independently here.

/** Contract 1.6.0's /api/v1 codes and statuses, in the catalog's fixed order. */
const CONTRACT_1_6_API_CODES: ReadonlyArray<readonly [string, number]> = [
  ["VALIDATION_ERROR", 400],
  ["NOTICE_NOT_PUBLISHED", 400],
  ["ALREADY_CONSENTED", 409],
  ["NOT_ASSOCIATED_WITH_ORG", 400],
  ["INVALID_STATUS_TRANSITION", 400],
  ["UNAUTHORIZED", 401],
  ["MINOR_TRACKING_BLOCKED", 403],
  ["NOT_FOUND", 404],
  ["SDK_VERSION_UNSUPPORTED", 426],
  ["RATE_LIMITED", 429],
];

/** Contract 1.7.0's additive /api/v1 codes, in order. */
const CONTRACT_1_7_API_CODES: ReadonlyArray<readonly [string, number]> = [
  ["FORBIDDEN", 403],
  ["CONFLICT", 409],
  ["PAYLOAD_TOO_LARGE", 413],
  ["UNSUPPORTED_MEDIA_TYPE", 415],
  ["INTERNAL_ERROR", 500],
  ["UNAVAILABLE", 503],
];

/** The spec's eleven /mcp/v1-only codes, in the spec's order. */
const MCP_ONLY_CODES = [
  "SCOPE_INSUFFICIENT",
  "TOOL_NOT_AVAILABLE",
  "ORG_DISABLED",
  "APPROVAL_REQUIRED",
  "APPROVAL_BACKLOG_FULL",
  "PROPOSAL_EXPIRED",
  "SECOND_REVIEWER_REQUIRED",
  "PROPOSAL_ALREADY_REVIEWED",
  "DATA_VOLUME_EXCEEDED",
  "PLAN_LIMIT_REACHED",
  "AGENT_WRITE_BLOCKED",
];

const rawCatalog = JSON.parse(readFileSync(new URL("../errors.json", import.meta.url), "utf8")) as unknown;
const catalogCodes = asObject(rawCatalog, "errors.json").codes as JsonObject[];
const apiEntries = ERROR_CATALOG.filter((entry) => entry.surface === "api");

describe("error catalog", () => {
  test("versions agree: errors.json, package.json, CONTRACT_VERSION, x-guard-contract-version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as JsonObject;
    assert.equal(ERROR_CATALOG_VERSION, CONTRACT_VERSION);
    assert.equal(pkg.version, CONTRACT_VERSION);
    assert.equal(doc["x-guard-contract-version"], CONTRACT_VERSION);
  });

  test("entries have exactly {code, status, surface, description}", () => {
    for (const entry of catalogCodes) {
      assert.deepEqual(
        Object.keys(entry).sort(),
        ["code", "description", "status", "surface"],
        JSON.stringify(entry),
      );
    }
    assert.deepEqual(parseErrorCatalog(rawCatalog), { version: ERROR_CATALOG_VERSION, codes: ERROR_CATALOG });
  });

  test("codes are unique", () => {
    const codes = ERROR_CATALOG.map((entry) => entry.code);
    assert.equal(new Set(codes).size, codes.length);
  });

  test("statuses are 4xx or 5xx", () => {
    for (const { code, status } of ERROR_CATALOG) {
      assert.ok(Number.isInteger(status) && status >= 400 && status <= 599, `${code}: ${status}`);
    }
  });

  test("fixed order: 1.6.0 api codes, 1.7.0 additions, then the mcp-only codes", () => {
    const expected: Array<{ code: string; status?: number; surface: string }> = [
      ...CONTRACT_1_6_API_CODES.map(([code, status]) => ({ code, status, surface: "api" })),
      ...CONTRACT_1_7_API_CODES.map(([code, status]) => ({ code, status, surface: "api" })),
      ...MCP_ONLY_CODES.map((code) => ({ code, surface: "mcp" })),
    ];
    const actual = ERROR_CATALOG.map(({ code, status, surface }, i) =>
      expected[i]?.status === undefined ? { code, surface } : { code, status, surface },
    );
    assert.deepEqual(actual, expected);
  });

  test("the hand-written unions in src/errors.ts match errors.json", () => {
    assert.deepEqual(
      [...ERROR_CODES],
      ERROR_CATALOG.map((entry) => entry.code),
    );
    assert.deepEqual(
      [...API_ERROR_CODES],
      apiEntries.map((entry) => entry.code),
    );
    assert.deepEqual(
      [...MCP_ERROR_CODES],
      ERROR_CATALOG.filter((entry) => entry.surface === "mcp").map((entry) => entry.code),
    );
  });

  test("statusForCode and isErrorCode read the catalog", () => {
    for (const { code, status } of ERROR_CATALOG) assert.equal(statusForCode(code), status);
    assert.equal(statusForCode("ALREADY_CONSENTED"), 409);
    assert.equal(isErrorCode("NOT_FOUND"), true);
    assert.equal(isErrorCode("NOT_A_CODE"), false);
  });

  test("parseErrorCatalog rejects an unknown code and a 2xx status", () => {
    const entry = { code: "NOT_FOUND", status: 404, surface: "api", description: "x" };
    assert.throws(
      () => parseErrorCatalog({ version: "1", codes: [{ ...entry, code: "NOPE" }] }),
      /unknown code/,
    );
    assert.throws(() => parseErrorCatalog({ version: "1", codes: [{ ...entry, status: 200 }] }), /status/);
  });
});
