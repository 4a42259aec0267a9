// Every error from any layer is in the catalog shape `{code, error, requestId, field?}` (issue 22
// item 9): what Node's HTTP parser refuses before Fastify sees a request (headers over 16 kB, a
// 100 kB query string, an oversized bearer token, a malformed request line), what Node answers on
// its own (a missing Host, an unknown Expect, CONNECT), and Fastify's framework errors, each sent
// over a real socket as a client would. The status is always the catalog's for the code.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { ApiErrorCode } from "@guard/contract";
import { statusForCode } from "@guard/contract";
import { startTestApp, type TestApp } from "../support/harness.js";
import { listenOnLoopback, rawRequest, type RawResponse } from "../support/raw-http.js";

function assertCatalogError(
  res: RawResponse,
  status: number,
  code: ApiErrorCode,
  expected: { field?: string; message?: RegExp } = {},
): void {
  const context = `${res.status} ${JSON.stringify(res.headers)} ${res.body}`;
  assert.equal(res.status, status, context);
  assert.equal(statusForCode(code), status, `the catalog maps ${code} to ${statusForCode(code)}`);
  assert.match(res.headers["content-type"] ?? "", /^application\/json\b/, context);
  assert.equal(res.headers["x-content-type-options"], "nosniff", context);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(body.code, code, context);
  assert.equal(typeof body.error, "string");
  assert.ok(String(body.error).length > 0);
  assert.match(String(body.requestId), /^req_[A-Za-z0-9]{16}$/, context);
  assert.equal(res.headers["x-request-id"], body.requestId, context);
  for (const key of Object.keys(body)) assert.ok(["code", "error", "requestId", "field"].includes(key), key);
  if (expected.field !== undefined) assert.equal(body.field, expected.field, context);
  if (expected.message) assert.match(String(body.error), expected.message, context);
}

describe("errors from below Guard's handlers", () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({ bodyLimitBytes: 2048 });
    port = await listenOnLoopback(t.app);
  });
  after(() => t.close());

  const send = (bytes: string) => rawRequest(port, bytes);

  test("headers over 16 kB are 413 PAYLOAD_TOO_LARGE: a big header, a 100 kB query, a 20 kB bearer token", async () => {
    const cases = [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`,
      `GET /healthz?q=${"a".repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `GET /api/v1/consent-status HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${"a".repeat(20_000)}\r\n\r\n`,
    ];
    for (const bytes of cases) {
      const res = await send(bytes);
      assertCatalogError(res, 413, "PAYLOAD_TOO_LARGE", { message: /16384 bytes/ });
      assert.ok(res.closed, "the connection is closed");
    }
  });

  test("bytes that are not HTTP are 400 VALIDATION_ERROR, and the connection is closed", async () => {
    const cases: Array<[string, RegExp]> = [
      ["GARBAGE\r\n\r\n", /Malformed HTTP request/],
      ["GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n", /HTTP version/],
      ["GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n", /header/],
      ["GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n", /header/],
      [
        "POST /api/v1/staff/session HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        /Transfer-Encoding/,
      ],
      [
        "POST /api/v1/staff/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        /chunk/,
      ],
      ["PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", /Malformed HTTP request/],
    ];
    for (const [bytes, message] of cases) {
      const res = await send(bytes);
      assertCatalogError(res, 400, "VALIDATION_ERROR", { message });
      assert.ok(res.closed, "the connection is closed");
    }
  });

  test("what Node would answer itself: no Host, an unknown Expect, CONNECT", async () => {
    assertCatalogError(
      await send("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n"),
      400,
      "VALIDATION_ERROR",
      { field: "host" },
    );
    assertCatalogError(
      await send("GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n"),
      400,
      "VALIDATION_ERROR",
      { field: "expect" },
    );
    assertCatalogError(
      await send("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"),
      404,
      "NOT_FOUND",
    );
    // HTTP/1.0 has no Host requirement; 100-continue is honoured.
    const old = await send("GET /healthz HTTP/1.0\r\n\r\n");
    assert.equal(old.status, 200, old.body);
    const continued = await send(
      "POST /api/v1/staff/session HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
    );
    assertCatalogError(continued, 400, "VALIDATION_ERROR", { field: "organizationSlug" });
  });

  test("Fastify's own errors, over a socket: no route, unknown method, bad URL, bad JSON, media type, size", async () => {
    const close = "Host: x\r\nConnection: close\r\n";
    const json = `${close}Content-Type: application/json\r\n`;
    const cases: Array<[string, number, ApiErrorCode]> = [
      [`GET /nope HTTP/1.1\r\n${close}\r\n`, 404, "NOT_FOUND"],
      [`PROPFIND /healthz HTTP/1.1\r\n${close}\r\n`, 404, "NOT_FOUND"],
      [`OPTIONS /healthz HTTP/1.1\r\n${close}\r\n`, 404, "NOT_FOUND"],
      [`GET /api/v1/org/%zz HTTP/1.1\r\n${close}\r\n`, 400, "VALIDATION_ERROR"],
      [`GET /api/v1/notices/ntc_${"a".repeat(300)} HTTP/1.1\r\n${close}\r\n`, 400, "VALIDATION_ERROR"],
      [`POST /api/v1/staff/session HTTP/1.1\r\n${json}Content-Length: 1\r\n\r\n{`, 400, "VALIDATION_ERROR"],
      [
        `POST /api/v1/staff/session HTTP/1.1\r\n${close}Content-Type: text/plain\r\nContent-Length: 1\r\n\r\n{`,
        415,
        "UNSUPPORTED_MEDIA_TYPE",
      ],
      [
        `POST /api/v1/staff/session HTTP/1.1\r\n${json}Content-Length: 99999999\r\n\r\n{`,
        413,
        "PAYLOAD_TOO_LARGE",
      ],
      [
        `POST /api/v1/staff/session HTTP/1.1\r\n${json}Content-Length: 4000\r\n\r\n${"x".repeat(4000)}`,
        413,
        "PAYLOAD_TOO_LARGE",
      ],
    ];
    for (const [bytes, status, code] of cases) assertCatalogError(await send(bytes), status, code);
  });

  test("the server is healthy after all of it", async () => {
    const res = await t.request({ method: "GET", url: "/healthz" });
    assert.equal(res.statusCode, 200);
  });
});
