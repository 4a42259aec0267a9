// Request deadlines (issue 22 item 7): a request whose headers or body never finish is answered
// 400 VALIDATION_ERROR in the catalog shape and its connection closed, instead of staying open indefinitely; an idle
// keep-alive connection is closed too. Short deadlines here; the defaults are in config.ts.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { startTestApp, type TestApp } from "../support/harness.js";
import { listenOnLoopback, rawExchange, type RawResponse } from "../support/raw-http.js";

const HEADERS_TIMEOUT_MS = 400;
const REQUEST_TIMEOUT_MS = 800;
const KEEP_ALIVE_TIMEOUT_MS = 300;
// Node checks deadlines on an interval (a quarter of the shorter one), so allow for that and a
// loaded test machine; what matters is that the connection does not stay open.
const SLACK_MS = 4000;

function assertTimedOut(res: RawResponse, deadlineMs: number): void {
  const context = `${res.status} ${res.body} after ${res.elapsedMs} ms`;
  assert.ok(res.closed, `the connection is closed (${context})`);
  assert.ok(res.elapsedMs >= deadlineMs - 50, `not before the deadline (${context})`);
  assert.ok(res.elapsedMs <= deadlineMs + SLACK_MS, `soon after the deadline (${context})`);
  assert.equal(res.status, 400, context);
  const body = JSON.parse(res.body) as Record<string, unknown>;
  assert.equal(body.code, "VALIDATION_ERROR");
  assert.match(String(body.error), /did not arrive in time/);
  assert.equal(body.requestId, res.headers["x-request-id"]);
}

describe("request deadlines", () => {
  let t: TestApp;
  let port: number;
  before(async () => {
    t = await startTestApp({
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
      connectionTimeoutMs: 10_000,
    });
    port = await listenOnLoopback(t.app);
  });
  after(() => t.close());

  const signIn = (length: number) =>
    `POST /api/v1/staff/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

  test("a body that never finishes: 400 and closed at the request deadline", async () => {
    const res = await rawExchange(
      port,
      (socket) => socket.write(`${signIn(100)}{"organizationSlug":`),
      10_000,
    );
    assertTimedOut(res, REQUEST_TIMEOUT_MS);
  });

  test("a body trickling in, a byte at a time, is cut off at the same deadline", async () => {
    const res = await rawExchange(
      port,
      (socket) => {
        socket.write(signIn(10_000));
        const drip = setInterval(() => (socket.writable ? socket.write(" ") : clearInterval(drip)), 50);
        socket.on("close", () => clearInterval(drip));
      },
      10_000,
    );
    assertTimedOut(res, REQUEST_TIMEOUT_MS);
  });

  test("headers that never finish: 400 and closed at the headers deadline", async () => {
    const res = await rawExchange(
      port,
      (socket) => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n"),
      10_000,
    );
    assertTimedOut(res, HEADERS_TIMEOUT_MS);
  });

  test("an idle keep-alive connection is closed after the keep-alive timeout", async () => {
    const res = await rawExchange(
      port,
      (socket) => socket.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
      10_000,
    );
    assert.equal(res.status, 200, res.body);
    assert.ok(res.closed, "closed by the server");
    // Node keeps the socket a second beyond the advertised timeout, against a client's racing request.
    assert.ok(res.elapsedMs >= KEEP_ALIVE_TIMEOUT_MS, `closed after ${res.elapsedMs} ms`);
    assert.ok(res.elapsedMs <= KEEP_ALIVE_TIMEOUT_MS + 1000 + SLACK_MS, `closed after ${res.elapsedMs} ms`);
  });

  test("a request that arrives in time is answered as usual", async () => {
    const body = JSON.stringify({ organizationSlug: "no-such-org", email: "a@b.example", password: "x" });
    const res = await rawExchange(port, (socket) => {
      socket.write(signIn(Buffer.byteLength(body)).replace("\r\n\r\n", "\r\nConnection: close\r\n\r\n"));
      setTimeout(() => socket.write(body), REQUEST_TIMEOUT_MS / 4);
    });
    assert.equal(res.status, 401, res.body);
  });
});

describe("deadline settings", () => {
  const base = {
    GUARD_TOKEN_SECRET: "test-token-secret-test-token-secret-0123456789",
    GUARD_AUDIT_HASH_KEYS: "1:test-audit-secret-test-audit-secret-0123456789",
    GUARD_SECRETS_KEY: "test-secrets-key-test-secrets-key-0123456789",
  };

  test("defaults, and each read from its variable", () => {
    const defaults = loadConfig(base);
    assert.deepEqual(
      [
        defaults.headersTimeoutMs,
        defaults.requestTimeoutMs,
        defaults.keepAliveTimeoutMs,
        defaults.connectionTimeoutMs,
      ],
      [20_000, 60_000, 72_000, 120_000],
    );
    const set = loadConfig({
      ...base,
      GUARD_HEADERS_TIMEOUT_MS: "5000",
      GUARD_REQUEST_TIMEOUT_MS: "15000",
      GUARD_KEEP_ALIVE_TIMEOUT_MS: "65000",
      GUARD_CONNECTION_TIMEOUT_MS: "30000",
    });
    assert.deepEqual(
      [set.headersTimeoutMs, set.requestTimeoutMs, set.keepAliveTimeoutMs, set.connectionTimeoutMs],
      [5000, 15000, 65000, 30000],
    );
  });

  test("refused: out of range, not a number, or headers allowed longer than the whole request", () => {
    for (const env of [
      { GUARD_REQUEST_TIMEOUT_MS: "0" },
      { GUARD_HEADERS_TIMEOUT_MS: "soon" },
      { GUARD_KEEP_ALIVE_TIMEOUT_MS: "999999999" },
      { GUARD_HEADERS_TIMEOUT_MS: "30000", GUARD_REQUEST_TIMEOUT_MS: "20000" },
    ]) {
      assert.throws(() => loadConfig({ ...base, ...env }), ConfigError, JSON.stringify(env));
    }
  });
});
