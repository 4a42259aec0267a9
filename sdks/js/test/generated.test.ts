// The TypeScript types are generated from contract/openapi/v1.yaml; this fails when the committed
// file is stale (run `npm run generate -w sdks/js`). The error codes' type is checked in
// sdks/typescript-shared/test/generated.test.ts.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { generateContractTypes, GENERATED_FILE } from "../scripts/generate-types.js";

test("src/generated/contract.ts matches the contract", async () => {
  const fresh = await generateContractTypes();
  assert.ok(
    fresh === fs.readFileSync(GENERATED_FILE, "utf8"),
    "src/generated/contract.ts is stale: run `npm run generate -w sdks/js` and commit the result",
  );
});
