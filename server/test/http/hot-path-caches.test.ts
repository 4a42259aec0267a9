// The per-instance caches of API keys and capabilities (db/read-through-cache.ts) against a second
// instance of the service on the same database: a revocation or a capability switch made through
// one instance is honoured by the other, and a missed notification cannot leave a revoked key
// usable.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/accounts/api-keys.js";
import { newId, randomBase62 } from "../../src/lib/ids.js";
import { sha256Hex } from "../../src/lib/secrets.js";
import { anonymousConsent, publishTestNotice } from "../support/consent-fixtures.js";
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

describe("hot-path caches across instances", () => {
  let a: TestApp;
  let b: TestApp;
  let org: SeededOrg;
  let consentId: string;
  let noticeId: string;

  before(async () => {
    a = await startTestApp();
    b = await startSecondInstance(a);
    org = await seedOrganization(a);
    const notice = await publishTestNotice(a, org);
    noticeId = notice.noticeId;
    const res = await anonymousConsent(a, {
      organizationId: org.org.organizationId,
      noticeId: notice.noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: "guest-cache",
    });
    assert.equal(res.statusCode, 201, res.body);
    consentId = res.json().consentId;
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  const verifyOn = (instance: TestApp, apiKey: string) =>
    instance.request({
      method: "POST",
      url: "/api/v1/consent/verify",
      headers: bearer(apiKey),
      payload: { consentId },
    });

  /** Revokes a key the way staff do, through instance A's route. */
  async function revokeThroughA(apiKeyId: string) {
    const admin = await signIn(a, org, "admin");
    const revoked = await a.request({
      method: "DELETE",
      url: `/api/v1/staff/api-keys/${apiKeyId}`,
      headers: admin.headers,
    });
    assert.equal(revoked.statusCode, 200, revoked.body);
  }

  /** Switches a capability the way staff do, through instance A's route. */
  async function switchThroughA(capability: string, enabled: boolean) {
    const admin = await signIn(a, org, "admin");
    return a.request({
      method: "PUT",
      url: "/api/v1/staff/capabilities",
      headers: admin.headers,
      payload: { capabilities: { [capability]: enabled } },
    });
  }

  async function newKey(name: string) {
    return createApiKey(
      a.db,
      { organizationId: org.org.organizationId, name, createdBy: null },
      a.clock.now(),
    );
  }

  test("a key revoked through one instance is refused at once there and promptly by the other", async () => {
    const key = await newKey("revoke-me");
    // Both instances have now cached the key.
    assert.equal((await verifyOn(a, key.key)).statusCode, 200);
    assert.equal((await verifyOn(b, key.key)).statusCode, 200);
    await revokeThroughA(key.apiKeyId);
    assert.equal((await verifyOn(a, key.key)).statusCode, 401, "the revoking instance never serves it again");
    assert.ok(
      await eventually(async () => (await verifyOn(b, key.key)).statusCode === 401),
      "the other instance refuses it once the revocation's notification arrives",
    );
    // Other keys of the organisation keep working.
    assert.equal((await verifyOn(b, org.apiKey)).statusCode, 200);
  });

  test("revoking a key ends the principal sessions it brokered, on every instance", async () => {
    const key = await newKey("broker");
    const brokered = await a.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: bearer(key.key),
      payload: { externalId: "customer-revoked-broker" },
    });
    assert.equal(brokered.statusCode, 201, brokered.body);
    const { accessToken } = brokered.json();
    const viaOther = await a.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: bearer(org.apiKey),
      payload: { externalId: "customer-other-broker" },
    });
    const listOn = (instance: TestApp, token: string) =>
      instance.request({ method: "GET", url: "/api/v1/dsr", headers: bearer(token) });
    assert.equal((await listOn(a, accessToken)).statusCode, 200);
    assert.equal((await listOn(b, accessToken)).statusCode, 200);
    await revokeThroughA(key.apiKeyId);
    const refused = await listOn(a, accessToken);
    assert.equal(refused.statusCode, 401);
    assert.match(refused.json().error, /revoked/);
    assert.ok(await eventually(async () => (await listOn(b, accessToken)).statusCode === 401));
    // A token brokered by a key still active is unaffected.
    assert.equal((await listOn(b, viaOther.json().accessToken)).statusCode, 200);
  });

  test("an unknown key is not remembered as unknown: once it exists, it works at once", async () => {
    const chosen = `gk_live_${randomBase62(40)}`;
    assert.equal((await verifyOn(b, chosen)).statusCode, 401);
    // The key comes into existence behind the caches' back (no announcement is made on creation).
    await a.db.query(
      `INSERT INTO api_keys (organization_id, api_key_id, name, prefix, key_hash, created_at)
       VALUES ($1, $2, 'chosen', $3, $4, $5)`,
      [org.org.organizationId, newId("key"), chosen.slice(0, 16), sha256Hex(chosen), a.clock.now()],
    );
    assert.equal((await verifyOn(b, chosen)).statusCode, 200);
  });

  test("a capability switched through one instance applies on the other", async () => {
    const setGate = (enabled: boolean) => switchThroughA("consent_gate", enabled);
    assert.equal((await verifyOn(b, org.apiKey)).statusCode, 200);
    assert.equal((await setGate(false)).statusCode, 200);
    assert.equal((await verifyOn(a, org.apiKey)).statusCode, 404);
    assert.ok(await eventually(async () => (await verifyOn(b, org.apiKey)).statusCode === 404));
    assert.equal((await setGate(true)).statusCode, 200);
    assert.ok(await eventually(async () => (await verifyOn(b, org.apiKey)).statusCode === 200));
  });

  test("public routes read the switches through the same cache, and a switch reaches them on every instance", async () => {
    const setMobileApi = (enabled: boolean) => switchThroughA("mobile_api", enabled);
    // One route naming the organisation by id, one naming a notice (mapped to its organisation once).
    const urls = [`/api/v1/org/${org.org.organizationId}/banner-config`, `/api/v1/notices/${noticeId}`];
    const statuses = async (instance: TestApp) =>
      Promise.all(urls.map(async (url) => (await instance.request({ method: "GET", url })).statusCode));
    const all = (status: number) => urls.map(() => status);
    // Both instances have now cached what these unauthenticated requests read.
    assert.deepEqual(await statuses(a), all(200));
    assert.deepEqual(await statuses(b), all(200));
    assert.equal((await setMobileApi(false)).statusCode, 200);
    try {
      assert.deepEqual(await statuses(a), all(404), "the switching instance applies it at once");
      assert.ok(
        await eventually(async () => (await statuses(b)).every((s) => s === 404)),
        "the other once notified",
      );
    } finally {
      assert.equal((await setMobileApi(true)).statusCode, 200);
    }
    assert.ok(await eventually(async () => (await statuses(b)).every((s) => s === 200)));
    assert.deepEqual(await statuses(a), all(200));
  });

  test("after the listening session drops, a revocation it never heard of still takes effect", async (ctx) => {
    if (!a.databaseUrl) {
      ctx.skip("PGlite notifications are in-process and cannot be missed");
      return;
    }
    const key = await newKey("missed");
    assert.equal((await verifyOn(b, key.key)).statusCode, 200, "cached on b");
    // Cut every listening session of this database (b's included), then revoke behind Guard's
    // back, so no notification is ever sent. Only reading through while disconnected and
    // forgetting everything on reconnecting can make b notice before the entry expires.
    await a.db.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN %' AND pid <> pg_backend_pid()`,
    );
    await a.db.query("UPDATE api_keys SET revoked_at = $2 WHERE api_key_id = $1", [
      key.apiKeyId,
      a.clock.now(),
    ]);
    assert.ok(
      await eventually(async () => (await verifyOn(b, key.key)).statusCode === 401),
      "b stops accepting the key",
    );
    // And b recovers: its listener reconnects and the caches work again for live keys.
    assert.equal((await verifyOn(b, org.apiKey)).statusCode, 200);
  });
});
