// src/api/schema.ts is generated from contract/openapi/v1.yaml; this fails when the committed copy is
// stale (run `npm run generate -w dashboard`).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { generateSchema, GENERATED_FILE } from "../scripts/generate-types.js";

test("src/api/schema.ts matches the contract", async () => {
  const fresh = await generateSchema();
  assert.ok(
    fresh === fs.readFileSync(GENERATED_FILE, "utf8"),
    "src/api/schema.ts is stale: run `npm run generate -w dashboard` and commit the result",
  );
});
