// GuardClient against a scripted fetch: construction, credentials, headers, idempotency keys, and
// which calls are retried under which options (with a recording sleeper: no real waits). Mirrors
// sdks/node/test/client.test.ts for the methods @guard/js has; the transport's own behaviour
// (backoff, Retry-After, timeouts, aborts, error mapping) is sdks/typescript-shared/test's.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GuardAbortError,
  GuardApiError,
  GuardClient,
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
const ANONYMOUS_CONSENT = {
  organizationId: "org_0123456789",
  noticeId: "ntc_0123456789",
  purpose: "Marketing",
  dataTypes: ["email"],
  anonymousId: "anon-1",
};

function setup(script: Scripted[] = [], options: Partial<GuardClientOptions> = {}) {
  const { fetch, requests } = fakeFetch(script);
  const { sleep, delays } = recordingSleep();
  const client = new GuardClient({ baseUrl: BASE, fetch, sleep, random: () => 0, ...options });
  return { client, requests, delays };
}

// ----- construction ------------------------------------------------------------------------------

test("unknown client options throw, naming them; a service API key is refused", () => {
  assert.throws(
    () => new GuardClient({ baseUrl: BASE, accesToken: "x" } as unknown as GuardClientOptions),
    /Unknown GuardClient option: accesToken/,
  );
  assert.throws(
    () => new GuardClient({ baseUrl: BASE, apiKey: "gk_live_x" } as unknown as GuardClientOptions),
    /never holds a service API key/,
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

test("without a fetch option the global fetch is called on its global (browsers require it)", async () => {
  const original = globalThis.fetch;
  const seen: unknown[] = [];
  globalThis.fetch = function (this: unknown) {
    seen.push(this);
    return Promise.resolve(new Response(JSON.stringify({ orgId: "org_1" }), { status: 200 }));
  } as typeof fetch;
  try {
    const client = new GuardClient({ baseUrl: `${BASE}/` });
    assert.deepEqual(await client.getOrganization("a"), { orgId: "org_1" });
    assert.equal(seen[0], globalThis);
  } finally {
    globalThis.fetch = original;
  }
});

test("unknown per-request options and page params throw before any request", async () => {
  const { client, requests } = setup();
  await assert.rejects(
    client.getOrganization("a", { timeout: 5 } as unknown as { timeoutMs: number }),
    /Unknown request option: timeout/,
  );
  await assert.rejects(
    client.getNotices("org_0123456789", { timeoutMs: 5 } as never),
    /Unknown page param: timeoutMs/,
  );
  assert.equal(requests.length, 0);
});

// ----- credentials -------------------------------------------------------------------------------

test("principal calls without an access token fail locally, before any network call", async () => {
  const { client, requests } = setup();
  const error = await rejectsWith(client.listDsrRequests(), GuardMissingCredentialError);
  assert.equal(error.credential, "accessToken");
  await rejectsWith(client.createDsrRequest(DSR), GuardMissingCredentialError);
  await rejectsWith(client.linkAnonymousConsent("anon-1"), GuardMissingCredentialError);
  await rejectsWith(client.revokeNomination(), GuardMissingCredentialError);
  assert.equal(requests.length, 0);
});

test("accessToken and setAccessToken; public calls send no Authorization", async () => {
  const { client, requests } = setup([], { accessToken: "tok_1" });
  await client.getNomination();
  client.setAccessToken("tok_2");
  await client.getNomination();
  await client.getNotices("org_0123456789");
  await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
  assert.deepEqual(
    requests.map((r) => r.headers.get("authorization")),
    ["Bearer tok_1", "Bearer tok_2", null, null],
  );
  client.setAccessToken(null);
  await rejectsWith(client.getNomination(), GuardMissingCredentialError);
});

test("there is no token broker, no service call and no webhook helper", async () => {
  const sdk = await import("../src/index.js");
  const client = new GuardClient({ baseUrl: BASE });
  for (const name of [
    "brokerToken",
    "recordConsent",
    "verifyConsent",
    "getConsentStatus",
    "withdrawConsent",
  ]) {
    assert.equal(name in client, false, `GuardClient has ${name}`);
  }
  for (const name of ["verifyWebhookSignature", "verifyStandardWebhook", "computeAuditHash"]) {
    assert.equal(name in sdk, false, `@guard/js exports ${name}`);
  }
});

// ----- requests ----------------------------------------------------------------------------------

test("every request carries X-Guard-SDK, Accept and the attempt count; Content-Type only with a body", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.getOrganization("acme");
  await client.upsertNomination({ nomineeName: "A", nomineeContact: "a@example.com" });
  await client.revokeNomination();
  const [get, put, del] = requests;
  for (const r of requests) {
    assert.equal(r.headers.get("x-guard-sdk"), `@guard/js/${VERSION}`);
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
    accessToken: "tok",
    defaultHeaders: { "X-Tenant": "a", "X-Guard-SDK": "evil/9.9.9" },
  });
  await client.getNomination({
    headers: { "X-Trace": "t1", Authorization: "Bearer other", "X-Guard-Retry-Count": "7" },
  });
  const headers = requests[0]!.headers;
  assert.equal(headers.get("x-tenant"), "a");
  assert.equal(headers.get("x-trace"), "t1");
  assert.equal(headers.get("authorization"), "Bearer tok");
  assert.equal(headers.get("x-guard-sdk"), `@guard/js/${VERSION}`);
  assert.equal(headers.get("x-guard-retry-count"), "0");
});

test("path segments are encoded; absent query parameters are not sent", async () => {
  const { client, requests } = setup();
  await client.getOrganization("a/b?c");
  await client.getBannerConfig("org_0123456789");
  await client.getBannerConfig("org_0123456789", { domain: "shop.example" });
  await client.getBannerConfig("org_0123456789", { appId: "com.example.app" });
  assert.deepEqual(
    requests.map((r) => r.url.slice(BASE.length)),
    [
      "/api/v1/org/a%2Fb%3Fc",
      "/api/v1/org/org_0123456789/banner-config",
      "/api/v1/org/org_0123456789/banner-config?domain=shop.example",
      "/api/v1/org/org_0123456789/banner-config?appId=com.example.app",
    ],
  );
});

test("each method calls its contract route", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.getNotice("ntc_0123456789");
  await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
  await client.linkAnonymousConsent("anon-1");
  await client.listDsrRequests();
  await client.createDsrRequest(DSR);
  await client.listGrievances();
  await client.createGrievance({ organizationId: "org_0123456789", subject: "s", description: "d" });
  await client.getNomination();
  assert.deepEqual(
    requests.map((r) => `${r.method} ${r.url.slice(BASE.length)} ${r.headers.get("authorization") ?? "-"}`),
    [
      "GET /api/v1/notices/ntc_0123456789 -",
      "POST /api/v1/consents/anonymous -",
      "POST /api/v1/link-anonymous-consent Bearer tok",
      "GET /api/v1/dsr Bearer tok",
      "POST /api/v1/dsr Bearer tok",
      "GET /api/v1/grievances Bearer tok",
      "POST /api/v1/grievances Bearer tok",
      "GET /api/v1/nomination Bearer tok",
    ],
  );
  assert.equal(requests[1]!.body, JSON.stringify(ANONYMOUS_CONSENT));
  assert.equal(requests[2]!.body, JSON.stringify({ anonymousId: "anon-1" }));
});

