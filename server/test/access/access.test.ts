// The access check as one function: a request the instance's caches can answer (a known service
// key, its organisation's switches) is answered synchronously, without a promise; anything else
// takes the same checks with reads; refusals are the same either way. Routes go through it in
// every other test; here it is called directly to see which way it answered.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createAccessPolicy } from "../../src/access/access.js";
import { ApiKeyCache } from "../../src/accounts/api-keys.js";
import { CapabilityCache, setCapabilities } from "../../src/capabilities/capabilities.js";
import { InvalidationFeed } from "../../src/db/invalidation.js";
import type { Credential } from "../../src/lib/credentials.js";
import { Failure } from "../../src/lib/failure.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("access check", () => {
  let t: TestApp;
  let org: SeededOrg;
  let feed: InvalidationFeed;
  let capabilities: CapabilityCache;
  let policy: ReturnType<typeof createAccessPolicy>;

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    feed = await InvalidationFeed.open(t.db);
    capabilities = new CapabilityCache(feed);
    policy = createAccessPolicy({
      config: t.config,
      db: t.db,
      clock: t.clock,
      apiKeys: new ApiKeyCache(feed),
      capabilities,
    });
  });
  after(async () => {
    await feed.close();
    await t.close();
  });

  const gateRequest = (apiKey: string) => ({
    method: "POST",
    url: "/api/v1/consent/verify",
    headers: bearer(apiKey),
    params: {},
    query: {},
    body: { consentId: "cns_unknown" },
  });
  const isFailure = (code: string) => (error: unknown) => error instanceof Failure && error.code === code;

  test("a cached service key of an organisation with cached switches passes without a promise", async () => {
    const check = policy.checkFor({ operationId: "verifyConsentGate", security: ["serviceKey"] });
    const first = check(gateRequest(org.apiKey));
    assert.ok(first instanceof Promise, "the first request reads the key and the switches");
    const credential = (await first) as Credential;
    assert.equal(credential.kind, "service");
    assert.equal(credential.organizationId, org.org.organizationId);

    const second = check(gateRequest(org.apiKey));
    assert.ok(!(second instanceof Promise), "answered from the caches");
    assert.deepEqual(second, credential);
    // The routes' own question about a secondary capability is answered from the same cache.
    assert.equal(capabilities.enabled(t.db, org.org.organizationId, "consent_gate_decision_audit"), true);
  });

  test("a switched-off capability is refused on the cached path as on the read path", async () => {
    const check = policy.checkFor({ operationId: "verifyConsentGate", security: ["serviceKey"] });
    await check(gateRequest(org.apiKey));
    await t.db.transaction((tx) => setCapabilities(tx, org.org.organizationId, { consent_gate: false }));
    try {
      // The switch dropped the cached switches: read again, then answered from the cache. On a
      // PostgreSQL server the switch's notification comes back a moment later and drops them once
      // more, so the cached answer is the one that comes once reads have stopped being needed.
      await assert.rejects(async () => check(gateRequest(org.apiKey)), isFailure("NOT_FOUND"));
      const answerNow = () => {
        try {
          return { answer: check(gateRequest(org.apiKey)) };
        } catch (error) {
          return { error };
        }
      };
      let refusedFromCache = false;
      for (let attempt = 0; attempt < 50 && !refusedFromCache; attempt++) {
        const { answer, error } = answerNow();
        if (error !== undefined) {
          assert.ok(isFailure("NOT_FOUND")(error), String(error));
          refusedFromCache = true;
        } else {
          assert.ok(answer instanceof Promise, "a switched-off capability never lets a request through");
          await assert.rejects(answer, isFailure("NOT_FOUND"));
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      assert.ok(refusedFromCache, "the cached path refuses without a read");
      assert.equal(capabilities.enabled(t.db, org.org.organizationId, "consent_gate"), false);
    } finally {
      await t.db.transaction((tx) => setCapabilities(tx, org.org.organizationId, { consent_gate: true }));
    }
  });

  test("refusals: no credential, an unknown key, a staff role not allowed", async () => {
    const check = policy.checkFor({ operationId: "verifyConsentGate", security: ["serviceKey"] });
    await assert.rejects(
      async () => check({ ...gateRequest(org.apiKey), headers: {} }),
      isFailure("UNAUTHORIZED"),
    );
    await assert.rejects(
      async () => check(gateRequest(`gk_live_${"x".repeat(40)}`)),
      isFailure("UNAUTHORIZED"),
    );
    const session = await t.request({
      method: "POST",
      url: "/api/v1/staff/session",
      payload: { organizationSlug: org.org.slug, ...org.staff.viewer },
    });
    const cookie = session.cookies.find((c) => c.name === "guard_session")!;
    const adminOnly = policy.checkFor({
      operationId: "setCapabilities",
      security: ["staffSession"],
      roles: ["admin"],
    });
    await assert.rejects(
      async () =>
        adminOnly({
          method: "GET",
          url: "/api/v1/staff/capabilities",
          headers: { cookie: `guard_session=${cookie.value}` },
          params: {},
          query: {},
          body: undefined,
        }),
      isFailure("FORBIDDEN"),
    );
  });

  test("a public operation with no capability needs nothing; a gated one without an organisation source fails at registration", () => {
    const open = policy.checkFor({ operationId: "getHealth", security: [] });
    assert.equal(
      open({ method: "GET", url: "/healthz", headers: {}, params: {}, query: {}, body: undefined }),
      undefined,
    );
    assert.throws(
      () => policy.checkFor({ operationId: "recordConsent", security: [] }),
      /PUBLIC_ORG_SOURCES/,
    );
  });
});
