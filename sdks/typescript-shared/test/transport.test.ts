// One call's transport (src/transport.ts) against a scripted fetch: which failures are retried and
// how long it waits (with a recording sleeper: no real waits), timeouts, aborts, and how answers
// become errors. Both clients hand their calls to it; their own tests check what they put in a call
// (headers, keys, per-request options) and the conformance scenarios run both against a live server.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GuardAbortError, GuardApiError, GuardConnectionError, GuardTimeoutError } from "../src/errors.js";
import { sendWithRetries, type Call, type Method, type Sleeper } from "../src/transport.js";
import { connectionRefused, fakeFetch, recordingSleep, rejectsWith, type Scripted } from "./support.js";

const URL_A = "https://guard.example.com/api/v1/org/a";

function setup(script: Scripted[] = [], sleeper?: Sleeper) {
  const { fetch, requests } = fakeFetch(script);
  const { sleep, delays } = recordingSleep();
  const send = <T = unknown>(call: Partial<Call> = {}) =>
    sendWithRetries<T>(
      {
        url: URL_A,
        method: "GET",
        headers: new Headers(),
        json: undefined,
        naturallyIdempotent: false,
        timeoutMs: 30_000,
        maxRetries: 2,
        signal: undefined,
        ...call,
      },
      { fetch, sleep: sleeper ?? sleep, now: () => Date.parse("2026-09-01T00:00:00Z"), random: () => 0 },
    );
  return { send, requests, delays };
}

// ----- what is sent -------------------------------------------------------------------------------

test("every attempt carries its count; the JSON body is sent as given, none when undefined", async () => {
  const { send, requests } = setup([{ status: 503 }, { status: 200, body: { ok: true } }]);
  assert.deepEqual(await send({ method: "PUT", json: { a: 1 }, naturallyIdempotent: true }), { ok: true });
  assert.deepEqual(
    requests.map((r) => [r.method, r.headers.get("x-guard-retry-count"), r.body]),
    [
      ["PUT", "0", '{"a":1}'],
      ["PUT", "1", '{"a":1}'],
    ],
  );
  const empty = setup([{ status: 204 }]);
  assert.equal(await empty.send({ method: "DELETE", naturallyIdempotent: true }), null);
  assert.equal(empty.requests[0]!.body, undefined);
});

// ----- retries -----------------------------------------------------------------------------------

test("only a call that cannot act twice is repeated: GET, a write with an Idempotency-Key, or one idempotent by contract", async () => {
  const attempts = async (method: Method, call: Partial<Call>) => {
    const { send, requests } = setup([{ status: 503 }, { status: 200, body: {} }]);
    await send({ method, ...call }).catch(() => undefined);
    return requests.length;
  };
  assert.equal(await attempts("GET", {}), 2);
  assert.equal(await attempts("POST", {}), 1);
  assert.equal(await attempts("POST", { headers: new Headers({ "Idempotency-Key": "k-1" }) }), 2);
  assert.equal(await attempts("PUT", { naturallyIdempotent: true }), 2);
  assert.equal(await attempts("DELETE", {}), 1);
});

test("retries stop at maxRetries; waits back off exponentially", async () => {
  const failing = (): Scripted[] =>
    Array.from({ length: 6 }, () => ({ status: 503, body: { code: "UNAVAILABLE", error: "down" } }));
  for (const [maxRetries, expected] of [
    [0, 1],
    [2, 3],
    [4, 5],
  ] as const) {
    const { send, requests, delays } = setup(failing());
    await rejectsWith(send({ maxRetries }), GuardApiError);
    assert.equal(requests.length, expected);
    assert.deepEqual(delays, [500, 1000, 2000, 4000].slice(0, expected - 1));
  }
});

test("Retry-After is honoured: the recorded waits are the server's", async () => {
  const { send, delays } = setup([
    { status: 429, headers: { "retry-after": "2" } },
    { status: 503, headers: { "retry-after": "0" } },
    { status: 200, body: { orgId: "org_1" } },
  ]);
  await send();
  assert.deepEqual(delays, [2000, 0]);
});

test("a Retry-After beyond the 60 s cap is not waited for: the error surfaces at once", async () => {
  const { send, requests, delays } = setup([
    { status: 429, headers: { "retry-after": "120" }, body: { code: "RATE_LIMITED", error: "slow down" } },
  ]);
  const error = await rejectsWith(send(), GuardApiError);
  assert.equal(error.code, "RATE_LIMITED");
  assert.equal(requests.length, 1);
  assert.deepEqual(delays, []);
});

test("4xx answers are never retried", async () => {
  const { send, requests } = setup([{ status: 400, body: { code: "VALIDATION_ERROR", error: "bad" } }]);
  await rejectsWith(send(), GuardApiError);
  assert.equal(requests.length, 1);
});

