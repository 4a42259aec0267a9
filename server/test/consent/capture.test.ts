// Consent capture and withdrawal: anonymous capture (public, rate-limited, idempotent) and the
// /cm/v1 consent-manager routes, with every bad input the contract names.
import assert from "node:assert/strict";
import { computeAuditHash } from "@guard/contract";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  archiveNotice,
  countRows,
  insertDraftNotice,
  principal,
  publishTestNotice,
  recordConsent,
  setOrgSettings,
  webhookEvents,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("anonymous consent capture", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let otherNoticeId: string;
  const body = (overrides: Record<string, unknown> = {}) => ({
    organizationId: acme.org.organizationId,
    noticeId,
    purpose: "Marketing",
    dataTypes: ["email"],
    anonymousId: "guest-1",
    ...overrides,
  });

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    otherNoticeId = (await publishTestNotice(t, other)).noticeId;
  });
  after(() => t.close());

  test("records a consent against the published version and answers 201 with the 1.6 shape", async () => {
    const res = await anonymousConsent(t, body({ dataTypes: ["phone", "email"] }));
    assert.equal(res.statusCode, 201, res.body);
    const consent = res.json();
    assert.match(consent.consentId, /^cns_/);
    assert.deepEqual(consent, {
      consentId: consent.consentId,
      purpose: "Marketing",
      dataTypes: ["phone", "email"],
      givenAt: t.clock.now(),
    });
    assert.equal(res.headers["idempotent-replayed"], undefined);
    const [row] = await t.db.query<Record<string, unknown>>(
      "SELECT principal_id, anonymous_id, notice_version, source, withdrawn_at, audit_key_version FROM consents WHERE consent_id = $1",
      [consent.consentId],
    );
    assert.deepEqual(row, {
      principal_id: null,
      anonymous_id: "guest-1",
      notice_version: 1,
      source: "anonymous",
      withdrawn_at: null,
      audit_key_version: 1,
    });
    const given = (await webhookEvents(t, acme)).filter((e) => e.event_type === "consent.given");
    assert.equal(given.length, 1);
    assert.deepEqual(given[0]!.payload, {
      consentId: consent.consentId,
      noticeId,
      noticeVersion: 1,
      purpose: "Marketing",
      dataTypes: ["phone", "email"],
      principal: { anonymousId: "guest-1" },
      source: "anonymous",
      givenAt: t.clock.now(),
    });
  });

  test("an active consent for the same notice and purpose is 400 ALREADY_CONSENTED", async () => {
    const res = await anonymousConsent(t, body({ dataTypes: ["email"] }));
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, "ALREADY_CONSENTED");
    // Another guest, or another purpose, is a consent of its own.
    assert.equal((await anonymousConsent(t, body({ anonymousId: "guest-2" }))).statusCode, 201);
    assert.equal((await anonymousConsent(t, body({ purpose: "Newsletter" }))).statusCode, 201);
  });

  test("a replay with the same Idempotency-Key returns the original answer and records nothing", async () => {
    const headers = { "idempotency-key": "anon-replay-1" };
    const first = await anonymousConsent(t, body({ anonymousId: "guest-idem", purpose: "Account" }), headers);
    assert.equal(first.statusCode, 201);
    const before = await countRows(t, "consents", acme.org.organizationId);
    t.clock.advance(60_000);
    const again = await anonymousConsent(t, body({ anonymousId: "guest-idem", purpose: "Account" }), headers);
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.json(), first.json());
    assert.equal(await countRows(t, "consents", acme.org.organizationId), before);
    // The same key with another body is a conflict, not a new consent.
    const changed = await anonymousConsent(
      t,
      body({ anonymousId: "guest-idem", purpose: "Newsletter" }),
      headers,
    );
    assertApiError(changed, 409, "CONFLICT");
    assert.equal(await countRows(t, "consents", acme.org.organizationId), before);
  });

  test("unknown organisation, unknown notice and another organisation's notice are 404", async () => {
    assertApiError(
      await anonymousConsent(t, body({ organizationId: "org_doesnotexist00" })),
      404,
      "NOT_FOUND",
    );
    assertApiError(await anonymousConsent(t, body({ noticeId: "ntc_doesnotexist00" })), 404, "NOT_FOUND");
    assertApiError(await anonymousConsent(t, body({ noticeId: otherNoticeId })), 404, "NOT_FOUND");
  });

  test("draft and archived notices are 400 NOTICE_NOT_PUBLISHED", async () => {
    const draftId = await insertDraftNotice(t, acme);
    assertApiError(await anonymousConsent(t, body({ noticeId: draftId })), 400, "NOTICE_NOT_PUBLISHED");
    const archived = await publishTestNotice(t, acme, { key: "to-archive" });
    await archiveNotice(t, acme, archived.noticeId);
    assertApiError(
      await anonymousConsent(t, body({ noticeId: archived.noticeId })),
      400,
      "NOTICE_NOT_PUBLISHED",
    );
  });

  test("every body rule is a VALIDATION_ERROR naming the field", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [body({ purpose: "Profiling" }), "purpose"], // not itemised by the notice
      [body({ purpose: "Mark|eting" }), "purpose"],
      [body({ purpose: "" }), "purpose"],
      [body({ purpose: "x".repeat(201) }), "purpose"],
      [body({ dataTypes: ["email,phone"] }), "dataTypes[0]"],
      [body({ dataTypes: ["email", "ph|one"] }), "dataTypes[1]"],
      [body({ dataTypes: ["email", ""] }), "dataTypes[1]"],
      [body({ dataTypes: [] }), "dataTypes"],
      [body({ dataTypes: "email" }), "dataTypes"],
      [body({ dataTypes: Array.from({ length: 101 }, (_, i) => `t${i}`) }), "dataTypes"],
      [body({ dataTypes: ["a\uD800"] }), "dataTypes[0]"],
      [body({ purpose: "Marketing\uDC00" }), "purpose"],
      [body({ organizationId: "not an id" }), "organizationId"],
      [body({ noticeId: "ntc|abcdefghijk" }), "noticeId"],
      [body({ anonymousId: "" }), "anonymousId"],
      [body({ anonymousId: "a".repeat(201) }), "anonymousId"],
      [{ ...body(), anonymousId: undefined }, "anonymousId"],
      [{ ...body(), purpose: undefined }, "purpose"],
      [{ ...body(), noticeId: undefined }, "noticeId"],
      [{ ...body(), organizationId: undefined }, "organizationId"],
      [{ ...body(), dataTypes: undefined }, "dataTypes"],
    ];
    for (const [payload, field] of cases) {
      const res = await anonymousConsent(t, payload);
      assertApiError(res, 400, "VALIDATION_ERROR", { field });
    }
    const malformed = await t.request({
      method: "POST",
      url: "/api/v1/consents/anonymous",
      headers: { "content-type": "application/json" },
      payload: "{not json",
    });
    assertApiError(malformed, 400, "VALIDATION_ERROR", { field: "body" });
    // An Idempotency-Key outside the contract's limits is refused too.
    const longKey = await anonymousConsent(t, body({ anonymousId: "guest-k" }), {
      "idempotency-key": "k".repeat(256),
    });
    assertApiError(longKey, 400, "VALIDATION_ERROR");
  });

  test("rate-limited per client address and per organisation, with Retry-After", async () => {
    const limited = await seedOrganization(t);
    const limitedNotice = await publishTestNotice(t, limited);
    await setOrgSettings(t, limited, {
      anonymousConsentRateLimit: { perAddress: 3, perOrganization: 5, windowMs: 60_000 },
    });
    t.clock.set(Math.ceil(t.clock.now() / 60_000) * 60_000);
    const give = (guest: string, address: string) =>
      anonymousConsent(
        t,
        {
          organizationId: limited.org.organizationId,
          noticeId: limitedNotice.noticeId,
          purpose: "Account",
          dataTypes: ["email"],
          anonymousId: guest,
        },
        {},
        address,
      );
    for (let i = 0; i < 3; i++) assert.equal((await give(`g${i}`, "10.0.0.1")).statusCode, 201);
    const perAddress = await give("g3", "10.0.0.1");
    assertApiError(perAddress, 429, "RATE_LIMITED");
    assert.equal(perAddress.headers["retry-after"], "60");
    // Another address still has budget, until the organisation's own budget (5) is spent.
    assert.equal((await give("g4", "10.0.0.2")).statusCode, 201);
    assert.equal((await give("g5", "10.0.0.3")).statusCode, 201);
    const perOrg = await give("g6", "10.0.0.4");
    assertApiError(perOrg, 429, "RATE_LIMITED");
    assert.ok(Number(perOrg.headers["retry-after"]) >= 1);
    // Other organisations are unaffected, and the window rolls over.
    assert.equal(
      (await anonymousConsent(t, body({ anonymousId: "guest-rl" }), {}, "10.0.0.1")).statusCode,
      201,
    );
    t.clock.advance(60_000);
    assert.equal((await give("g7", "10.0.0.1")).statusCode, 201);
  });
});

