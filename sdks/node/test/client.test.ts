// GuardClient against a scripted fetch: construction, credentials, headers, idempotency keys, and
// which calls are retried under which options (with a recording sleeper: no real waits). The
// transport's own behaviour (backoff, Retry-After, timeouts, aborts, error mapping) is
// sdks/typescript-shared/test's.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GuardAbortError,
  GuardApiError,
  GuardClient,
  GuardConnectionError,
  GuardMissingCredentialError,
  GuardTimeoutError,
  VERSION,
  type GuardClientOptions,
} from "../src/index.js";
import {
  connectionRefused,
  fakeFetch,
  recordingSleep,
  rejectsWith,
  type Scripted,
} from "../../typescript-shared/test/support.js";

const BASE = "https://guard.example.com";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DSR = { organizationId: "org_0123456789", type: "erasure" as const };

function setup(script: Scripted[] = [], options: Partial<GuardClientOptions> = {}) {
  const { fetch, requests } = fakeFetch(script);
  const { sleep, delays } = recordingSleep();
  const client = new GuardClient({
    baseUrl: BASE,
    apiKey: "gk_live_key",
    fetch,
    sleep,
    random: () => 0,
    ...options,
  });
  return { client, requests, delays };
}

// ----- construction ------------------------------------------------------------------------------

test("unknown client options throw, naming them", () => {
  assert.throws(
    () => new GuardClient({ baseUrl: BASE, apikey: "x" } as unknown as GuardClientOptions),
    /Unknown GuardClient option: apikey/,
  );
});

test("baseUrl must be an http(s) URL; timeouts and retries must be sane", () => {
  assert.throws(() => new GuardClient({ baseUrl: "guard.example.com" }), /baseUrl/);
  assert.throws(() => new GuardClient({ baseUrl: BASE, timeoutMs: 0 }), /timeoutMs/);
  assert.throws(() => new GuardClient({ baseUrl: BASE, timeoutMs: 2 ** 31 }), /timeoutMs/);
  assert.throws(() => new GuardClient({ baseUrl: BASE, timeoutMs: Number.NaN }), /timeoutMs/);
  assert.throws(() => new GuardClient({ baseUrl: BASE, maxRetries: -1 }), /maxRetries/);
  assert.throws(() => new GuardClient({ baseUrl: BASE, maxRetries: 1.5 }), /maxRetries/);
});

test("fetchImpl (contract 1.6.0's name) still works; fetch and fetchImpl together throw", async () => {
  const { fetch, requests } = fakeFetch([{ status: 200, body: { orgId: "org_1", name: "A", slug: "a" } }]);
  const client = new GuardClient({ baseUrl: `${BASE}/`, fetchImpl: fetch });
  await client.getOrganization("a");
  assert.equal(requests[0]!.url, `${BASE}/api/v1/org/a`);
  assert.throws(() => new GuardClient({ baseUrl: BASE, fetch, fetchImpl: fetch }), /not both/);
});

test("unknown per-request options throw before any request", async () => {
  const { client, requests } = setup();
  await assert.rejects(
    client.getOrganization("a", { timeout: 5 } as unknown as { timeoutMs: number }),
    /Unknown request option: timeout/,
  );
  assert.equal(requests.length, 0);
});

// ----- credentials -------------------------------------------------------------------------------

test("missing credentials fail locally, before any network call", async () => {
  const { fetch, requests } = fakeFetch([]);
  const client = new GuardClient({ baseUrl: BASE, fetch });
  const keyError = await rejectsWith(client.brokerToken("user-1"), GuardMissingCredentialError);
  assert.equal(keyError.credential, "apiKey");
  await rejectsWith(client.verifyConsent("cns_0123456789"), GuardMissingCredentialError);
  await rejectsWith(
    client.recordConsent({ email: "a@b.c", noticeId: "ntc_1", purpose: "M", dataTypes: ["e"] }),
    GuardMissingCredentialError,
  );
  const tokenError = await rejectsWith(client.listDsrRequests(), GuardMissingCredentialError);
  assert.equal(tokenError.credential, "accessToken");
  await rejectsWith(client.createDsrRequest(DSR), GuardMissingCredentialError);
  await rejectsWith(client.revokeNomination(), GuardMissingCredentialError);
  assert.equal(requests.length, 0);
});

