// Assertions on the one error shape every non-2xx answer has: `{code, error, requestId, field?}`,
// the catalog status for the code, and `requestId` equal to the `x-request-id` header. The harness's
// response checker covers success bodies; this covers the error path.
import assert from "node:assert/strict";
import { statusForCode, type ApiErrorCode } from "@guard/contract";
import type { LightMyRequestResponse } from "fastify";

export interface ApiErrorBody {
  code: ApiErrorCode;
  error: string;
  requestId: string;
  field?: string;
}

export interface ExpectedApiError {
  /** The offending field of a VALIDATION_ERROR; `null` asserts no field is sent. */
  field?: string | null;
  /** Exact message, or a pattern it must match. */
  message?: string | RegExp;
}

export function assertApiError(
  res: LightMyRequestResponse,
  status: number,
  code: ApiErrorCode,
  expected: ExpectedApiError = {},
): ApiErrorBody {
  assert.equal(res.statusCode, status, `expected ${status} ${code}, got ${res.statusCode}: ${res.body}`);
  assert.equal(statusForCode(code), status, `the catalog maps ${code} to ${statusForCode(code)}`);
  assert.match(String(res.headers["content-type"]), /^application\/json\b/);
  const body = res.json() as ApiErrorBody & Record<string, unknown>;
  assert.equal(body.code, code, `code of ${res.body}`);
  assert.equal(typeof body.error, "string");
  assert.ok(body.error.length > 0, "the message is not empty");
  const requestId = res.headers["x-request-id"];
  assert.equal(typeof requestId, "string", "x-request-id header is present");
  assert.ok(String(requestId).length > 0);
  assert.equal(body.requestId, requestId, "requestId in the body equals the x-request-id header");
  // Only the documented members; Fastify's own `statusCode`/`message` must never leak through.
  for (const key of Object.keys(body)) assert.ok(["code", "error", "requestId", "field"].includes(key), key);
  if (expected.field === null) assert.equal(body.field, undefined, "no field");
  else if (expected.field !== undefined) assert.equal(body.field, expected.field, `field of ${res.body}`);
  if (typeof expected.message === "string") assert.equal(body.error, expected.message);
  else if (expected.message) assert.match(body.error, expected.message);
  return body;
}
