// Linking a guest's consents to the principal, re-consent after a notice changes (superseded
// versions), and the append-only history both leave behind.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  principal,
  publishTestNotice,
  recordConsent,
  webhookEvents,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("link-anonymous-consent and re-consent", () => {
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

  const give = (anonymousId: string, purpose: string, org = acme, notice = noticeId) =>
    anonymousConsent(t, {
      organizationId: org.org.organizationId,
      noticeId: notice,
      purpose,
      dataTypes: ["email"],
      anonymousId,
    });
  const link = (accessToken: string, anonymousId: string) =>
    t.request({
      method: "POST",
      url: "/api/v1/link-anonymous-consent",
      headers: bearer(accessToken),
      payload: { anonymousId },
    });

  test("moves the guest's consents to the principal as `linked`, once", async () => {
    const a = (await give("guest-link", "Account")).json().consentId as string;
    const b = (await give("guest-link", "Newsletter")).json().consentId as string;
    // The same guest id at another organisation is not this organisation's guest.
    const otherNotice = await publishTestNotice(t, other);
    await give("guest-link", "Account", other, otherNotice.noticeId);
    const user = await principal(t, acme, "linker-1");

    const res = await link(user.accessToken, "guest-link");
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.json(), { linkedCount: 2, needsReconsent: [] });
    const rows = await t.db.query<{
      consent_id: string;
      principal_id: string;
      source: string;
      anonymous_id: string;
    }>(
      "SELECT consent_id, principal_id, source, anonymous_id FROM consents WHERE consent_id = ANY($1::text[]) ORDER BY consent_id",
      [[a, b]],
    );
    for (const row of rows) {
      assert.equal(row.principal_id, user.principalId);
      assert.equal(row.source, "linked");
      assert.equal(row.anonymous_id, "guest-link", "the guest id is kept as evidence");
    }
    const [otherRow] = await t.db.query<{ principal_id: string | null }>(
      "SELECT principal_id FROM consents WHERE organization_id = $1",
      [other.org.organizationId],
    );
    assert.equal(otherRow!.principal_id, null);

    const again = await link(user.accessToken, "guest-link");
    assert.deepEqual(again.json(), { linkedCount: 0, needsReconsent: [] });
    const linkedEvents = await t.db.query(
      "SELECT 1 FROM consent_events WHERE consent_id = ANY($1::text[]) AND event_type = 'linked'",
      [[a, b]],
    );
    assert.equal(linkedEvents.length, 2, "one linked event per consent, however often linking runs");
  });

  test("concurrent links of one guest link each consent once", async () => {
    await give("guest-race", "Account");
    await give("guest-race", "Marketing");
    const user = await principal(t, acme, "linker-race");
    const results = await Promise.all(Array.from({ length: 5 }, () => link(user.accessToken, "guest-race")));
    for (const res of results) assert.equal(res.statusCode, 200);
    assert.equal(
      results.reduce((sum, r) => sum + (r.json() as { linkedCount: number }).linkedCount, 0),
      2,
    );
  });

  test("needsReconsent names linked consents whose notice has a newer published version", async () => {
    const key = "reconsent-notice";
    const v1 = await publishTestNotice(t, acme, { key, title: "Version one" });
    await give("guest-old", "Account", acme, v1.noticeId);
    await give("guest-old", "Marketing", acme, v1.noticeId);
    const v2 = await publishTestNotice(t, acme, { key, title: "Version two" });
    assert.equal(v2.noticeId, v1.noticeId);
    assert.equal(v2.version, 2);
    // Version 1 is superseded: a consent now is given against version 2.
    const fresh = await give("guest-new", "Account", acme, v1.noticeId);
    const [freshRow] = await t.db.query<{ notice_version: number }>(
      "SELECT notice_version FROM consents WHERE consent_id = $1",
      [fresh.json().consentId],
    );
    assert.equal(freshRow!.notice_version, 2);

    const user = await principal(t, acme, "linker-2", "linker2@example.com");
    const res = await link(user.accessToken, "guest-old");
    assert.deepEqual(res.json(), {
      linkedCount: 2,
      needsReconsent: [
        { noticeId: v1.noticeId, purpose: "Account" },
        { noticeId: v1.noticeId, purpose: "Marketing" },
      ],
    });
    // Re-linking still reports what needs re-consent, and links nothing new.
    assert.equal((await link(user.accessToken, "guest-old")).json().needsReconsent.length, 2);

    // Re-consent through /cm/v1 replaces the version-1 consent; that pair then drops out.
    const renewed = await recordConsent(t, acme, {
      email: "linker2@example.com",
      noticeId: v1.noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    });
    assert.equal(renewed.statusCode, 201, renewed.body);
    assert.equal(renewed.json().noticeVersion, 2);
    const replaced = await t.db.query<{ notice_version: number; withdrawal_reason: string | null }>(
      `SELECT notice_version, withdrawal_reason FROM consents
        WHERE organization_id = $1 AND principal_id = $2 AND purpose = 'Account' ORDER BY notice_version`,
      [acme.org.organizationId, user.principalId],
    );
    assert.deepEqual(replaced, [
      { notice_version: 1, withdrawal_reason: "reconsented" },
      { notice_version: 2, withdrawal_reason: null },
    ]);
    assert.deepEqual((await link(user.accessToken, "guest-old")).json().needsReconsent, [
      { noticeId: v1.noticeId, purpose: "Marketing" },
    ]);
    // The same version again is ALREADY_CONSENTED.
    const twice = await recordConsent(t, acme, {
      email: "linker2@example.com",
      noticeId: v1.noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    });
    assert.equal(twice.statusCode, 409);
  });

  test("a guest consent the principal already holds is linked as withdrawn (one active per purpose)", async () => {
    const user = await principal(t, acme, "linker-3", "linker3@example.com");
    const held = await recordConsent(t, acme, {
      email: "linker3@example.com",
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    });
    const guest = (await give("guest-dup", "Account")).json().consentId as string;
    const res = await link(user.accessToken, "guest-dup");
    assert.deepEqual(res.json(), { linkedCount: 1, needsReconsent: [] });
    const [row] = await t.db.query<{ principal_id: string; withdrawal_reason: string }>(
      "SELECT principal_id, withdrawal_reason FROM consents WHERE consent_id = $1",
      [guest],
    );
    assert.deepEqual(row, { principal_id: user.principalId, withdrawal_reason: "superseded_on_link" });
    const status = await t.request({
      method: "GET",
      url: `/cm/v1/consent/${held.json().consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(status.json().status, "active");
    const withdrawal = (await webhookEvents(t, acme)).find(
      (e) => e.event_type === "consent.withdrawn" && e.payload.consentId === guest,
    );
    assert.equal(withdrawal?.payload.reason, "superseded_on_link");
  });

  test("bad input and credentials", async () => {
    const user = await principal(t, acme, "linker-4");
    assertApiError(await link(user.accessToken, ""), 400, "VALIDATION_ERROR", { field: "anonymousId" });
    const missing = await t.request({
      method: "POST",
      url: "/api/v1/link-anonymous-consent",
      headers: bearer(user.accessToken),
      payload: {},
    });
    assertApiError(missing, 400, "VALIDATION_ERROR", { field: "anonymousId" });
    assertApiError(await link(acme.apiKey, "guest"), 401, "UNAUTHORIZED");
    // An unknown guest id links nothing.
    assert.deepEqual((await link(user.accessToken, "never-seen")).json(), {
      linkedCount: 0,
      needsReconsent: [],
    });
  });
});