test("brokerToken sends the API key and stores the token for principal calls", async () => {
  const { client, requests } = setup([
    { status: 201, body: { accessToken: "tok_1", expiresAt: 1, tokenType: "Bearer" } },
    { status: 200, body: { requests: [] } },
  ]);
  const token = await client.brokerToken("user-1");
  assert.equal(token.accessToken, "tok_1");
  await client.listDsrRequests();
  assert.equal(requests[0]!.headers.get("authorization"), "Bearer gk_live_key");
  assert.equal(requests[0]!.body, JSON.stringify({ externalId: "user-1" }));
  assert.equal(requests[1]!.headers.get("authorization"), "Bearer tok_1");
});

test("brokerToken sends email only when given, beside the request options", async () => {
  const { client, requests } = setup();
  await client.brokerToken("user-1", { email: "asha@example.com" });
  await client.brokerToken("user-2", { email: "ravi@example.com", headers: { "X-Trace": "t1" } });
  await client.brokerToken("user-3", { timeoutMs: 5_000 });
  await client.brokerToken("user-4", { email: undefined });
  assert.equal(requests[0]!.body, JSON.stringify({ externalId: "user-1", email: "asha@example.com" }));
  assert.equal(requests[1]!.body, JSON.stringify({ externalId: "user-2", email: "ravi@example.com" }));
  assert.equal(requests[1]!.headers.get("x-trace"), "t1");
  assert.equal(requests[2]!.body, JSON.stringify({ externalId: "user-3" }));
  assert.equal(requests[3]!.body, JSON.stringify({ externalId: "user-4" }));
  await assert.rejects(
    client.brokerToken("user-5", { email: 42 } as unknown as { email: string }),
    /email must be a string/,
  );
  await assert.rejects(
    client.brokerToken("user-5", { emial: "a@b.c" } as unknown as { email: string }),
    /Unknown request option: emial/,
  );
  assert.equal(requests.length, 4);
});

test("setAccessToken replaces the token; public calls send no Authorization", async () => {
  const { client, requests } = setup();
  client.setAccessToken("tok_manual");
  await client.getNomination();
  await client.getNotices("org_0123456789");
  assert.equal(requests[0]!.headers.get("authorization"), "Bearer tok_manual");
  assert.equal(requests[1]!.headers.get("authorization"), null);
  client.setAccessToken(null);
  await rejectsWith(client.getNomination(), GuardMissingCredentialError);
});

// ----- requests ----------------------------------------------------------------------------------

test("every request carries X-Guard-SDK, Accept and the attempt count; Content-Type only with a body", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.getOrganization("acme");
  await client.upsertNomination({ nomineeName: "A", nomineeContact: "a@example.com" });
  await client.revokeNomination();
  const [get, put, del] = requests;
  for (const r of requests) {
    assert.equal(r.headers.get("x-guard-sdk"), `@guard/server/${VERSION}`);
    assert.equal(r.headers.get("x-guard-retry-count"), "0");
    assert.equal(r.headers.get("accept"), "application/json");
  }
  assert.equal(get!.headers.get("content-type"), null);
  assert.equal(put!.method, "PUT");
  assert.equal(put!.headers.get("content-type"), "application/json");
  assert.equal(del!.method, "DELETE");
  assert.equal(del!.headers.get("content-type"), null);
  assert.equal(del!.body, undefined);
});

