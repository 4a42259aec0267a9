// Route handlers are typed from contract/openapi/v1.yaml through src/generated/contract.ts; this
// fails when the contract changed and the types were not regenerated
// (npm run generate:contract-types -w server).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { SERVER_CONTRACT_TYPES, serverContractTypes } from "../../scripts/generate-contract-types.js";

test("src/generated/contract.ts matches the contract", async () => {
  assert.equal(
    fs.readFileSync(SERVER_CONTRACT_TYPES, "utf8"),
    await serverContractTypes(),
    "src/generated/contract.ts is stale: run `npm run generate:contract-types -w server`",
  );
});
