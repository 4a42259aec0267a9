// Browser access (CORS): public and principal-token routes grant the origins whose host one of the
// organisation's registered domains names (any port), and only those; service-key and staff routes
// never grant; a cross-origin write from an origin the organisation did not register is refused
// before it runs; http is refused in production except on loopback; registrations made or removed
// while running are honoured at once, on every instance.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { anonymousConsent, countRows, principal, publishTestNotice } from "../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { eventually } from "../support/polling.js";

const SHOP_A = "http://shop-a.test:8080";
const SHOP_A_OTHER_PORT = "http://shop-a.test:3000";
const SHOP_B = "https://shop-b.test";
const STRANGER = "https://evil.test";

const allowOrigin = (res: LightMyRequestResponse) => res.headers["access-control-allow-origin"];

async function registerDomain(t: TestApp, seeded: SeededOrg, domain: string): Promise<void> {
  const admin = await signIn(t, seeded, "admin");
  const res = await t.request({
    method: "PUT",
    url: `/api/v1/staff/domains/${domain}`,
    headers: admin.headers,
  });
  assert.ok(res.statusCode < 300, res.body);
}

async function removeDomain(t: TestApp, seeded: SeededOrg, domain: string): Promise<void> {
  const admin = await signIn(t, seeded, "admin");
  const res = await t.request({
    method: "DELETE",
    url: `/api/v1/staff/domains/${domain}`,
    headers: admin.headers,
  });
  assert.ok(res.statusCode < 300, res.body);
}

