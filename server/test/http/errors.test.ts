// The one error path: every failure answers `{code, error, requestId}` (plus `field` for validation)
// with the catalog status and an `x-request-id` header, and logs never hold a credential.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { FastifyInstance } from "fastify";
import { ConfigError, loadConfig, testConfig } from "../../src/config.js";
import type { RouteModule } from "../../src/http/app.js";
import { createApp } from "../../src/app.js";
import { ManualClock } from "../../src/lib/clock.js";
import { assertApiError } from "../support/api-error.js";
import {
  bearer,
  openTestDatabase,
  seedOrganization,
  signIn,
  startTestApp,
  type TestApp,
} from "../support/harness.js";

const SIGN_IN = "/api/v1/staff/session";
const BROKER = "/api/v1/auth/broker-token";

describe("the shared error path", () => {
  let t: TestApp;
  before(async () => {
    // One app for the file: a small body limit and an SDK floor change nothing for ordinary calls.
    // Access logs on, so the redaction test below sees every request's lines.
    t = await startTestApp({
      bodyLimitBytes: 2048,
      minSdkVersions: { "@guard/server": "2.0.0" },
      accessLog: true,
    });
  });
  after(() => t.close());

  test("every response carries x-request-id; a sane caller id is kept, anything else replaced", async () => {
    const ok = await t.request({ method: "GET", url: "/healthz" });
    assert.equal(ok.statusCode, 200);
    assert.match(String(ok.headers["x-request-id"]), /^req_[A-Za-z0-9_-]{16}$/);

    const kept = await t.request({
      method: "GET",
      url: "/nope",
      headers: { "x-request-id": "edge-7f3a:42" },
    });
    assertApiError(kept, 404, "NOT_FOUND");
    assert.equal(kept.headers["x-request-id"], "edge-7f3a:42");

    for (const unsafe of ["has spaces", "x".repeat(129), "semi;colon", ""]) {
      const res = await t.request({ method: "GET", url: "/nope", headers: { "x-request-id": unsafe } });
      const body = assertApiError(res, 404, "NOT_FOUND");
      assert.notEqual(body.requestId, unsafe);
      assert.match(body.requestId, /^req_/);
    }

    const a = await t.request({ method: "GET", url: "/healthz" });
    const b = await t.request({ method: "GET", url: "/healthz" });
    assert.notEqual(a.headers["x-request-id"], b.headers["x-request-id"], "minted ids are unique");
  });

  test("malformed JSON is 400 VALIDATION_ERROR naming the body", async () => {
    for (const payload of ['{"organizationSlug": "acme",', "{'single': 'quotes'}", "nul", '{"a":1}}']) {
      const res = await t.request({
        method: "POST",
        url: SIGN_IN,
        headers: { "content-type": "application/json" },
        payload,
      });
      assertApiError(res, 400, "VALIDATION_ERROR", { field: "body", message: "Malformed JSON body" });
    }
  });

  test("keys that could poison prototypes are 400 naming the body, however they are spelled", async () => {
    const poisoned = [
      '{"organizationSlug": "acme", "__proto__": {"isAdmin": true}}',
      '{"organizationSlug": "acme", "\\u005f_proto__": {"isAdmin": true}}',
      '{"organizationSlug": "acme", "nested": {"constructor": {"prototype": {"isAdmin": true}}}}',
    ];
    for (const payload of poisoned) {
      const res = await t.request({
        method: "POST",
        url: SIGN_IN,
        headers: { "content-type": "application/json" },
        payload,
      });
      assertApiError(res, 400, "VALIDATION_ERROR", {
        field: "body",
        message: "The body must not contain __proto__ or constructor.prototype keys",
      });
    }
    // The words themselves are ordinary data.
    const res = await t.request({
      method: "POST",
      url: SIGN_IN,
      headers: { "content-type": "application/json" },
      payload: '{"organizationSlug": "__proto__", "email": "constructor@example.com", "password": "x"}',
    });
    assert.notEqual(res.json().field, "body", res.body);
  });

  test("JSON that is not an object is 400 naming the body", async () => {
    for (const payload of ["null", "[]", '"text"', "42"]) {
      const res = await t.request({
        method: "POST",
        url: SIGN_IN,
        headers: { "content-type": "application/json" },
        payload,
      });
      assertApiError(res, 400, "VALIDATION_ERROR", { field: "body" });
    }
  });

  test("a body in any other media type is 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const seeded = await seedOrganization(t);
    const cases: { contentType?: string; payload: string }[] = [
      { contentType: "text/plain", payload: JSON.stringify({ externalId: "u1" }) },
      { contentType: "application/x-www-form-urlencoded", payload: "externalId=u1" },
      { contentType: "multipart/form-data; boundary=x", payload: "--x\r\n\r\nu1\r\n--x--" },
      { contentType: "application/jsonp", payload: "{}" },
      { payload: JSON.stringify({ externalId: "u1" }) }, // a body with no Content-Type at all
    ];
    for (const { contentType, payload } of cases) {
      const headers: Record<string, string> = { ...bearer(seeded.apiKey) };
      if (contentType) headers["content-type"] = contentType;
      const res = await t.request({ method: "POST", url: BROKER, headers, payload });
      assertApiError(res, 415, "UNSUPPORTED_MEDIA_TYPE", { field: null });
    }
  });

  test("application/json with parameters or a +json suffix is accepted", async () => {
    const seeded = await seedOrganization(t);
    for (const contentType of [
      "application/json; charset=utf-8",
      "application/json;charset=UTF-8",
      "Application/JSON",
      "application/vnd.guard+json",
    ]) {
      const res = await t.request({
        method: "POST",
        url: BROKER,
        headers: { ...bearer(seeded.apiKey), "content-type": contentType },
        payload: JSON.stringify({ externalId: "user-1" }),
      });
      assert.equal(res.statusCode, 201, `${contentType}: ${res.body}`);
    }
  });

  test("a body over the limit is 413 PAYLOAD_TOO_LARGE", async () => {
    const seeded = await seedOrganization(t);
    const payload = JSON.stringify({ externalId: "x".repeat(3000) });
    assert.ok(Buffer.byteLength(payload) > t.config.bodyLimitBytes);
    const res = await t.request({
      method: "POST",
      url: BROKER,
      headers: { ...bearer(seeded.apiKey), "content-type": "application/json" },
      payload,
    });
    assertApiError(res, 413, "PAYLOAD_TOO_LARGE");

    // Just under the limit is parsed (and then fails validation on its own merits: externalId ≤ 200).
    const near = JSON.stringify({ externalId: "x".repeat(2000) });
    assert.ok(Buffer.byteLength(near) < t.config.bodyLimitBytes);
    const under = await t.request({
      method: "POST",
      url: BROKER,
      headers: { ...bearer(seeded.apiKey), "content-type": "application/json" },
      payload: near,
    });
    assertApiError(under, 400, "VALIDATION_ERROR", { field: "externalId" });
  });

  test("every kind of response carries x-request-id and nosniff", async () => {
    const json = { "content-type": "application/json" };
    const responses = {
      "a contract route": await t.request({ method: "GET", url: "/healthz" }),
      "the API reference": await t.request({ method: "GET", url: "/docs" }),
      "the API reference's document": await t.request({ method: "GET", url: "/docs/json" }),
      "no such route": await t.request({ method: "GET", url: "/nope" }),
      "a malformed body": await t.request({ method: "POST", url: SIGN_IN, payload: "{", headers: json }),
      "another content type": await t.request({
        method: "POST",
        url: SIGN_IN,
        payload: "x",
        headers: { "content-type": "text/plain" },
      }),
      "a body over the limit": await t.request({
        method: "POST",
        url: SIGN_IN,
        payload: JSON.stringify({ email: "x".repeat(4096) }),
        headers: json,
      }),
      "a malformed URL": await t.request({ method: "GET", url: "/api/v1/org/%zz" }),
      "a missing credential": await t.request({ method: "GET", url: "/api/v1/consent/gate/decisions" }),
    };
    for (const [kind, res] of Object.entries(responses)) {
      assert.match(String(res.headers["x-request-id"]), /^req_[A-Za-z0-9]{16}$/, kind);
      assert.equal(res.headers["x-content-type-options"], "nosniff", kind);
    }
    assert.equal(responses["the API reference's document"].statusCode, 200);
    assert.equal(responses["a missing credential"].statusCode, 401);
    assert.equal(responses["a body over the limit"].statusCode, 413);
  });

  test("an unknown route, or a known path with another method, is 404 NOT_FOUND", async () => {
    assertApiError(await t.request({ method: "GET", url: "/api/v1/no-such-thing" }), 404, "NOT_FOUND");
    assertApiError(await t.request({ method: "GET", url: "/api/v1/org/x/y/z?q=1" }), 404, "NOT_FOUND");
    assertApiError(await t.request({ method: "PUT", url: SIGN_IN }), 404, "NOT_FOUND");
    // A trailing slash is another path.
    assertApiError(await t.request({ method: "GET", url: "/healthz/" }), 404, "NOT_FOUND");
    const post = await t.request({ method: "POST", url: "/api/v1/nowhere", payload: { a: 1 } });
    assertApiError(post, 404, "NOT_FOUND");
  });

  test("a malformed URL or an overlong path segment is 400 VALIDATION_ERROR, not a framework body", async () => {
    for (const url of [
      "/api/v1/org/%zz",
      "/api/v1/notices/%E0%A4%A",
      `/api/v1/notices/ntc_${"a".repeat(300)}`,
    ]) {
      const res = await t.request({ method: "GET", url });
      assertApiError(res, 400, "VALIDATION_ERROR");
      assert.equal(res.headers["x-content-type-options"], "nosniff");
    }
  });

  test("validation errors name the field", async () => {
    const seeded = await seedOrganization(t);
    const { slug } = seeded.org;
    const signIn = (payload: Record<string, unknown>) => t.request({ method: "POST", url: SIGN_IN, payload });

    // Missing.
    assertApiError(await signIn({ organizationSlug: slug, email: "a@b.example" }), 400, "VALIDATION_ERROR", {
      field: "password",
      message: "password is required",
    });
    // Empty string: `minLength: 1`.
    assertApiError(
      await signIn({ organizationSlug: slug, email: "a@b.example", password: "" }),
      400,
      "VALIDATION_ERROR",
      { field: "password", message: "password must not be empty" },
    );
    assertApiError(
      await signIn({ organizationSlug: slug, email: "", password: "secret-secret" }),
      400,
      "VALIDATION_ERROR",
      { field: "email", message: "email must not be empty" },
    );
    // Wrong type: no coercion of body values ("5" is not 5, 5 is not "5").
    assertApiError(
      await signIn({ organizationSlug: slug, email: 12345, password: "secret-secret" }),
      400,
      "VALIDATION_ERROR",
      { field: "email", message: /email must be string/ },
    );
    assertApiError(
      await signIn({ organizationSlug: slug, email: "a@b.example", password: ["x"] }),
      400,
      "VALIDATION_ERROR",
      { field: "password" },
    );
    // Pattern and format.
    assertApiError(
      await signIn({ organizationSlug: "Not A Slug", email: "a@b.example", password: "secret-secret" }),
      400,
      "VALIDATION_ERROR",
      { field: "organizationSlug", message: "organizationSlug has an invalid format" },
    );
    assertApiError(
      await signIn({ organizationSlug: slug, email: "not-an-email", password: "secret-secret" }),
      400,
      "VALIDATION_ERROR",
      { field: "email" },
    );
    // Path parameters: the `Id` pattern.
    assertApiError(
      await t.request({ method: "GET", url: "/api/v1/notices/not-a-valid-id" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "noticeId",
        message: "noticeId has an invalid format",
      },
    );
    assertApiError(
      await t.request({ method: "GET", url: "/api/v1/org/ORG_123/notices" }),
      400,
      "VALIDATION_ERROR",
      { field: "orgId" },
    );
    assertApiError(await t.request({ method: "GET", url: "/api/v1/org/Bad_Slug" }), 400, "VALIDATION_ERROR", {
      field: "slug",
    });
    // Query parameters.
    assertApiError(
      await t.request({
        method: "GET",
        url: `/api/v1/org/${seeded.org.organizationId}/banner-config?domain=`,
      }),
      400,
      "VALIDATION_ERROR",
      { field: "domain", message: "domain must not be empty" },
    );
  });

  test("Content-Type: application/json with an empty body is accepted where no body is expected", async () => {
    const seeded = await seedOrganization(t);
    const json = { "content-type": "application/json" };
    const org = await t.request({
      method: "GET",
      url: `/api/v1/org/${seeded.org.slug}`,
      headers: json,
      payload: "",
    });
    assert.equal(org.statusCode, 200, org.body);
    const health = await t.request({ method: "GET", url: "/healthz", headers: json });
    assert.equal(health.statusCode, 200, health.body);

    const session = await signIn(t, seeded, "admin");
    const mine = await t.request({ method: "GET", url: SIGN_IN, headers: { ...session.headers, ...json } });
    assert.equal(mine.statusCode, 200, mine.body);
    const keys = await t.request({
      method: "GET",
      url: "/api/v1/staff/api-keys",
      headers: { ...session.headers, ...json },
    });
    assert.equal(keys.statusCode, 200, keys.body);
    // A 1.6.0 SDK's DELETE: JSON content type, explicit zero length.
    const out = await t.request({
      method: "DELETE",
      url: SIGN_IN,
      headers: { ...session.headers, ...json, "content-length": "0" },
      payload: "",
    });
    assert.equal(out.statusCode, 200, out.body);
    assert.deepEqual(out.json(), { signedOut: true });
  });

  test("a route that needs a body, sent none, is 400 naming the body", async () => {
    const seeded = await seedOrganization(t);
    for (const headers of [
      bearer(seeded.apiKey),
      { ...bearer(seeded.apiKey), "content-type": "application/json" },
    ]) {
      const res = await t.request({ method: "POST", url: BROKER, headers, payload: "" });
      assertApiError(res, 400, "VALIDATION_ERROR", { field: "body" });
    }
  });

  test("X-Guard-SDK below the floor is 426 SDK_VERSION_UNSUPPORTED; at or above it, or exempt paths, pass", async () => {
    const seeded = await seedOrganization(t);
    const call = (sdk: string, url = `/api/v1/org/${seeded.org.slug}`) =>
      t.request({ method: "GET", url, headers: { "x-guard-sdk": sdk } });

    for (const old of [
      "@guard/server/1.9.0",
      "@guard/server/1.99.99",
      "@guard/server/0.0.1",
      "@guard/server/2.0.0-beta.1",
    ]) {
      const res = await call(old);
      assert.equal(res.statusCode, 426, `${old}: ${res.body}`);
      const body = assertApiError(res, 426, "SDK_VERSION_UNSUPPORTED");
      assert.match(body.error, /2\.0\.0/, "the message names the floor");
    }
    // A write is refused before anything else happens.
    const refused = await t.request({
      method: "POST",
      url: BROKER,
      headers: { ...bearer(seeded.apiKey), "x-guard-sdk": "@guard/server/1.9.0" },
      payload: { externalId: "u1" },
    });
    assertApiError(refused, 426, "SDK_VERSION_UNSUPPORTED");

    for (const ok of [
      "@guard/server/2.0.0",
      "@guard/server/2.0.0+build.7",
      "@guard/server/2.0.1",
      "@guard/server/10.0.0",
      "@guard/web/1.0.0",
    ]) {
      assert.equal((await call(ok)).statusCode, 200, ok);
    }
    assert.equal((await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.slug}` })).statusCode, 200);
    // Probes and the contract stay reachable for any client.
    for (const url of ["/healthz", "/readyz", "/api/v1/openapi.json", "/healthz?probe=1"]) {
      assert.equal((await call("@guard/server/1.0.0", url)).statusCode, 200, url);
    }
  });

  test("logs never hold an API key, principal token, password, session cookie or CSRF token", async () => {
    const seeded = await seedOrganization(t);
    const admin = seeded.staff.admin;
    const before = t.logs.length;
    const json = { "content-type": "application/json" };

    // Sign-in: a success and a failure, each with a password in the body.
    const session = await signIn(t, seeded, "admin");
    const wrongPassword = `wrong-${admin.password}`;
    const failedSignIn = await t.request({
      method: "POST",
      url: SIGN_IN,
      payload: { organizationSlug: seeded.org.slug, email: admin.email, password: wrongPassword },
    });
    assert.equal(failedSignIn.statusCode, 401);
    // Malformed JSON around a password, and a password of the wrong type.
    const malformedPassword = "malformed-json-password-1234";
    await t.request({
      method: "POST",
      url: SIGN_IN,
      headers: json,
      payload: `{"password":"${malformedPassword}",`,
    });
    const arrayPassword = "array-password-5678";
    await t.request({
      method: "POST",
      url: SIGN_IN,
      payload: { organizationSlug: seeded.org.slug, email: admin.email, password: [arrayPassword] },
    });

    // Cookie: used, used wrongly (no CSRF), and a bogus one.
    assert.equal(
      (await t.request({ method: "GET", url: SIGN_IN, headers: session.headers })).statusCode,
      200,
    );
    const noCsrf = await t.request({
      method: "POST",
      url: "/api/v1/staff/api-keys",
      headers: { cookie: session.headers.cookie! },
      payload: { name: "x" },
    });
    assert.equal(noCsrf.statusCode, 403);
    const bogusCookie = "bogusSessionCookieValue0123456789";
    await t.request({ method: "GET", url: SIGN_IN, headers: { cookie: `guard_session=${bogusCookie}` } });

    // API key: created (shown once in a response body), used, and used after revocation.
    const created = await t.request({
      method: "POST",
      url: "/api/v1/staff/api-keys",
      headers: session.headers,
      payload: { name: "logged" },
    });
    assert.equal(created.statusCode, 201);
    const { key: createdKey, apiKeyId } = created.json() as { key: string; apiKeyId: string };
    const brokered = await t.request({
      method: "POST",
      url: BROKER,
      headers: bearer(createdKey),
      payload: { externalId: "user-1" },
    });
    assert.equal(brokered.statusCode, 201);
    const { accessToken } = brokered.json() as { accessToken: string };
    await t.request({
      method: "DELETE",
      url: `/api/v1/staff/api-keys/${apiKeyId}`,
      headers: session.headers,
    });
    assert.equal(
      (
        await t.request({
          method: "POST",
          url: BROKER,
          headers: bearer(createdKey),
          payload: { externalId: "u" },
        })
      ).statusCode,
      401,
    );
    const unknownKey = "gk_live_unknownUnknownUnknownUnknown0123456";
    await t.request({
      method: "POST",
      url: BROKER,
      headers: bearer(unknownKey),
      payload: { externalId: "u" },
    });

    // Principal token: where a service key is required, on an unknown route, and in a query string.
    await t.request({
      method: "POST",
      url: BROKER,
      headers: bearer(accessToken),
      payload: { externalId: "u" },
    });
    await t.request({ method: "GET", url: "/api/v1/nowhere", headers: bearer(accessToken) });
    await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.slug}?token=${accessToken}` });
    await t.request({ method: "GET", url: `/api/v1/org/${seeded.org.slug}?key=${seeded.apiKey}` });
    // The seeded key over a too-large body and a wrong media type.
    await t.request({
      method: "POST",
      url: BROKER,
      headers: { ...bearer(seeded.apiKey), ...json },
      payload: JSON.stringify({ externalId: seeded.apiKey.repeat(60) }),
    });
    await t.request({
      method: "POST",
      url: BROKER,
      headers: { ...bearer(seeded.apiKey), "content-type": "text/plain" },
      payload: seeded.apiKey,
    });

    const logged = t.logs.slice(before).join("\n");
    // The logs were captured at all (so an absent secret means something).
    assert.ok(logged.includes(String(brokered.headers["x-request-id"])), "requests are logged");
    assert.ok(logged.includes("/api/v1/auth/broker-token"));
    const secrets: Record<string, string> = {
      "staff password": admin.password,
      "wrong password": wrongPassword,
      "password in malformed JSON": malformedPassword,
      "password of the wrong type": arrayPassword,
      "session cookie": session.cookie,
      "bogus cookie": bogusCookie,
      "CSRF token": session.csrfToken,
      "seeded API key": seeded.apiKey,
      "created API key": createdKey,
      "unknown API key": unknownKey,
      "principal token": accessToken,
      "principal token signature": accessToken.split(".")[2]!,
    };
    for (const [what, secret] of Object.entries(secrets)) {
      assert.ok(!logged.includes(secret), `the ${what} appears in the logs`);
    }
  });
});

