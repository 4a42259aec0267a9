// The TypeScript types are generated from contract/openapi/v1.yaml; this fails when the committed
// file is stale (run `npm run generate -w sdks/node`).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import {
  CATALOG_FILE,
  generateContractTypes,
  generateErrorCatalog,
  GENERATED_FILE,
} from "../scripts/generate-types.js";
import { codeForStatus, ERROR_CATALOG } from "../src/index.js";

test("src/generated/contract.ts matches the contract", async () => {
  const fresh = await generateContractTypes();
  const committed = fs.readFileSync(GENERATED_FILE, "utf8");
  assert.ok(
    fresh === committed,
    "src/generated/contract.ts is stale: run `npm run generate -w sdks/node` and commit the result",
  );
});

test("src/generated/error-catalog.ts matches contract/errors.json", () => {
  assert.ok(
    generateErrorCatalog() === fs.readFileSync(CATALOG_FILE, "utf8"),
    "src/generated/error-catalog.ts is stale: run `npm run generate -w sdks/node`",
  );
});

test("every status-derived code is an /api/v1 catalog code", () => {
  const api = new Map<string, number>(
    ERROR_CATALOG.filter((e) => e.surface === "api").map((e) => [e.code, e.status]),
  );
  for (const status of [400, 401, 403, 404, 409, 413, 415, 418, 426, 429, 500, 502, 503, 504]) {
    assert.ok(
      api.has(codeForStatus(status)),
      `${status} maps to ${codeForStatus(status)}, not an /api/v1 code`,
    );
  }
  // Where the catalog gives a code its own status, the derived code agrees with it.
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