test("getNomination returns null when none is set", async () => {
  const { client } = setup([{ status: 200, body: "null" }], { accessToken: "tok" });
  assert.equal(await client.getNomination(), null);
});

// ----- idempotency keys --------------------------------------------------------------------------

test("create calls mint one UUIDv4 key per call; two calls get two keys", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
  await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
  await client.createDsrRequest(DSR);
  await client.createGrievance({ organizationId: "org_0123456789", subject: "s", description: "d" });
  const keys = requests.map((r) => r.headers.get("idempotency-key"));
  for (const key of keys) assert.match(key!, UUID_V4);
  assert.equal(new Set(keys).size, 4);
});

test("without crypto.randomUUID (an http page) the key is still a UUIDv4", async () => {
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, "crypto")!;
  const webCrypto = globalThis.crypto;
  Object.defineProperty(globalThis, "crypto", {
    configurable: true,
    value: { getRandomValues: (bytes: Uint8Array) => webCrypto.getRandomValues(bytes) },
  });
  try {
    const { client, requests } = setup();
    await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
    await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
    const [a, b] = requests.map((r) => r.headers.get("idempotency-key"));
    assert.match(a!, UUID_V4);
    assert.notEqual(a, b);
  } finally {
    Object.defineProperty(globalThis, "crypto", descriptor);
  }
});