describe("browser access (CORS)", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let noticeA: string;

  const consentBody = (organizationId: string, anonymousId: string) => ({
    organizationId,
    noticeId: noticeA,
    purpose: "Account",
    dataTypes: ["email"],
    anonymousId,
  });

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    noticeA = (await publishTestNotice(t, a)).noticeId;
    await registerDomain(t, a, "shop-a.test");
    await registerDomain(t, b, "shop-b.test");
  });
  after(() => t.close());

  test("a registered domain on any port is granted on public reads", async () => {
    for (const origin of [SHOP_A, SHOP_A_OTHER_PORT]) {
      for (const url of [`/api/v1/org/${a.org.slug}`, `/api/v1/org/${a.org.organizationId}/notices`]) {
        const res = await t.request({ method: "GET", url, headers: { origin } });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(allowOrigin(res), origin, url);
        assert.equal(res.headers.vary, "Origin");
        assert.match(String(res.headers["access-control-expose-headers"]), /x-request-id/);
        assert.equal(res.headers["access-control-allow-credentials"], undefined);
      }
    }
  });

  test("an anonymous consent from a registered origin is granted and recorded", async () => {
    const res = await anonymousConsent(t, consentBody(a.org.organizationId, "cors-guest-1"), {
      origin: SHOP_A,
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(allowOrigin(res), SHOP_A);
  });

  test("principal-token routes grant the principal's organisation's domains", async () => {
    const user = await principal(t, a);
    const list = await t.request({
      method: "GET",
      url: "/api/v1/dsr",
      headers: { ...bearer(user.accessToken), origin: SHOP_A },
    });
    assert.equal(list.statusCode, 200, list.body);
    assert.equal(allowOrigin(list), SHOP_A);
    const filed = await t.request({
      method: "POST",
      url: "/api/v1/grievances",
      headers: { ...bearer(user.accessToken), origin: SHOP_A_OTHER_PORT },
      payload: { organizationId: a.org.organizationId, subject: "Banner", description: "A question" },
    });
    assert.equal(filed.statusCode, 201, filed.body);
    assert.equal(allowOrigin(filed), SHOP_A_OTHER_PORT);
    // Another organisation's domain: read answered without a grant, a write refused unrun.
    const foreign = await t.request({
      method: "GET",
      url: "/api/v1/dsr",
      headers: { ...bearer(user.accessToken), origin: SHOP_B },
    });
    assert.equal(foreign.statusCode, 200);
    assert.equal(allowOrigin(foreign), undefined);
    const before = await countRows(t, "grievances", a.org.organizationId);
    const write = await t.request({
      method: "POST",
      url: "/api/v1/grievances",
      headers: { ...bearer(user.accessToken), origin: SHOP_B },
      payload: { organizationId: a.org.organizationId, subject: "x", description: "y" },
    });
    assert.equal(write.statusCode, 403, write.body);
    assert.equal(write.json().code, "FORBIDDEN");
    assert.equal(allowOrigin(write), undefined);
    assert.equal(await countRows(t, "grievances", a.org.organizationId), before);
  });

  test("an error on a granting route is readable from a registered origin", async () => {
    const res = await t.request({ method: "GET", url: "/api/v1/dsr", headers: { origin: SHOP_A } });
    assert.equal(res.statusCode, 401);
    assert.equal(allowOrigin(res), SHOP_A);
    assert.equal(res.json().code, "UNAUTHORIZED");
  });

  test("a preflight is granted for a registered origin and a method the path grants", async () => {
    const res = await t.request({
      method: "OPTIONS",
      url: "/api/v1/consents/anonymous",
      headers: {
        origin: SHOP_A,
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, idempotency-key",
      },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, "");
    assert.equal(allowOrigin(res), SHOP_A);
    assert.match(String(res.headers["access-control-allow-methods"]), /POST/);
    assert.match(String(res.headers["access-control-allow-headers"]), /idempotency-key/);
    assert.match(String(res.headers["access-control-allow-headers"]), /authorization/);
    assert.ok(Number(res.headers["access-control-max-age"]) > 0);

    const principalPreflight = await t.request({
      method: "OPTIONS",
      url: "/api/v1/nomination",
      headers: { origin: SHOP_B, "access-control-request-method": "PUT" },
    });
    assert.equal(principalPreflight.statusCode, 204);
    assert.equal(allowOrigin(principalPreflight), SHOP_B);

    // An OPTIONS that is not a preflight is still no route.
    const plain = await t.request({ method: "OPTIONS", url: "/api/v1/consents/anonymous" });
    assert.equal(plain.statusCode, 404);
    assert.equal(plain.json().code, "NOT_FOUND");
  });

  test("an unregistered origin gets no grant, and its writes are refused before they run", async () => {
    const preflight = await t.request({
      method: "OPTIONS",
      url: "/api/v1/consents/anonymous",
      headers: { origin: STRANGER, "access-control-request-method": "POST" },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(allowOrigin(preflight), undefined);

    const read = await t.request({
      method: "GET",
      url: `/api/v1/org/${a.org.slug}`,
      headers: { origin: STRANGER },
    });
    assert.equal(read.statusCode, 200);
    assert.equal(allowOrigin(read), undefined);
    assert.equal(read.headers.vary, "Origin");

    const before = await countRows(t, "consents", a.org.organizationId);
    const write = await anonymousConsent(t, consentBody(a.org.organizationId, "cors-stranger"), {
      origin: STRANGER,
    });
    assert.equal(write.statusCode, 403, write.body);
    assert.equal(write.json().code, "FORBIDDEN");
    assert.equal(write.json().field, "Origin");
    assert.equal(await countRows(t, "consents", a.org.organizationId), before);
  });

  test("another organisation's registered origin is not granted against this one", async () => {
    const read = await t.request({
      method: "GET",
      url: `/api/v1/org/${a.org.organizationId}/notices`,
      headers: { origin: SHOP_B },
    });
    assert.equal(read.statusCode, 200);
    assert.equal(allowOrigin(read), undefined);
    const bySlug = await t.request({
      method: "GET",
      url: `/api/v1/org/${a.org.slug}`,
      headers: { origin: SHOP_B },
    });
    assert.equal(allowOrigin(bySlug), undefined);
    // The preflight cannot tell (no body): it grants, and the actual write is refused.
    const preflight = await t.request({
      method: "OPTIONS",
      url: "/api/v1/consents/anonymous",
      headers: { origin: SHOP_B, "access-control-request-method": "POST" },
    });
    assert.equal(allowOrigin(preflight), SHOP_B);
    const write = await anonymousConsent(t, consentBody(a.org.organizationId, "cors-cross-tenant"), {
      origin: SHOP_B,
    });
    assert.equal(write.statusCode, 403, write.body);
    assert.equal(allowOrigin(write), undefined);
  });

  test("service-key and staff routes never grant", async () => {
    const admin = await signIn(t, a, "admin");
    const staffRead = await t.request({
      method: "GET",
      url: "/api/v1/staff/domains",
      headers: { ...admin.headers, origin: SHOP_A },
    });
    assert.equal(staffRead.statusCode, 200, staffRead.body);
    assert.equal(allowOrigin(staffRead), undefined);

    const signInRes = await t.request({
      method: "POST",
      url: "/api/v1/staff/session",
      headers: { origin: SHOP_A },
      payload: { organizationSlug: a.org.slug, ...a.staff.viewer },
    });
    assert.equal(signInRes.statusCode, 201, signInRes.body);
    assert.equal(allowOrigin(signInRes), undefined);

    const broker = await t.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: { ...bearer(a.apiKey), origin: SHOP_A },
      payload: { externalId: "cors-service" },
    });
    assert.equal(broker.statusCode, 201, broker.body);
    assert.equal(allowOrigin(broker), undefined);
    assert.equal(broker.headers.vary, undefined);

    for (const url of ["/api/v1/staff/domains", "/api/v1/auth/broker-token", "/api/v1/consent/verify"]) {
      const preflight = await t.request({
        method: "OPTIONS",
        url,
        headers: { origin: SHOP_A, "access-control-request-method": "POST" },
      });
      assert.equal(preflight.statusCode, 404, url);
      assert.equal(preflight.json().code, "NOT_FOUND");
      assert.equal(allowOrigin(preflight), undefined);
    }
  });

  test("a request from Guard's own origin needs no grant and is not refused", async () => {
    const res = await anonymousConsent(t, consentBody(a.org.organizationId, "cors-same-origin"), {
      origin: "http://guard.example:8700",
      host: "guard.example:8700",
    });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(allowOrigin(res), undefined);
  });

  test("a domain registered or removed while running is honoured at once, on every instance", async () => {
    const second = await startSecondInstance(t);
    try {
      const late = "http://late-a.test:5000";
      const probe = (instance: TestApp) =>
        instance.request({ method: "GET", url: `/api/v1/org/${a.org.slug}`, headers: { origin: late } });
      // Both instances cache the refusal first.
      assert.equal(allowOrigin(await probe(t)), undefined);
      assert.equal(allowOrigin(await probe(second)), undefined);

      await registerDomain(t, a, "late-a.test");
      assert.equal(allowOrigin(await probe(t)), late);
      assert.ok(await eventually(async () => allowOrigin(await probe(second)) === late));

      await removeDomain(t, a, "late-a.test");
      assert.equal(allowOrigin(await probe(t)), undefined);
      assert.ok(await eventually(async () => allowOrigin(await probe(second)) === undefined));
    } finally {
      await second.close();
    }
  });
});

describe("browser access in production", () => {
  let t: TestApp;
  let a: SeededOrg;

  before(async () => {
    t = await startTestApp({ production: true });
    a = await seedOrganization(t);
    for (const domain of ["shop.test", "localhost", "127.0.0.1"]) await registerDomain(t, a, domain);
  });
  after(() => t.close());

  const origin = async (value: string) =>
    allowOrigin(
      await t.request({ method: "GET", url: `/api/v1/org/${a.org.slug}`, headers: { origin: value } }),
    );

  test("https is required outside loopback", async () => {
    assert.equal(await origin("https://shop.test"), "https://shop.test");
    assert.equal(await origin("https://shop.test:8443"), "https://shop.test:8443");
    assert.equal(await origin("http://shop.test"), undefined);
    assert.equal(await origin("http://localhost:5173"), "http://localhost:5173");
    assert.equal(await origin("http://127.0.0.1:5173"), "http://127.0.0.1:5173");
  });

  test("malformed and opaque origins are never granted", async () => {
    for (const value of ["null", "shop.test", "https://shop.test/path", "ftp://shop.test", "https://"])
      assert.equal(await origin(value), undefined, value);
  });
});
