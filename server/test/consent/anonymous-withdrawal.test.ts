// A guest withdraws the consent it gave under its anonymousId (POST /api/v1/consents/anonymous/withdraw):
// as easily as it gave it, before or after linking, never another guest's or organisation's, with
// the withdrawal recorded, raised as consent.withdrawn, idempotent under a key, and rate-limited
// with the capture budget.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  principal,
  publishTestNotice,
  setOrgSettings,
  webhookEvents,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("anonymous withdrawal", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;

  const withdraw = (
    body: Record<string, unknown>,
    headers: Record<string, string> = {},
    remoteAddress?: string,
  ) =>
    t.request({
      method: "POST",
      url: "/api/v1/consents/anonymous/withdraw",
      payload: body,
      headers,
      ...(remoteAddress ? { remoteAddress } : {}),
    });
  const give = async (anonymousId: string, purpose = "Marketing") => {
    const res = await anonymousConsent(t, {
      organizationId: acme.org.organizationId,
      noticeId,
      purpose,
      dataTypes: ["email"],
      anonymousId,
    });
    assert.equal(res.statusCode, 201, res.body);
    return (res.json() as { consentId: string }).consentId;
  };
  const body = (anonymousId: string, purpose = "Marketing") => ({
    organizationId: acme.org.organizationId,
    noticeId,
    purpose,
    anonymousId,
  });
  const statusOf = async (consentId: string) =>
    (
      await t.request({ method: "GET", url: `/cm/v1/consent/${consentId}`, headers: bearer(acme.apiKey) })
    ).json() as { status: string; withdrawnAt: number | null };

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());

  test("the guest withdraws its consent: 200, recorded, raised as consent.withdrawn", async () => {
    const consentId = await give("guest-1");
    t.clock.advance(1_000);
    const res = await withdraw(body("guest-1"));
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { consentId, noticeId, purpose: "Marketing", withdrawnAt: t.clock.now() });
    assert.equal((await statusOf(consentId)).status, "withdrawn");
    assert.equal((await statusOf(consentId)).withdrawnAt, t.clock.now());
    const events = await t.db.query<{ event_type: string; reason: string | null }>(
      "SELECT event_type, reason FROM consent_events WHERE consent_id = $1 ORDER BY audit_ref",
      [consentId],
    );
    assert.deepEqual(events, [
      { event_type: "given", reason: null },
      { event_type: "withdrawn", reason: "principal_request" },
    ]);
    const raised = (await webhookEvents(t, acme)).find(
      (e) => e.event_type === "consent.withdrawn" && e.payload.consentId === consentId,
    );
    assert.equal(raised?.payload.withdrawnAt, t.clock.now());
    // Given again after withdrawing: the guest may consent anew.
    assert.notEqual(await give("guest-1"), consentId);
  });

  test("a second withdrawal is 409 CONFLICT; a purpose never given is 404", async () => {
    await give("guest-2");
    assert.equal((await withdraw(body("guest-2"))).statusCode, 200);
    assertApiError(await withdraw(body("guest-2")), 409, "CONFLICT");
    assertApiError(await withdraw(body("guest-2", "Newsletter")), 404, "NOT_FOUND");
  });

  test("another guest, another notice or another organisation finds nothing: 404, nothing changes", async () => {
    const consentId = await give("guest-3");
    assertApiError(await withdraw(body("guest-3-other")), 404, "NOT_FOUND");
    assertApiError(
      await withdraw({ ...body("guest-3"), organizationId: other.org.organizationId }),
      404,
      "NOT_FOUND",
    );
    assertApiError(await withdraw({ ...body("guest-3"), noticeId: "ntc_0000000000" }), 404, "NOT_FOUND");
    assertApiError(
      await withdraw({ ...body("guest-3"), organizationId: "org_0000000000" }),
      404,
      "NOT_FOUND",
    );
    assert.equal((await statusOf(consentId)).status, "active");
  });

  test("bad input is 400 naming the field", async () => {
    for (const [field, payload] of [
      ["anonymousId", { ...body("g"), anonymousId: "" }],
      ["purpose", { ...body("g"), purpose: undefined }],
      ["organizationId", { ...body("g"), organizationId: 7 }],
    ] as const) {
      const res = await withdraw(payload);
      assertApiError(res, 400, "VALIDATION_ERROR");
      assert.match(String(res.json().field), new RegExp(field));
    }
  });

  test("after the consent was linked to a principal, the browser that gave it can still withdraw it", async () => {
    const consentId = await give("guest-4");
    const user = await principal(t, acme);
    const linked = await t.request({
      method: "POST",
      url: "/api/v1/link-anonymous-consent",
      headers: bearer(user.accessToken),
      payload: { anonymousId: "guest-4" },
    });
    assert.equal(linked.statusCode, 200, linked.body);
    const res = await withdraw(body("guest-4"));
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.json().consentId, consentId);
    const status = await t.request({
      method: "GET",
      url: `/api/v1/consent-status?externalId=${user.externalId}`,
      headers: bearer(acme.apiKey),
    });
    const entry = (status.json() as { consents: { consentId: string; status: string }[] }).consents.find(
      (c) => c.consentId === consentId,
    );
    assert.equal(entry?.status, "withdrawn");
  });

  test("a retry with the same Idempotency-Key replays the answer; another body under it is 409", async () => {
    await give("guest-5");
    const key = { "idempotency-key": "withdraw-guest-5" };
    const first = await withdraw(body("guest-5"), key);
    assert.equal(first.statusCode, 200, first.body);
    const replay = await withdraw(body("guest-5"), key);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.json(), first.json());
    assertApiError(await withdraw(body("guest-5", "Account"), key), 409, "CONFLICT");
  });

  test("withdrawals spend the guest routes' rate budget per client address", async () => {
    await setOrgSettings(t, acme, {
      anonymousConsentRateLimit: { perAddress: 3, perOrganization: 1000, windowMs: 60_000 },
    });
    try {
      const address = "203.0.113.77";
      for (let i = 0; i < 3; i++)
        assertApiError(await withdraw(body(`nobody-${i}`), {}, address), 404, "NOT_FOUND");
      const limited = await withdraw(body("nobody-x"), {}, address);
      assertApiError(limited, 429, "RATE_LIMITED");
      assert.ok(Number(limited.headers["retry-after"]) >= 1);
    } finally {
      await setOrgSettings(t, acme, {});
    }
  });
});