test("withdrawAnonymousConsent posts the guest's withdrawal with its own key, retried under it", async () => {
  const { client, requests } = setup([
    { status: 503 },
    {
      status: 200,
      body: { consentId: "cns_1", noticeId: "ntc_0123456789", purpose: "Marketing", withdrawnAt: 5 },
    },
  ]);
  const input = {
    organizationId: "org_0123456789",
    noticeId: "ntc_0123456789",
    purpose: "Marketing",
    anonymousId: "anon-1",
  };
  const withdrawn = await client.withdrawAnonymousConsent(input);
  assert.equal(withdrawn.withdrawnAt, 5);
  assert.deepEqual(
    requests.map((r) => [r.method, new URL(r.url).pathname, r.headers.get("authorization")]),
    [
      ["POST", "/api/v1/consents/anonymous/withdraw", null],
      ["POST", "/api/v1/consents/anonymous/withdraw", null],
    ],
  );
  assert.deepEqual(JSON.parse(requests[0]!.body!), input);
  const keys = new Set(requests.map((r) => r.headers.get("idempotency-key")));
  assert.equal(keys.size, 1);
  assert.match([...keys][0]!, UUID_V4);
});

test("withdrawConsentByToken posts the token with no credential and no key, retried as it is", async () => {
  const { client, requests } = setup(
    [
      { status: 503 },
      {
        status: 200,
        body: {
          withdrawn: [
            { consentId: "cns_1", purpose: "Marketing", noticeId: "ntc_0123456789", withdrawnAt: 7 },
          ],
          alreadyWithdrawn: ["cns_0"],
        },
      },
    ],
    { accessToken: "principal-token" },
  );
  const result = await client.withdrawConsentByToken("wdt_0123456789abcdefghijklmnopqrstuv");
  assert.equal(result.withdrawn[0]!.withdrawnAt, 7);
  assert.deepEqual(result.alreadyWithdrawn, ["cns_0"]);
  assert.deepEqual(
    requests.map((r) => [
      r.method,
      new URL(r.url).pathname,
      r.headers.get("authorization"),
      r.headers.get("idempotency-key"),
    ]),
    [
      ["POST", "/api/v1/offline/withdrawals", null, null],
      ["POST", "/api/v1/offline/withdrawals", null, null],
    ],
  );
  assert.deepEqual(JSON.parse(requests[1]!.body!), {
    withdrawalToken: "wdt_0123456789abcdefghijklmnopqrstuv",
  });
});

test("a given key is sent as is; non-create calls send none", async () => {
  const { client, requests } = setup([], { accessToken: "tok" });
  await client.giveAnonymousConsent(ANONYMOUS_CONSENT, { idempotencyKey: "consent-1" });
  await client.createDsrRequest(DSR, { idempotencyKey: "dsr-1" });
  await client.linkAnonymousConsent("anon-1");
  await client.getOrganization("a");
  assert.deepEqual(
    requests.map((r) => r.headers.get("idempotency-key")),
    ["consent-1", "dsr-1", null, null],
  );
});

test("the minted key is reused on every retry of one logical call", async () => {
  const { client, requests, delays } = setup([
    { status: 503 },
    { throws: connectionRefused() },
    { status: 201, body: { consentId: "cns_1" } },
  ]);
  const created = await client.giveAnonymousConsent(ANONYMOUS_CONSENT);
  assert.equal(created.consentId, "cns_1");
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

test("writes idempotent by contract are retried: link, upsert and revoke nomination", async () => {
  const { client, requests } = setup(
    [
      { status: 503 },
      { status: 200, body: { linkedCount: 0, needsReconsent: [] } },
      { throws: connectionRefused() },
      { status: 200, body: {} },
      { status: 502 },
      { status: 200, body: {} },
    ],
    { accessToken: "tok" },
  );
  await client.linkAnonymousConsent("anon");
  await client.upsertNomination({ nomineeName: "A", nomineeContact: "a@example.com" });
  await client.revokeNomination();
  assert.equal(requests.length, 6);
});

// ----- timeouts and aborts (the transport's own behaviour: sdks/typescript-shared/test) ----------

test("the per-request timeout overrides the client's; the caller's signal reaches the call", async () => {
  const { client, requests } = setup([{ hang: true }], { maxRetries: 0 });
  await rejectsWith(client.getOrganization("a", { timeoutMs: 20 }), GuardTimeoutError);
  await rejectsWith(client.getOrganization("a", { signal: AbortSignal.abort() }), GuardAbortError);
  assert.equal(requests.length, 1);
});
