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
