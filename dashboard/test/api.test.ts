// The API client's middleware over a fake fetch: CSRF on writes, Idempotency-Key where the contract
// takes one (and the caller's own key kept), errors as ApiError, 401 reported as a lost session.
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import {
  createGuardClient,
  IDEMPOTENT_POSTS,
  setCsrfToken,
  setSessionLostHandler,
} from "../src/api/client.js";
import {
  ApiError,
  apiErrorFrom,
  fieldError,
  parseRetryAfter,
  unclaimedError,
  withFieldError,
} from "../src/api/errors.js";

interface Seen {
  method: string;
  url: string;
  headers: Headers;
}

function fakeGuard(answer: (request: Request) => Response) {
  const seen: Seen[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    seen.push({ method: request.method, url: request.url, headers: request.headers });
    return answer(request);
  };
  return {
    seen,
    client: createGuardClient({ baseUrl: "http://guard.test", fetch: fetch as typeof globalThis.fetch }),
  };
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

afterEach(() => {
  setCsrfToken(null);
  setSessionLostHandler(null);
});

test("writes carry the session's X-CSRF-Token; reads do not", async () => {
  const { seen, client } = fakeGuard(() => json(200, { signedOut: true }));
  setCsrfToken("csrf-123");
  await client.DELETE("/api/v1/staff/session");
  await client.GET("/api/v1/staff/api-keys");
  assert.equal(seen[0]!.headers.get("x-csrf-token"), "csrf-123");
  assert.equal(seen[1]!.headers.get("x-csrf-token"), null);
});

test("a POST whose operation takes an Idempotency-Key gets a fresh one; the caller's own key is kept", async () => {
  const { seen, client } = fakeGuard(() => json(201, {}));
  setCsrfToken("csrf-123");
  const body = { key: "default", content: {}, itemized: [] } as never;
  await client.POST("/api/v1/staff/notices", { body });
  await client.POST("/api/v1/staff/notices", { body });
  await client.POST("/api/v1/staff/notices", { body, headers: { "Idempotency-Key": "retry-me" } });
  await client.POST("/api/v1/staff/api-keys", { body: { name: "k" } });
  const [first, second, third, noKey] = seen.map((s) => s.headers.get("idempotency-key"));
  assert.match(first!, /^[0-9a-f-]{36}$/);
  assert.notEqual(first, second, "each user action has its own key");
  assert.equal(third, "retry-me");
  assert.equal(noKey, null, "createApiKey takes no Idempotency-Key");
  assert.ok(IDEMPOTENT_POSTS.includes("/api/v1/staff/notices"));
});

test("an error body becomes a thrown ApiError with status, code, message, field, requestId, retryAfter", async () => {
  const { client } = fakeGuard(() =>
    json(
      429,
      { code: "RATE_LIMITED", error: "Too many attempts", requestId: "req-1" },
      { "retry-after": "7" },
    ),
  );
  await assert.rejects(
    client.POST("/api/v1/staff/session", {
      body: { organizationSlug: "demo", email: "a@b.co", password: "x" },
    }),
    (error: unknown) => {
      assert.ok(error instanceof ApiError);
      assert.equal(error.status, 429);
      assert.equal(error.code, "RATE_LIMITED");
      assert.equal(error.message, "Too many attempts");
      assert.equal(error.requestId, "req-1");
      assert.equal(error.retryAfter, 7);
      return true;
    },
  );
});

test("401 on a staff route reports the session lost; 401 on the session routes does not", async () => {
  const { client } = fakeGuard(() => json(401, { code: "UNAUTHORIZED", error: "Sign in" }));
  let lost = 0;
  setSessionLostHandler(() => lost++);
  await assert.rejects(client.GET("/api/v1/staff/api-keys"), ApiError);
  assert.equal(lost, 1);
  await assert.rejects(
    client.POST("/api/v1/staff/session", {
      body: { organizationSlug: "demo", email: "a@b.co", password: "x" },
    }),
    ApiError,
  );
  await assert.rejects(client.GET("/api/v1/staff/session"), ApiError);
  assert.equal(lost, 1, "a wrong password or a first visit is not a lost session");
});

test("a fetch that fails outright is an ApiError with status 0", async () => {
  const { client } = fakeGuard(() => {
    throw new TypeError("connection refused");
  });
  await assert.rejects(client.GET("/api/v1/staff/api-keys"), (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.status, 0);
    assert.equal(error.code, "NETWORK_ERROR");
    assert.match(error.message, /connection refused/);
    return true;
  });
});

test("apiErrorFrom: a non-JSON body still names the status; the header's request id is used", () => {
  const error = apiErrorFrom(502, "<html>Bad gateway</html>", new Headers({ "x-request-id": "req-9" }));
  assert.equal(error.code, "HTTP_502");
  assert.equal(error.requestId, "req-9");
  assert.match(error.message, /502/);
});

test("parseRetryAfter: seconds or an HTTP date", () => {
  assert.equal(parseRetryAfter("12"), 12);
  assert.equal(parseRetryAfter(null), undefined);
  assert.equal(parseRetryAfter("soon"), undefined);
  const now = Date.parse("2026-01-01T00:00:00Z");
  assert.equal(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now), 30);
});

test("fieldError matches the field name or a JSON pointer's first segment; unclaimedError keeps the rest", () => {
  const email = new ApiError({
    status: 400,
    code: "VALIDATION_ERROR",
    message: "email is invalid",
    field: "email",
  });
  const pointer = new ApiError({
    status: 400,
    code: "VALIDATION_ERROR",
    message: "bad",
    field: "/itemized/0/purpose",
  });
  assert.equal(fieldError(email, "email"), "email is invalid");
  assert.equal(fieldError(email, "password"), undefined);
  assert.equal(fieldError(pointer, "itemized"), "bad");
  assert.equal(fieldError(new Error("x"), "email"), undefined);
  assert.equal(unclaimedError(email, ["email", "password"]), undefined);
  assert.equal(unclaimedError(email, ["password"]), email);
  assert.equal(unclaimedError(undefined, ["email"]), undefined);
});

test("withFieldError: a refusal naming the field goes to the field; other failures are thrown; success is true", async () => {
  const reasonRefused = new ApiError({
    status: 400,
    code: "VALIDATION_ERROR",
    message: "reason must not be blank",
    field: "reason",
  });
  const conflict = new ApiError({ status: 409, code: "CONFLICT", message: "already revoked" });
  const shown: unknown[] = [];
  const setFieldError = (error: unknown) => shown.push(error);

  assert.equal(await withFieldError("reason", () => Promise.reject(reasonRefused), setFieldError), false);
  assert.deepEqual(shown, [undefined, reasonRefused], "cleared first, then the refusal at the field");

  shown.length = 0;
  await assert.rejects(
    withFieldError("reason", () => Promise.reject(conflict), setFieldError),
    conflict,
  );
  await assert.rejects(
    withFieldError("note", () => Promise.reject(reasonRefused), setFieldError),
    reasonRefused,
  );
  assert.deepEqual(shown, [undefined, undefined], "the dialog shows those");

  shown.length = 0;
  assert.equal(await withFieldError("reason", () => Promise.resolve({ ok: true }), setFieldError), true);
  assert.deepEqual(shown, [undefined]);
});