describe("/cm/v1 consent: record, read, withdraw", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let user: { externalId: string; principalId: string };

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    user = await principal(t, acme, "user-1", "Asha@Example.com");
  });
  after(() => t.close());

  test("records a consent for the principal found by email (any case) and returns a ConsentRecord", async () => {
    const res = await recordConsent(t, acme, {
      email: "asha@example.COM",
      noticeId,
      purpose: "Newsletter",
      dataTypes: ["email"],
    });
    assert.equal(res.statusCode, 201, res.body);
    const record = res.json();
    assert.deepEqual(record, {
      "@context": "urn:guard:jsonld:consent-record:v1",
      consentId: record.consentId,
      purpose: "Newsletter",
      dataTypes: ["email"],
      givenAt: t.clock.now(),
      withdrawnAt: null,
      status: "active",
      noticeId,
      noticeVersion: 1,
      source: "direct",
      auditKeyVersion: 1,
      // The evidence the fiduciary can check itself: the contract's audit hash of this consent.
      auditHash: computeAuditHash(t.config.auditKeys[1]!, {
        organizationId: acme.org.organizationId,
        noticeId,
        noticeVersion: 1,
        purpose: "Newsletter",
        dataTypes: ["email"],
        givenAt: t.clock.now(),
        source: "direct",
      }),
    });
    const [row] = await t.db.query<{ principal_id: string; source: string }>(
      "SELECT principal_id, source FROM consents WHERE consent_id = $1",
      [record.consentId],
    );
    assert.deepEqual(row, { principal_id: user.principalId, source: "direct" });
    const given = (await webhookEvents(t, acme)).find(
      (e) => e.event_type === "consent.given" && e.payload.consentId === record.consentId,
    );
    assert.deepEqual(given?.payload.principal, { principalId: user.principalId, externalId: "user-1" });
  });

  test("a second active consent for the notice and purpose is 409 ALREADY_CONSENTED", async () => {
    const res = await recordConsent(t, acme, {
      email: "asha@example.com",
      noticeId,
      purpose: "Newsletter",
      dataTypes: ["email", "name"],
    });
    assert.equal(res.statusCode, 409);
    assert.equal(res.json().code, "ALREADY_CONSENTED");
  });

  test("unknown email, unknown notice and another organisation's notice are 404", async () => {
    const base = { email: "asha@example.com", noticeId, purpose: "Account", dataTypes: ["email"] };
    assertApiError(await recordConsent(t, acme, { ...base, email: "nobody@example.com" }), 404, "NOT_FOUND");
    assertApiError(
      await recordConsent(t, acme, { ...base, noticeId: "ntc_doesnotexist00" }),
      404,
      "NOT_FOUND",
    );
    const otherNotice = await publishTestNotice(t, other);
    assertApiError(
      await recordConsent(t, acme, { ...base, noticeId: otherNotice.noticeId }),
      404,
      "NOT_FOUND",
    );
    // The same email at another organisation is another principal space.
    assertApiError(
      await recordConsent(t, other, { ...base, noticeId: otherNotice.noticeId }),
      404,
      "NOT_FOUND",
    );
  });

  test("unpublished notices and bad bodies are 400", async () => {
    const draftId = await insertDraftNotice(t, acme);
    const base = { email: "asha@example.com", noticeId, purpose: "Account", dataTypes: ["email"] };
    assertApiError(await recordConsent(t, acme, { ...base, noticeId: draftId }), 400, "NOTICE_NOT_PUBLISHED");
    const cases: [Record<string, unknown>, string][] = [
      [{ ...base, email: "not-an-email" }, "email"],
      [{ ...base, email: undefined }, "email"],
      [{ ...base, purpose: "Unlisted" }, "purpose"],
      [{ ...base, purpose: "A|B" }, "purpose"],
      [{ ...base, dataTypes: ["a,b"] }, "dataTypes[0]"],
      [{ ...base, dataTypes: [] }, "dataTypes"],
      [{ ...base, noticeId: "nope" }, "noticeId"],
    ];
    for (const [payload, field] of cases) {
      assertApiError(await recordConsent(t, acme, payload), 400, "VALIDATION_ERROR", { field });
    }
    const res = await t.request({ method: "POST", url: "/cm/v1/consent", payload: base });
    assertApiError(res, 401, "UNAUTHORIZED");
  });

  test("GET reads the record; DELETE withdraws with no body, once; history is kept", async () => {
    const created = await recordConsent(t, acme, {
      email: "asha@example.com",
      noticeId,
      purpose: "Marketing",
      dataTypes: ["email"],
    });
    const { consentId } = created.json();
    const read = await t.request({
      method: "GET",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(read.json(), created.json());

    t.clock.advance(5_000);
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentId}`,
      headers: { ...bearer(acme.apiKey), "content-type": "application/json" },
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    assert.equal(withdrawn.json().status, "withdrawn");
    assert.equal(withdrawn.json().withdrawnAt, t.clock.now());

    const again = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(acme.apiKey),
    });
    assertApiError(again, 409, "CONFLICT");

    const events = await t.db.query<{ event_type: string; reason: string | null }>(
      "SELECT event_type, reason FROM consent_events WHERE consent_id = $1 ORDER BY audit_ref",
      [consentId],
    );
    assert.deepEqual(events, [
      { event_type: "given", reason: null },
      { event_type: "withdrawn", reason: "principal_request" },
    ]);
    const withdrawal = (await webhookEvents(t, acme)).find(
      (e) => e.event_type === "consent.withdrawn" && e.payload.consentId === consentId,
    );
    assert.equal(withdrawal?.payload.withdrawnAt, t.clock.now());
    assert.equal(withdrawal?.payload.reason, "principal_request");
    // Withdrawn, a new consent for the same purpose may be given.
    const renewed = await recordConsent(t, acme, {
      email: "asha@example.com",
      noticeId,
      purpose: "Marketing",
      dataTypes: ["email"],
    });
    assert.equal(renewed.statusCode, 201);
  });

  test("another organisation's consent is 404 on GET and DELETE, and a malformed id 400", async () => {
    const created = await recordConsent(t, acme, {
      email: "asha@example.com",
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    });
    const { consentId } = created.json();
    for (const method of ["GET", "DELETE"] as const) {
      const res = await t.request({
        method,
        url: `/cm/v1/consent/${consentId}`,
        headers: bearer(other.apiKey),
      });
      assertApiError(res, 404, "NOT_FOUND");
      const missing = await t.request({
        method,
        url: "/cm/v1/consent/cns_doesnotexist00",
        headers: bearer(acme.apiKey),
      });
      assertApiError(missing, 404, "NOT_FOUND");
      const bad = await t.request({ method, url: "/cm/v1/consent/not-an-id", headers: bearer(acme.apiKey) });
      assertApiError(bad, 400, "VALIDATION_ERROR");
    }
    const still = await t.request({
      method: "GET",
      url: `/cm/v1/consent/${consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(still.json().status, "active");
  });

  test("broker-token associates an email; naming it for another principal moves it", async () => {
    await principal(t, acme, "user-2", "shared@example.com");
    await principal(t, acme, "user-3", "SHARED@example.com");
    const rows = await t.db.query<{ external_id: string; email: string | null }>(
      "SELECT external_id, email FROM principals WHERE organization_id = $1 AND external_id IN ('user-2', 'user-3') ORDER BY external_id",
      [acme.org.organizationId],
    );
    assert.deepEqual(rows, [
      { external_id: "user-2", email: null },
      { external_id: "user-3", email: "shared@example.com" },
    ]);
    // Brokering without an email leaves the stored one alone.
    await principal(t, acme, "user-3");
    const [kept] = await t.db.query<{ email: string }>(
      "SELECT email FROM principals WHERE organization_id = $1 AND external_id = 'user-3'",
      [acme.org.organizationId],
    );
    assert.equal(kept!.email, "shared@example.com");
    const bad = await t.request({
      method: "POST",
      url: "/api/v1/auth/broker-token",
      headers: bearer(acme.apiKey),
      payload: { externalId: "user-4", email: "not an email" },
    });
    assertApiError(bad, 400, "VALIDATION_ERROR", { field: "email" });
  });
});
