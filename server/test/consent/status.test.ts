// GET /api/v1/consent-status (lookup by email or externalId) and POST /api/v1/cm/signal (inbound
// Consent Manager signals with duplicate detection).
import assert from "node:assert/strict";
import { computeAuditHash } from "@guard/contract";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import { principal, publishTestNotice, recordConsent } from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("consent status and CM signals", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());

  const status = (query: string, org = acme) =>
    t.request({ method: "GET", url: `/api/v1/consent-status${query}`, headers: bearer(org.apiKey) });

  test("resolves a principal by email or externalId to every consent, newest first", async () => {
    const user = await principal(t, acme, "status-1", "Status@Example.com");
    const first = (
      await recordConsent(t, acme, {
        email: "status@example.com",
        noticeId,
        purpose: "Account",
        dataTypes: ["email"],
      })
    ).json();
    t.clock.advance(1000);
    const second = (
      await recordConsent(t, acme, {
        email: "status@example.com",
        noticeId,
        purpose: "Marketing",
        dataTypes: ["email"],
      })
    ).json();
    t.clock.advance(1000);
    await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${first.consentId}`,
      headers: bearer(acme.apiKey),
    });

    // Each entry carries its evidence: the contract's audit hash, which the fiduciary can recompute.
    const evidence = (purpose: string, givenAt: number) => ({
      source: "direct",
      auditHash: computeAuditHash(t.config.auditKeys[1]!, {
        organizationId: acme.org.organizationId,
        noticeId,
        noticeVersion: 1,
        purpose,
        dataTypes: ["email"],
        givenAt,
        source: "direct",
      }),
      auditKeyVersion: 1,
    });
    const expected = {
      principal: { principalId: user.principalId, externalId: "status-1", email: "status@example.com" },
      consents: [
        {
          consentId: second.consentId,
          noticeId,
          noticeVersion: 1,
          purpose: "Marketing",
          status: "active",
          givenAt: t.clock.now() - 1000,
          withdrawnAt: null,
          ...evidence("Marketing", t.clock.now() - 1000),
        },
        {
          consentId: first.consentId,
          noticeId,
          noticeVersion: 1,
          purpose: "Account",
          status: "withdrawn",
          givenAt: t.clock.now() - 2000,
          withdrawnAt: t.clock.now(),
          ...evidence("Account", t.clock.now() - 2000),
        },
      ],
    };
    const byEmail = await status("?email=STATUS%40example.com");
    assert.equal(byEmail.statusCode, 200, byEmail.body);
    assert.deepEqual(byEmail.json(), expected);
    assert.deepEqual((await status("?externalId=status-1")).json(), expected);
    // A principal without consents or email.
    const bare = await principal(t, acme, "status-2");
    assert.deepEqual((await status("?externalId=status-2")).json(), {
      principal: { principalId: bare.principalId, externalId: "status-2", email: null },
      consents: [],
    });
  });

  test("neither or both identifiers, or a bad value, is 400; no match (or another org's) is 404", async () => {
    assertApiError(await status(""), 400, "VALIDATION_ERROR", { field: "email" });
    assertApiError(await status("?email=a%40b.example&externalId=x"), 400, "VALIDATION_ERROR", {
      field: "externalId",
    });
    assertApiError(await status("?email=not-an-email"), 400, "VALIDATION_ERROR", { field: "email" });
    assertApiError(await status("?externalId="), 400, "VALIDATION_ERROR", { field: "externalId" });
    assertApiError(await status("?email=nobody%40example.com"), 404, "NOT_FOUND");
    assertApiError(await status("?externalId=status-1", other), 404, "NOT_FOUND");
    const anon = await t.request({ method: "GET", url: "/api/v1/consent-status?externalId=status-1" });
    assertApiError(anon, 401, "UNAUTHORIZED");
  });

  const signal = (
    overrides: Record<string, unknown> = {},
    headers: Record<string, string> = {},
    org = acme,
  ) =>
    t.request({
      method: "POST",
      url: "/api/v1/cm/signal",
      headers: { ...bearer(org.apiKey), ...headers },
      payload: {
        cmRegistryId: "meity-cm-007",
        cmName: "Sahmati CM",
        principalTokenFromCm: "cm-principal-token-1",
        purposes: ["Marketing", "Account"],
        signalType: "consent_given",
        ...overrides,
      },
    });

  test("a signal is recorded unresolved; an exact repeat is stored again as duplicate", async () => {
    const first = await signal();
    assert.equal(first.statusCode, 201, first.body);
    const record = first.json();
    assert.deepEqual(record, {
      "@context": "urn:guard:jsonld:cm-signal:v1",
      signalId: record.signalId,
      cmRegistryId: "meity-cm-007",
      cmName: "Sahmati CM",
      principalTokenFromCm: "cm-principal-token-1",
      purposes: ["Marketing", "Account"],
      signalType: "consent_given",
      receivedAt: t.clock.now(),
      mappingStatus: "unresolved",
    });
    t.clock.advance(10);
    const repeat = await signal();
    assert.equal(repeat.statusCode, 201);
    assert.equal(repeat.json().mappingStatus, "duplicate");
    assert.notEqual(repeat.json().signalId, record.signalId);
    // Anything different is a new signal: type, purposes (order included), token.
    for (const change of [
      { signalType: "consent_withdrawn" },
      { purposes: ["Account", "Marketing"] },
      { principalTokenFromCm: "cm-principal-token-2" },
    ]) {
      assert.equal((await signal(change)).json().mappingStatus, "unresolved");
    }
    // Another organisation's identical signal is its own first delivery.
    assert.equal((await signal({}, {}, other)).json().mappingStatus, "unresolved");
    const rows = await t.db.query<{ mapping_status: string; duplicate_of: string | null }>(
      "SELECT mapping_status, duplicate_of FROM cm_signals WHERE organization_id = $1 AND signal_id = $2",
      [acme.org.organizationId, repeat.json().signalId],
    );
    assert.deepEqual(rows, [{ mapping_status: "duplicate", duplicate_of: record.signalId }]);
  });

  test("concurrent identical deliveries: one unresolved, the rest duplicate", async () => {
    const results = await Promise.all(
      Array.from({ length: 6 }, () => signal({ principalTokenFromCm: "race" })),
    );
    const statuses = results.map((r) => r.json().mappingStatus).sort();
    assert.deepEqual(statuses, [
      "duplicate",
      "duplicate",
      "duplicate",
      "duplicate",
      "duplicate",
      "unresolved",
    ]);
  });

  test("an Idempotency-Key replays the original record instead of storing a duplicate", async () => {
    const headers = { "idempotency-key": "signal-1" };
    const first = await signal({ principalTokenFromCm: "idem" }, headers);
    const again = await signal({ principalTokenFromCm: "idem" }, headers);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.json(), first.json());
    const conflict = await signal({ principalTokenFromCm: "idem-2" }, headers);
    assert.equal(conflict.statusCode, 409);
    assert.equal(conflict.json().code, "CONFLICT");
  });

  test("bad bodies are 400 VALIDATION_ERROR naming the field, in the legacy shape with code", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ signalType: "consent_revoked" }, "signalType"],
      [{ purposes: [] }, "purposes"],
      [{ purposes: [""] }, "purposes[0]"],
      [{ cmRegistryId: "" }, "cmRegistryId"],
      [{ cmName: 5 }, "cmName"],
      [{ principalTokenFromCm: "x".repeat(1025) }, "principalTokenFromCm"],
      [{ cmName: undefined }, "cmName"],
    ];
    for (const [change, field] of cases) {
      assertApiError(await signal(change), 400, "VALIDATION_ERROR", { field });
    }
    const anon = await t.request({ method: "POST", url: "/api/v1/cm/signal", payload: {} });
    assertApiError(anon, 401, "UNAUTHORIZED");
  });
});
