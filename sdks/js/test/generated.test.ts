// The TypeScript types are generated from contract/openapi/v1.yaml and contract/errors.json; this
// fails when a committed file is stale (run `npm run generate -w sdks/js`).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import {
  CATALOG_FILE,
  CATALOG_URL,
  generateContractTypes,
  generateErrorCatalog,
  GENERATED_FILE,
} from "../scripts/generate-types.js";
import { codeForStatus } from "../src/index.js";

test("src/generated/contract.ts matches the contract", async () => {
  const fresh = await generateContractTypes();
  assert.ok(
    fresh === fs.readFileSync(GENERATED_FILE, "utf8"),
    "src/generated/contract.ts is stale: run `npm run generate -w sdks/js` and commit the result",
  );
});

test("src/generated/error-catalog.ts matches contract/errors.json", () => {
  assert.ok(
    generateErrorCatalog() === fs.readFileSync(CATALOG_FILE, "utf8"),
    "src/generated/error-catalog.ts is stale: run `npm run generate -w sdks/js`",
  );
});

test("every status-derived code is an /api/v1 catalog code, agreeing with the catalog's status", () => {
  const catalog = JSON.parse(fs.readFileSync(CATALOG_URL, "utf8")) as {
    codes: { code: string; status: number; surface: string }[];
  };
  const api = new Map(catalog.codes.filter((e) => e.surface === "api").map((e) => [e.code, e.status]));
  for (const status of [400, 401, 403, 404, 409, 413, 415, 418, 426, 429, 500, 502, 503, 504]) {
    assert.ok(
      api.has(codeForStatus(status)),
      `${status} maps to ${codeForStatus(status)}, not an /api/v1 code`,
    );
  }
  for (const code of [
    "UNAUTHORIZED",
    "FORBIDDEN",
    "NOT_FOUND",
    "PAYLOAD_TOO_LARGE",
    "UNSUPPORTED_MEDIA_TYPE",
  ]) {
    assert.equal(codeForStatus(api.get(code)!), code);
  }
});