test("connection failures are GuardConnectionError, retried on safe requests, with the reason", async () => {
  const { send, requests, delays } = setup([
    { throws: connectionRefused() },
    { throws: connectionRefused() },
    { throws: new TypeError("Failed to fetch") },
  ]);
  const error = await rejectsWith(send(), GuardConnectionError);
  assert.match(
    error.message,
    /^GET https:\/\/guard\.example\.com\/api\/v1\/org\/a failed: TypeError: Failed to fetch$/,
  );
  assert.equal(requests.length, 3);
  assert.deepEqual(delays, [500, 1000]);
  // Node's fetch names the reason in `cause`.
  const refused = setup([{ throws: connectionRefused() }]);
  const first = await rejectsWith(refused.send({ maxRetries: 0 }), GuardConnectionError);
  assert.match(first.message, /ECONNREFUSED/);
});

// ----- timeouts and aborts -----------------------------------------------------------------------

test("an attempt that outlives timeoutMs is a GuardTimeoutError (distinct from a connection error), retried", async () => {
  const { send, requests } = setup([{ hang: true }, { hang: true }]);
  const error = await rejectsWith(send({ timeoutMs: 20, maxRetries: 1 }), GuardTimeoutError);
  assert.ok(!(error instanceof GuardConnectionError));
  assert.match(error.message, /timed out after 20 ms/);
  assert.equal(requests.length, 2);
});

test("an already-aborted signal makes no request", async () => {
  const { send, requests } = setup();
  await rejectsWith(send({ signal: AbortSignal.abort() }), GuardAbortError);
  assert.equal(requests.length, 0);
});

test("aborting during a request stops it and it is not retried", async () => {
  const { send, requests } = setup([{ hang: true }, { status: 200, body: {} }]);
  const controller = new AbortController();
  const call = send({ signal: controller.signal });
  setTimeout(() => controller.abort(), 10);
  await rejectsWith(call, GuardAbortError);
  assert.equal(requests.length, 1);
});

test("aborting during the wait before a retry stops the call", async () => {
  const controller = new AbortController();
  const { send, requests } = setup([{ status: 503 }, { status: 200, body: {} }], async () =>
    controller.abort(),
  );
  await rejectsWith(send({ signal: controller.signal }), GuardAbortError);
  assert.equal(requests.length, 1);
});

// ----- error mapping -----------------------------------------------------------------------------

async function errorFor(scripted: Scripted): Promise<GuardApiError> {
  const { send } = setup([scripted]);
  return rejectsWith(send({ maxRetries: 0 }), GuardApiError);
}

test("the body's code, message, requestId and field are kept, with the response headers", async () => {
  const error = await errorFor({
    status: 400,
    body: {
      code: "VALIDATION_ERROR",
      error: "dataTypes: at least one",
      requestId: "req_1",
      field: "dataTypes",
    },
    headers: { "x-request-id": "req_h" },
  });
  assert.deepEqual(
    [error.status, error.code, error.message, error.requestId, error.field, error.name],
    [400, "VALIDATION_ERROR", "dataTypes: at least one", "req_1", "dataTypes", "GuardApiError"],
  );
  assert.equal(error.headers.get("x-request-id"), "req_h");
});

test("an unknown code is kept as a string", async () => {
  const error = await errorFor({ status: 403, body: { code: "SOMETHING_NEWER", error: "x" } });
  assert.equal(error.code, "SOMETHING_NEWER");
});

test("a body without a code gets the status's catalog code; requestId falls back to x-request-id", async () => {
  const cases: [number, string][] = [
    [400, "VALIDATION_ERROR"],
    [401, "UNAUTHORIZED"],
    [403, "FORBIDDEN"],
    [404, "NOT_FOUND"],
    [409, "CONFLICT"],
    [413, "PAYLOAD_TOO_LARGE"],
    [415, "UNSUPPORTED_MEDIA_TYPE"],
    [422, "VALIDATION_ERROR"],
    [426, "SDK_VERSION_UNSUPPORTED"],
    [429, "RATE_LIMITED"],
    [500, "INTERNAL_ERROR"],
    [502, "UNAVAILABLE"],
    [503, "UNAVAILABLE"],
  ];
  for (const [status, code] of cases) {
    const error = await errorFor({ status, body: { error: "legacy" }, headers: { "x-request-id": "req_h" } });
    assert.deepEqual(
      [error.status, error.code, error.message, error.requestId],
      [status, code, "legacy", "req_h"],
    );
  }
});

test("a non-JSON or empty error body never throws a parse error", async () => {
  const html = await errorFor({
    status: 502,
    body: "<html>Bad gateway</html>",
    headers: { "content-type": "text/html" },
  });
  assert.deepEqual(
    [html.code, html.message, html.requestId],
    ["UNAVAILABLE", "Request failed with status 502", null],
  );
  const empty = await errorFor({ status: 404, body: "" });
  assert.equal(empty.code, "NOT_FOUND");
  const array = await errorFor({ status: 400, body: "[1,2]" });
  assert.equal(array.code, "VALIDATION_ERROR");
});

test("a 2xx body that is not JSON is a GuardApiError, not a SyntaxError", async () => {
  const { send } = setup([
    { status: 200, body: "<html>captive portal</html>", headers: { "x-request-id": "r" } },
  ]);
  const error = await rejectsWith(send(), GuardApiError);
  assert.deepEqual([error.status, error.code, error.requestId], [200, "INTERNAL_ERROR", "r"]);
});