test("caller headers are merged, but the SDK's own headers cannot be overridden", async () => {
  const { client, requests } = setup([], {
    defaultHeaders: { "X-Tenant": "a", "X-Guard-SDK": "evil/9.9.9" },
  });
  await client.verifyConsent("cns_0123456789", {
    headers: { "X-Trace": "t1", Authorization: "Bearer other", "X-Guard-Retry-Count": "7" },
  });
  const headers = requests[0]!.headers;
  assert.equal(headers.get("x-tenant"), "a");
  assert.equal(headers.get("x-trace"), "t1");
  assert.equal(headers.get("authorization"), "Bearer gk_live_key");
  assert.equal(headers.get("x-guard-sdk"), `@guard/server/${VERSION}`);
  assert.equal(headers.get("x-guard-retry-count"), "0");
});

test("path segments are encoded; absent query parameters are not sent", async () => {
  const { client, requests } = setup();
  await client.getOrganization("a/b?c");
  await client.getBannerConfig("org_0123456789");
  await client.getBannerConfig("org_0123456789", { domain: "shop.example" });
  await client.getBannerConfig("org_0123456789", { appId: "com.example.app" });
  await client.getConsentStatus({ email: "a+b@example.com" });
  await client.listGateDecisions({ limit: 5 });
  await client.listGateDecisions();
  assert.deepEqual(
    requests.map((r) => r.url.slice(BASE.length)),
    [
      "/api/v1/org/a%2Fb%3Fc",
      "/api/v1/org/org_0123456789/banner-config",
      "/api/v1/org/org_0123456789/banner-config?domain=shop.example",
      "/api/v1/org/org_0123456789/banner-config?appId=com.example.app",
      "/api/v1/consent-status?email=a%2Bb%40example.com",
      "/api/v1/consent/gate/decisions?limit=5",
      "/api/v1/consent/gate/decisions",
    ],
  );
});

test("each method calls its contract route", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.getNotice("ntc_0123456789");
  await client.giveAnonymousConsent({
    organizationId: "org_0123456789",
    noticeId: "ntc_0123456789",
    purpose: "Marketing",
    dataTypes: ["email"],
    anonymousId: "anon-1",
  });
  await client.linkAnonymousConsent("anon-1");
  await client.listGrievances();
  await client.createGrievance({ organizationId: "org_0123456789", subject: "s", description: "d" });
  await client.getConsent("cns_0123456789");
  await client.withdrawConsent("cns_0123456789");
  await client.listGateAlerts();
  assert.deepEqual(
    requests.map((r) => `${r.method} ${r.url.slice(BASE.length)} ${r.headers.get("authorization") ?? "-"}`),
    [
      "GET /api/v1/notices/ntc_0123456789 -",
      "POST /api/v1/consents/anonymous -",
      "POST /api/v1/link-anonymous-consent Bearer tok",
      "GET /api/v1/grievances Bearer tok",
      "POST /api/v1/grievances Bearer tok",
      "GET /cm/v1/consent/cns_0123456789 Bearer gk_live_key",
      "DELETE /cm/v1/consent/cns_0123456789 Bearer gk_live_key",
      "GET /api/v1/consent/gate/alerts Bearer gk_live_key",
    ],
  );
});

test("getNomination returns null when none is set", async () => {
  const { client } = setup([{ status: 200, body: "null" }], { accessToken: "tok" });
  assert.equal(await client.getNomination(), null);
});

// ----- idempotency keys --------------------------------------------------------------------------

test("create calls mint one UUIDv4 key per call; two calls get two keys", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.createDsrRequest(DSR);
  await client.createDsrRequest(DSR);
  const [a, b] = requests.map((r) => r.headers.get("idempotency-key"));
  assert.match(a!, UUID_V4);
  assert.match(b!, UUID_V4);
  assert.notEqual(a, b);
});

