// Per-organisation capabilities: on by default, switched by an admin, and a switched-off
// capability's routes answer 404 NOT_FOUND exactly as an unknown route does, on public,
// service-key, principal and staff routes alike, for that organisation only.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { loadOpenApiDocument } from "@guard/contract";
import { assertCapabilityResolvable } from "../../src/access/public-organizations.js";
import { readCapabilitySwitches } from "../../src/accounts/store.js";
import {
  CAPABILITIES,
  CAPABILITY_NAMES,
  builtCapabilities,
  capabilityForOperation,
  isOn,
} from "../../src/capabilities/capabilities.js";
import { contractOperation, contractOperations } from "../../src/http/contract.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { assertApiError } from "../support/api-error.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { ok, staffClient } from "../support/staff-client.js";

type Capability = { name: string; enabled: boolean; description: string; operations: string[] };

describe("capabilities", () => {
  let t: TestApp;
  let staff: ReturnType<typeof staffClient>;
  before(async () => {
    t = await startTestApp();
    staff = staffClient(t);
  });
  after(() => t.close());

  const setCapabilities = (seeded: SeededOrg, capabilities: Record<string, boolean>) =>
    staff(seeded, "admin", "PUT", "/api/v1/staff/capabilities", { capabilities });
  const switchTo = async (seeded: SeededOrg, capabilities: Record<string, boolean>) => {
    const { capabilities: after } = ok<{ capabilities: Capability[] }>(
      await setCapabilities(seeded, capabilities),
    );
    for (const [name, enabled] of Object.entries(capabilities)) {
      assert.equal(after.find((c) => c.name === name)?.enabled, enabled, name);
    }
  };
  /** Whether the capability is on, as stored. */
  const capabilityEnabled = async (organizationId: string, name: "cm_api") =>
    isOn((await readCapabilitySwitches(t.db, organizationId))!, name);
  /** 404 NOT_FOUND worded exactly as for a route that does not exist. */
  const assertAbsent = (res: Awaited<ReturnType<TestApp["request"]>>, method: string, path: string) =>
    assertApiError(res, 404, "NOT_FOUND", { message: `No route ${method} ${path}`, field: null });

  /** An organisation with a published default notice, a domain in a domain group, and a guest consent. */
  async function world() {
    const seeded = await seedOrganization(t);
    const orgId = seeded.org.organizationId;
    const notice = await publishNotice(
      t.db,
      orgId,
      parseNoticeDraft({
        itemized: [{ purpose: "Account", personalDataDescription: "Email" }],
        content: {
          en: { title: "T", body: "B", withdrawal: "W", rights: "R", complaint: "C" },
        },
      }),
      t.clock.now(),
    );
    ok(await staff(seeded, "dpo", "PUT", "/api/v1/staff/domains/shop.example.com"));
    const group = ok<{ domainGroupId: string }>(
      await staff(seeded, "dpo", "POST", "/api/v1/staff/domain-groups", {
        name: "Shop",
        domains: ["shop.example.com"],
      }),
      201,
    );
    const consent = ok<{ consentId: string }>(
      await t.request({
        method: "POST",
        url: "/api/v1/consents/anonymous",
        payload: {
          organizationId: orgId,
          noticeId: notice.noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: "guest-0",
        },
      }),
      201,
    );
    const token = ok<{ accessToken: string }>(
      await t.request({
        method: "POST",
        url: "/api/v1/auth/broker-token",
        headers: bearer(seeded.apiKey),
        payload: { externalId: "user-1" },
      }),
      201,
    );
    return {
      seeded,
      orgId,
      noticeId: notice.noticeId,
      groupId: group.domainGroupId,
      consentId: consent.consentId,
      accessToken: token.accessToken,
    };
  }

  test("the capability table names real operations, and the contract's CapabilityName enum matches it", () => {
    const schemas = (loadOpenApiDocument().components as { schemas: Record<string, { enum?: string[] }> })
      .schemas;
    assert.deepEqual(schemas.CapabilityName!.enum, CAPABILITY_NAMES);
    for (const name of CAPABILITY_NAMES) {
      for (const operationId of CAPABILITIES[name].operations) {
        assert.ok(contractOperations().has(operationId), `${name}: ${operationId} is not in the contract`);
        assert.equal(capabilityForOperation(operationId), name);
      }
    }
    // Every gated public operation has a way to find its organisation; an unknown one fails loudly.
    for (const [operationId, op] of contractOperations()) {
      if (capabilityForOperation(operationId)) {
        assert.doesNotThrow(
          () => assertCapabilityResolvable(operationId, op.security.length === 0),
          operationId,
        );
      }
    }
    assert.throws(() => assertCapabilityResolvable("withdrawConsentAnonymous", true), /PUBLIC_ORG_SOURCES/);
    assert.equal(contractOperation("getOrgBySlug").security.length, 0);
    // The switch itself is never gated.
    assert.equal(capabilityForOperation("setCapabilities"), undefined);
    assert.equal(capabilityForOperation("listCapabilities"), undefined);
  });

  test("a capability is built when all its routes are registered (or the one its behaviour needs)", () => {
    const cmOnly = builtCapabilities(new Set(["recordConsent", "getConsent", "withdrawConsent"]));
    assert.ok(cmOnly.includes("cm_api"));
    // Behaviour-only capabilities (no routes of their own) count as built...
    assert.ok(cmOnly.includes("consent_gate_decision_audit"));
    // ...except link redemption, which exists only with the links themselves.
    assert.ok(!cmOnly.includes("offline_consent_bridge"));
    assert.ok(builtCapabilities(new Set(["createOfflineConsentLink"])).includes("offline_consent_bridge"));
    // One registered route of several is not enough.
    assert.ok(!cmOnly.includes("mobile_api"));
    assert.ok(!builtCapabilities(new Set(["createPosConsentRequest"])).includes("offline_async_consent"));
  });

  test("every built capability starts on; only an admin may switch them; unknown names are refused", async () => {
    const seeded = await seedOrganization(t);
    const listed = ok<{ capabilities: Capability[] }>(
      await staff(seeded, "viewer", "GET", "/api/v1/staff/capabilities"),
    );
    const built = builtCapabilities(t.app.implementedOperations);
    assert.deepEqual(
      listed.capabilities.map((c) => [c.name, c.enabled]),
      built.map((name) => [name, true]),
    );
    // A capability whose routes are only in the contract is neither listed nor switchable.
    for (const name of CAPABILITY_NAMES.filter((n) => !built.includes(n))) {
      assertApiError(await setCapabilities(seeded, { [name]: false }), 400, "VALIDATION_ERROR", {
        field: `capabilities.${name}`,
      });
    }
    assert.deepEqual(listed.capabilities.find((c) => c.name === "cm_api")!.operations, [
      "recordConsent",
      "getConsent",
      "withdrawConsent",
    ]);
    for (const role of ["dpo", "viewer"] as const) {
      assertApiError(
        await staff(seeded, role, "PUT", "/api/v1/staff/capabilities", { capabilities: { cm_api: false } }),
        403,
        "FORBIDDEN",
      );
    }
    assertApiError(await setCapabilities(seeded, { cm_api: false, nope: false }), 400, "VALIDATION_ERROR", {
      field: "capabilities.nope",
    });
    assertApiError(await setCapabilities(seeded, {}), 400, "VALIDATION_ERROR", { field: "capabilities" });
    assertApiError(
      await staff(seeded, "admin", "PUT", "/api/v1/staff/capabilities", { capabilities: { cm_api: "off" } }),
      400,
      "VALIDATION_ERROR",
      { field: "capabilities.cm_api" },
    );
    assert.equal(
      await capabilityEnabled(seeded.org.organizationId, "cm_api"),
      true,
      "nothing refused was applied",
    );
    assertApiError(
      await t.request({
        method: "PUT",
        url: "/api/v1/staff/capabilities",
        payload: { capabilities: { cm_api: false } },
      }),
      401,
      "UNAUTHORIZED",
    );

    // Switching is idempotent, and changes to different capabilities do not undo each other.
    await Promise.all([switchTo(seeded, { cm_api: false }), switchTo(seeded, { consent_gate: false })]);
    await switchTo(seeded, { cm_api: false });
    const after = ok<{ capabilities: Capability[] }>(
      await staff(seeded, "viewer", "GET", "/api/v1/staff/capabilities"),
    );
    assert.deepEqual(
      after.capabilities.filter((c) => !c.enabled).map((c) => c.name),
      ["cm_api", "consent_gate"],
    );
    assert.equal(await capabilityEnabled(seeded.org.organizationId, "cm_api"), false);
    await switchTo(seeded, { cm_api: true, consent_gate: true });
    const [row] = await t.db.query<{ capabilities: unknown }>(
      "SELECT capabilities FROM organizations WHERE organization_id = $1",
      [seeded.org.organizationId],
    );
    assert.deepEqual(row!.capabilities, {}, "on is the absence of an override");
  });

  test("mobile_api off: public, service-key, principal and staff routes answer 404 as if absent; back on restores them", async () => {
    const w = await world();
    const other = await world();
    let guests = 0;
    const calls = {
      orgBySlug: () => t.request({ method: "GET", url: `/api/v1/org/${w.seeded.org.slug}` }),
      notices: () => t.request({ method: "GET", url: `/api/v1/org/${w.orgId}/notices` }),
      notice: () => t.request({ method: "GET", url: `/api/v1/notices/${w.noticeId}` }),
      banner: () => t.request({ method: "GET", url: `/api/v1/org/${w.orgId}/banner-config` }),
      widget: () =>
        t.request({ method: "GET", url: `/api/v1/widget/config?id=${w.groupId}&domain=shop.example.com` }),
      anonymous: () =>
        t.request({
          method: "POST",
          url: "/api/v1/consents/anonymous",
          payload: {
            organizationId: w.orgId,
            noticeId: w.noticeId,
            purpose: "Account",
            dataTypes: ["email"],
            anonymousId: `guest-${++guests}`,
          },
        }),
      broker: () =>
        t.request({
          method: "POST",
          url: "/api/v1/auth/broker-token",
          headers: bearer(w.seeded.apiKey),
          payload: { externalId: "user-2" },
        }),
      dsrList: () => t.request({ method: "GET", url: "/api/v1/dsr", headers: bearer(w.accessToken) }),
      link: () =>
        t.request({
          method: "POST",
          url: "/api/v1/link-anonymous-consent",
          headers: bearer(w.accessToken),
          payload: { anonymousId: "guest-0" },
        }),
      staffDsr: () => staff(w.seeded, "dpo", "GET", `/api/v1/staff/dsr?organizationId=${w.orgId}`),
    };
    const paths: Record<keyof typeof calls, [string, string]> = {
      orgBySlug: ["GET", `/api/v1/org/${w.seeded.org.slug}`],
      notices: ["GET", `/api/v1/org/${w.orgId}/notices`],
      notice: ["GET", `/api/v1/notices/${w.noticeId}`],
      banner: ["GET", `/api/v1/org/${w.orgId}/banner-config`],
      widget: ["GET", "/api/v1/widget/config"],
      anonymous: ["POST", "/api/v1/consents/anonymous"],
      broker: ["POST", "/api/v1/auth/broker-token"],
      dsrList: ["GET", "/api/v1/dsr"],
      link: ["POST", "/api/v1/link-anonymous-consent"],
      staffDsr: ["GET", "/api/v1/staff/dsr"],
    };
    const expectedOn: Record<keyof typeof calls, number> = {
      orgBySlug: 200,
      notices: 200,
      notice: 200,
      banner: 200,
      widget: 200,
      anonymous: 201,
      broker: 201,
      dsrList: 200,
      link: 200,
      staffDsr: 200,
    };
    const checkAllOn = async () => {
      for (const [name, call] of Object.entries(calls) as [
        keyof typeof calls,
        () => Promise<Awaited<ReturnType<TestApp["request"]>>>,
      ][]) {
        const res = await call();
        assert.equal(res.statusCode, expectedOn[name], `${name}: ${res.body}`);
      }
    };
    await checkAllOn();

    await switchTo(w.seeded, { mobile_api: false });
    for (const [name, call] of Object.entries(calls) as [
      keyof typeof calls,
      () => Promise<Awaited<ReturnType<TestApp["request"]>>>,
    ][]) {
      const [method, path] = paths[name];
      assertAbsent(await call(), method, path);
    }
    // As if absent: even malformed input gets the 404, not a 400 about its fields.
    assertAbsent(
      await t.request({
        method: "POST",
        url: "/api/v1/consents/anonymous",
        payload: { organizationId: w.orgId, purpose: "" },
      }),
      "POST",
      "/api/v1/consents/anonymous",
    );
    assertAbsent(
      await t.request({
        method: "POST",
        url: "/api/v1/auth/broker-token",
        headers: bearer(w.seeded.apiKey),
        payload: {},
      }),
      "POST",
      "/api/v1/auth/broker-token",
    );
    // Authentication still comes first: without a credential the organisation is unknown.
    assertApiError(
      await t.request({ method: "POST", url: "/api/v1/auth/broker-token", payload: { externalId: "x" } }),
      401,
      "UNAUTHORIZED",
    );
    // Routes of other capabilities keep working for this organisation...
    const record = ok<{ status: string }>(
      await t.request({
        method: "GET",
        url: `/cm/v1/consent/${w.consentId}`,
        headers: bearer(w.seeded.apiKey),
      }),
    );
    assert.equal(record.status, "active");
    // ...and the other organisation is untouched.
    assert.equal(
      (await t.request({ method: "GET", url: `/api/v1/org/${other.seeded.org.slug}` })).statusCode,
      200,
    );
    assert.equal(
      (
        await t.request({
          method: "GET",
          url: `/api/v1/widget/config?id=${other.groupId}&domain=shop.example.com`,
        })
      ).statusCode,
      200,
    );

    await switchTo(w.seeded, { mobile_api: true });
    await checkAllOn();
  });

  test("cm_api and consent_gate off: their service-key routes answer 404 with the legacy shape where it applies", async () => {
    const w = await world();
    const verify = () =>
      t.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: bearer(w.seeded.apiKey),
        payload: { consentId: w.consentId },
      });
    const getConsent = () =>
      t.request({ method: "GET", url: `/cm/v1/consent/${w.consentId}`, headers: bearer(w.seeded.apiKey) });
    assert.equal(ok<{ decision: string }>(await verify()).decision, "allow");
    assert.equal(ok<{ consentId: string }>(await getConsent()).consentId, w.consentId);
    // Malformed input is a 400 while on...
    assertApiError(
      await t.request({
        method: "POST",
        url: "/cm/v1/consent",
        headers: bearer(w.seeded.apiKey),
        payload: {},
      }),
      400,
      "VALIDATION_ERROR",
    );

    await switchTo(w.seeded, { cm_api: false, consent_gate: false });
    assertAbsent(await verify(), "POST", "/api/v1/consent/verify");
    // Again, now that the key and the switches are cached: decided without a database read.
    assertAbsent(await verify(), "POST", "/api/v1/consent/verify");
    assertAbsent(await getConsent(), "GET", `/cm/v1/consent/${w.consentId}`);
    // ...and a 404 while off.
    assertAbsent(
      await t.request({
        method: "POST",
        url: "/cm/v1/consent",
        headers: bearer(w.seeded.apiKey),
        payload: {},
      }),
      "POST",
      "/cm/v1/consent",
    );
    // A principal token for the organisation still works on routes of other capabilities.
    assert.equal(
      (await t.request({ method: "GET", url: "/api/v1/dsr", headers: bearer(w.accessToken) })).statusCode,
      200,
    );

    await switchTo(w.seeded, { cm_api: true, consent_gate: true });
    assert.equal(ok<{ decision: string }>(await verify()).decision, "allow");
    assert.equal(ok<{ consentId: string }>(await getConsent()).consentId, w.consentId);
  });
});
