// src/generated/error-codes.ts is generated from contract/errors.json; this fails when the committed
// copy is stale. And the codes the transport derives from a status alone are the catalog's.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import { CATALOG_URL, CODES_FILE, generateErrorCodes } from "../scripts/generate-error-codes.js";
import { codeForStatus } from "../src/errors.js";

test("src/generated/error-codes.ts matches contract/errors.json", () => {
  assert.ok(
    generateErrorCodes() === fs.readFileSync(CODES_FILE, "utf8"),
    "src/generated/error-codes.ts is stale: run `node --import tsx sdks/typescript-shared/scripts/generate-error-codes.ts`",
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