test("a given key is sent as is: options.idempotencyKey, or createDsrRequest's 1.6.0 string argument", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.createDsrRequest(DSR, "key-from-1.6");
  await client.createDsrRequest(DSR, { idempotencyKey: "key-from-options" });
  await client.createGrievance(
    { organizationId: "org_0123456789", subject: "s", description: "d" },
    { idempotencyKey: "g-1" },
  );
  assert.deepEqual(
    requests.map((r) => r.headers.get("idempotency-key")),
    ["key-from-1.6", "key-from-options", "g-1"],
  );
});

test("non-create calls send no idempotency key", async () => {
  const { client, requests } = setup();
  await client.brokerToken("u");
  await client.verifyConsent("cns_0123456789");
  await client.getOrganization("a");
  assert.deepEqual(
    requests.map((r) => r.headers.get("idempotency-key")),
    [null, null, null],
  );
});

test("the minted key is reused on every retry of one logical call", async () => {
  const { client, requests, delays } = setup(
    [{ status: 503 }, { throws: connectionRefused() }, { status: 201, body: { requestId: "dsr_1" } }],
    { accessToken: "tok" },
  );
  const created = await client.createDsrRequest(DSR);
  assert.equal(created.requestId, "dsr_1");
  assert.equal(requests.length, 3);
  const keys = new Set(requests.map((r) => r.headers.get("idempotency-key")));
  assert.equal(keys.size, 1);
  assert.match([...keys][0]!, UUID_V4);
  assert.deepEqual(
    requests.map((r) => r.headers.get("x-guard-retry-count")),
    ["0", "1", "2"],
  );
  assert.deepEqual(delays, [500, 1000]);
});

// ----- retries -----------------------------------------------------------------------------------

test("retries stop at maxRetries (client default 2, client option, per request)", async () => {
  const failing = (): Scripted[] =>
    Array.from({ length: 5 }, () => ({ status: 503, body: { code: "UNAVAILABLE", error: "down" } }));
  const a = setup(failing());
  await rejectsWith(a.client.getOrganization("a"), GuardApiError);
  assert.equal(a.requests.length, 3);
  const b = setup(failing(), { maxRetries: 0 });
  await rejectsWith(b.client.getOrganization("a"), GuardApiError);
  assert.equal(b.requests.length, 1);
  const c = setup(failing(), { maxRetries: 0 });
  await rejectsWith(c.client.getOrganization("a", { maxRetries: 4 }), GuardApiError);
  assert.equal(c.requests.length, 5);
});

test("writes that are not safe to repeat are not retried", async () => {
  const broker = setup([{ status: 503 }]);
  await rejectsWith(broker.client.brokerToken("u"), GuardApiError);
  assert.equal(broker.requests.length, 1);
  const withdraw = setup([{ throws: connectionRefused() }]);
  await rejectsWith(withdraw.client.withdrawConsent("cns_0123456789"), GuardConnectionError);
  assert.equal(withdraw.requests.length, 1);
});

test("writes that are idempotent by contract are retried", async () => {
  const { client, requests } = setup(
    [{ status: 503 }, { status: 200, body: { linkedCount: 0, needsReconsent: [] } }],
    {
      accessToken: "tok",
    },
  );
  await client.linkAnonymousConsent("anon");
  assert.equal(requests.length, 2);
});

test("a write with a caller's idempotency key is retried", async () => {
  const { client, requests } = setup([{ status: 502 }, { status: 201, body: { accessToken: "t" } }]);
  await client.brokerToken("u", { idempotencyKey: "k" });
  assert.equal(requests.length, 2);
});

// ----- timeouts and aborts (the transport's own behaviour: sdks/typescript-shared/test) ----------

test("the per-request timeout overrides the client's; the caller's signal reaches the call", async () => {
  const { client, requests } = setup([{ hang: true }], { maxRetries: 0 });
  await rejectsWith(client.getOrganization("a", { timeoutMs: 20 }), GuardTimeoutError);
  await rejectsWith(client.getOrganization("a", { signal: AbortSignal.abort() }), GuardAbortError);
  assert.equal(requests.length, 1);
});
