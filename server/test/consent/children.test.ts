// Children (DPDP s.9): verifiable parental consent through the provider interface, and the
// organisation setting that blocks tracking purposes for a verified child.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { isTrackingPurpose } from "../../src/consent/children.js";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  principal,
  parentalToken,
  publishTestNotice,
  recordConsent,
} from "../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";

const ITEMIZED = [
  { purpose: "Account", personalDataDescription: "Name and email." },
  { purpose: "Targeted advertising", personalDataDescription: "Browsing history." },
  { purpose: "Product analytics", personalDataDescription: "App usage." },
  { purpose: "Homework reminders", personalDataDescription: "Email." },
];

describe("children: parental verification and tracking purposes", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let noticeId: string;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme, { itemized: ITEMIZED })).noticeId;
  });
  after(() => t.close());

  const verifyParent = (accessToken: string, tokenFromProvider: string) =>
    t.request({
      method: "POST",
      url: "/api/v1/age/verify-parent",
      headers: bearer(accessToken),
      payload: { tokenFromProvider },
    });
  const consent = (email: string, purpose: string) =>
    recordConsent(t, acme, { email, noticeId, purpose, dataTypes: ["email"] });

  test("purpose classification: an explicit flag wins, else a broad keyword match on the label", () => {
    assert.equal(isTrackingPurpose({ purpose: "Targeted advertising" }), true);
    assert.equal(isTrackingPurpose({ purpose: "Behavioural monitoring" }), true);
    assert.equal(isTrackingPurpose({ purpose: "Marketing" }), true);
    assert.equal(isTrackingPurpose({ purpose: "Ads" }), true);
    assert.equal(isTrackingPurpose({ purpose: "Product analytics" }), true);
    assert.equal(isTrackingPurpose({ purpose: "Account" }), false);
    assert.equal(isTrackingPurpose({ purpose: "Homework reminders" }), false);
    assert.equal(isTrackingPurpose({ purpose: "Marketing", tracking: false }), false);
    assert.equal(isTrackingPurpose({ purpose: "Homework reminders", tracking: true }), true);
  });

  test("verify-parent accepts a signed test token for this principal and records only its hash", async () => {
    const child = await principal(t, acme, "child-1", "child1@example.com");
    const token = parentalToken(t, acme, "child-1");
    const res = await verifyParent(child.accessToken, token);
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { status: "ok" });
    const rows = await t.db.query<Record<string, unknown>>(
      "SELECT principal_id, provider, token_hash, parent_reference_hash, verified_at FROM parental_verifications WHERE organization_id = $1",
      [acme.org.organizationId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0]!.principal_id, child.principalId);
    assert.equal(rows[0]!.provider, "signed-test-token");
    assert.match(String(rows[0]!.token_hash), /^[0-9a-f]{64}$/);
    assert.equal(rows[0]!.verified_at, t.clock.now());
    const stored = JSON.stringify(await t.db.query("SELECT * FROM parental_verifications"));
    assert.ok(
      !stored.includes(token) && !stored.includes("parent-ref-1"),
      "no raw token or parent reference",
    );
    await linkQueuedOf(t.db, acme.org.organizationId, t.clock.now());
    const [entry] = await t.db.query<{ entry_type: string }>(
      "SELECT entry_type FROM audit_entries WHERE organization_id = $1 AND subject_id = $2",
      [acme.org.organizationId, child.principalId],
    );
    assert.equal(entry!.entry_type, "parental_verification.recorded");
    // The same token again answers ok and records nothing new.
    assert.equal((await verifyParent(child.accessToken, token)).statusCode, 200);
    assert.equal((await t.db.query("SELECT 1 FROM parental_verifications")).length, 1);
  });

  test("the provider's rejections are 400 VALIDATION_ERROR on tokenFromProvider", async () => {
    const child = await principal(t, acme, "child-2");
    const cases = [
      "garbage",
      parentalToken(t, acme, "someone-else"), // issued for another principal
      parentalToken(t, acme, "child-2", { expiresAt: t.clock.now() }), // expired
      `${parentalToken(t, acme, "child-2").slice(0, -2)}xx`, // signature altered
      parentalToken(t, acme, "child-2", { parentReference: "" }),
    ];
    for (const token of cases) {
      assertApiError(await verifyParent(child.accessToken, token), 400, "VALIDATION_ERROR", {
        field: "tokenFromProvider",
      });
    }
    assertApiError(await verifyParent(child.accessToken, ""), 400, "VALIDATION_ERROR", {
      field: "tokenFromProvider",
    });
    assertApiError(await verifyParent(acme.apiKey, "x"), 401, "UNAUTHORIZED");
    // A token signed for another organisation's principal of the same externalId is refused too.
    const other = await seedOrganization(t);
    assertApiError(
      await verifyParent(child.accessToken, parentalToken(t, other, "child-2")),
      400,
      "VALIDATION_ERROR",
    );
  });

  test("a verified child cannot consent to tracking purposes; other purposes are fine", async () => {
    await principal(t, acme, "child-3", "child3@example.com");
    await principal(t, acme, "adult-3", "adult3@example.com");
    const child = await principal(t, acme, "child-3");
    assert.equal((await verifyParent(child.accessToken, parentalToken(t, acme, "child-3"))).statusCode, 200);

    for (const purpose of ["Targeted advertising", "Product analytics"]) {
      const refused = await consent("child3@example.com", purpose);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.equal(refused.json().code, "MINOR_TRACKING_BLOCKED");
      assert.equal((await consent("adult3@example.com", purpose)).statusCode, 201, "adults are not blocked");
    }
    assert.equal((await consent("child3@example.com", "Homework reminders")).statusCode, 201);
    assert.equal((await consent("child3@example.com", "Account")).statusCode, 201);
  });

  test("the notice's explicit tracking flag overrides the keyword fallback", async () => {
    const flagged = await publishTestNotice(t, acme, {
      key: "flagged",
      itemized: [
        { purpose: "Account", personalDataDescription: "x" },
        { purpose: "Targeted advertising", personalDataDescription: "x", tracking: false },
        { purpose: "Product analytics", personalDataDescription: "x" },
        { purpose: "Homework reminders", personalDataDescription: "x", tracking: true },
      ],
    });
    const child = await principal(t, acme, "child-4", "child4@example.com");
    await verifyParent(child.accessToken, parentalToken(t, acme, "child-4"));
    const give = (purpose: string) =>
      recordConsent(t, acme, {
        email: "child4@example.com",
        noticeId: flagged.noticeId,
        purpose,
        dataTypes: ["email"],
      });
    assert.equal((await give("Targeted advertising")).statusCode, 201);
    assert.equal((await give("Homework reminders")).json().code, "MINOR_TRACKING_BLOCKED");
  });

  test("verification withdraws the child's active tracking consents; linking does not bring them back", async () => {
    const child = await principal(t, acme, "child-5", "child5@example.com");
    const tracking = (await consent("child5@example.com", "Targeted advertising")).json().consentId as string;
    const account = (await consent("child5@example.com", "Account")).json().consentId as string;
    await anonymousConsent(t, {
      organizationId: acme.org.organizationId,
      noticeId,
      purpose: "Product analytics",
      dataTypes: ["device"],
      anonymousId: "child-5-guest",
    });
    assert.equal((await verifyParent(child.accessToken, parentalToken(t, acme, "child-5"))).statusCode, 200);
    const reasons = await t.db.query<{ consent_id: string; withdrawal_reason: string | null }>(
      "SELECT consent_id, withdrawal_reason FROM consents WHERE consent_id = ANY($1::text[])",
      [[tracking, account]],
    );
    assert.deepEqual(Object.fromEntries(reasons.map((r) => [r.consent_id, r.withdrawal_reason])), {
      [tracking]: "minor_tracking_blocked",
      [account]: null,
    });
    const linked = await t.request({
      method: "POST",
      url: "/api/v1/link-anonymous-consent",
      headers: bearer(child.accessToken),
      payload: { anonymousId: "child-5-guest" },
    });
    assert.deepEqual(linked.json(), { linkedCount: 1, needsReconsent: [] });
    const [guest] = await t.db.query<{ principal_id: string; withdrawal_reason: string }>(
      "SELECT principal_id, withdrawal_reason FROM consents WHERE anonymous_id = 'child-5-guest'",
    );
    assert.deepEqual(guest, { principal_id: child.principalId, withdrawal_reason: "minor_tracking_blocked" });
  });

  test("an organisation that switches blockTrackingForChildren off may record tracking consents", async () => {
    const lenient = await seedOrganization(t);
    const switched = await t.request({
      method: "PATCH",
      url: "/api/v1/staff/organization/settings",
      headers: (await signIn(t, lenient, "admin")).headers,
      payload: { blockTrackingForChildren: false },
    });
    assert.equal(switched.statusCode, 200, switched.body);
    const notice = await publishTestNotice(t, lenient, { itemized: ITEMIZED });
    const child = await principal(t, lenient, "child-6", "child6@example.com");
    await verifyParent(child.accessToken, parentalToken(t, lenient, "child-6"));
    const res = await recordConsent(t, lenient, {
      email: "child6@example.com",
      noticeId: notice.noticeId,
      purpose: "Targeted advertising",
      dataTypes: ["email"],
    });
    assert.equal(res.statusCode, 201, res.body);
  });
});