// With access logs on at info Fastify logs every request itself; otherwise (the default, or a level
// above info) the app gives Fastify no logger and makes request loggers from its own
// (http/logging.ts). Faults must be logged the same way either way.
for (const { level, accessLog } of [
  { level: "info", accessLog: false },
  { level: "info", accessLog: true },
  { level: "warn", accessLog: true },
] as const) {
  describe(`internal errors (log level ${level}, access log ${accessLog ? "on" : "off"})`, () => {
    let app: FastifyInstance;
    let dispose: () => Promise<void>;
    const logs: string[] = [];

    // An app whose getHealth and getReadiness handlers fail, standing in for any unexpected fault.
    const failingRoutes: RouteModule = ({ db }) => [
      {
        operationId: "getHealth",
        handler: async () => {
          throw new Error("disk on fire at /var/lib/guard/secret-path");
        },
      },
      {
        operationId: "getReadiness",
        handler: async () => {
          await db.query("SELECT * FROM table_that_does_not_exist");
          return { status: "ok" };
        },
      },
      {
        operationId: "getOpenApiDocument",
        handler: async () => {
          throw "a thrown string, not an Error";
        },
      },
    ];

    before(async () => {
      const opened = await openTestDatabase();
      dispose = opened.dispose;
      app = await createApp({
        config: testConfig({ logLevel: level, accessLog }),
        db: opened.db,
        clock: new ManualClock(),
        routes: [failingRoutes],
        checkResponses: true,
        logStream: { write: (line: string) => void logs.push(line) },
      });
    });
    after(async () => {
      await app.close();
      await dispose();
    });

    test("a fault is 500 INTERNAL_ERROR with a generic message, logged under the request id", async () => {
      const cases = [
        { url: "/healthz", detail: "disk on fire" },
        { url: "/readyz", detail: "table_that_does_not_exist" },
        { url: "/api/v1/openapi.json", detail: "a thrown string" },
      ];
      for (const { url, detail } of cases) {
        const res = await app.inject({ method: "GET", url });
        const body = assertApiError(res, 500, "INTERNAL_ERROR", { field: null });
        assert.ok(!res.body.includes(detail), `the response hides the fault: ${res.body}`);
        assert.ok(!/stack|\.ts:\d+/.test(res.body), "no stack trace in the response");
        assert.match(body.error, /requestId/, "the message says to quote the request id");

        const entries = logs
          .map((line) => JSON.parse(line) as Record<string, unknown>)
          .filter((entry) => entry.reqId === body.requestId && Number(entry.level) >= 50);
        assert.equal(entries.length, 1, `one error log line for ${url}`);
        assert.ok(JSON.stringify(entries[0]).includes(detail), `the log holds the fault for ${url}`);
      }
    });

    test("a route missing from this app is still 404, not 500", async () => {
      const res = await app.inject({ method: "GET", url: "/api/v1/org/acme" });
      assertApiError(res, 404, "NOT_FOUND");
    });
    test("each request is logged as it comes and goes only with access logs on at info", async () => {
      const res = await app.inject({ method: "GET", url: "/api/v1/org/acme" });
      const requestId = String(res.headers["x-request-id"]);
      const lines = logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((e) => e.reqId === requestId);
      assert.deepEqual(
        lines.map((entry) => entry.msg),
        level === "info" && accessLog ? ["incoming request", "request completed"] : [],
      );
    });

    test("the service logger writes where the request loggers do", async () => {
      app.serviceLog.error({ sweep: "test" }, "service-level failure");
      assert.ok(logs.some((line) => JSON.parse(line).msg === "service-level failure"));
    });
  });
}

describe("the access-log switch", () => {
  const base = {
    GUARD_TOKEN_SECRET: "test-token-secret-test-token-secret-0123456789",
    GUARD_AUDIT_HASH_KEYS: "1:test-audit-secret-test-audit-secret-0123456789",
    GUARD_SECRETS_KEY: "test-secrets-key-test-secrets-key-0123456789",
  };

  test("GUARD_ACCESS_LOG is off unless set, and anything but a yes or a no is refused", () => {
    const shipped = loadConfig(base);
    assert.deepEqual([shipped.logLevel, shipped.accessLog], ["info", false]);
    for (const on of ["on", "true", "1", "YES"])
      assert.equal(loadConfig({ ...base, GUARD_ACCESS_LOG: on }).accessLog, true);
    for (const off of ["off", "false", "0", "no", ""])
      assert.equal(loadConfig({ ...base, GUARD_ACCESS_LOG: off }).accessLog, false);
    assert.throws(() => loadConfig({ ...base, GUARD_ACCESS_LOG: "sometimes" }), ConfigError);
  });
});
