// Consent lookup console (issue 24, page 6) in Chromium against a real Guard: a principal seeded
// through the API (two consents, one withdrawn, and a nomination) looked up by email and by external
// id, its evidence matching what the API answers (audit hashes included); an unknown email shows
// the empty state; the search survives a reload (it lives in the URL); axe and a screenshot.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
  principal,
  publishTestNotice,
  recordConsent,
} from "../../../server/test/support/consent-fixtures.js";
import { bearer } from "../../../server/test/support/harness.js";
import { NOMINATION } from "../../../server/test/support/rights-helpers.js";
import { ok, staffClient } from "../../../server/test/support/staff-client.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

interface Lookup {
  consents: { consentId: string; purpose: string; status: string; auditHash: string }[];
  events: { eventType: string; auditHash: string }[];
}

describe("dashboard consent lookup in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let viewer: User;
  let api: Lookup;
  const email = "asha.lookup@example.com";
  const externalId = "crm-4711";

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    const { t, seeded } = guard;
    const { noticeId } = await publishTestNotice(t, seeded);
    const user = await principal(t, seeded, externalId, email);
    const give = async (purpose: string) => {
      const res = await recordConsent(t, seeded, { email, noticeId, purpose, dataTypes: ["email"] });
      assert.equal(res.statusCode, 201, res.body);
      return (res.json() as { consentId: string }).consentId;
    };
    const account = await give("Account");
    t.clock.advance(60_000);
    const marketing = await give("Marketing");
    t.clock.advance(60_000);
    const withdrawn = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${marketing}`,
      headers: bearer(seeded.apiKey),
    });
    assert.equal(withdrawn.statusCode, 200, withdrawn.body);
    const nominated = await t.request({
      method: "PUT",
      url: NOMINATION,
      headers: bearer(user.accessToken),
      payload: { nomineeName: "Ravi Kumar", nomineeContact: "ravi@example.com" },
    });
    assert.equal(nominated.statusCode, 200, nominated.body);
    api = ok<Lookup>(
      await staffClient(t)(seeded, "dpo", "GET", `/api/v1/staff/principals/lookup?externalId=${externalId}`),
    );
    // Newest first: the Marketing consent was given a minute after the Account one.
    assert.deepEqual(
      api.consents.map((c) => [c.consentId, c.status]),
      [
        [marketing, "withdrawn"],
        [account, "active"],
      ],
    );
    viewer = await newUser(browser);
    await signIn(viewer.page, guard, "viewer", "/consent-lookup");
  });
  after(async () => {
    await viewer?.close();
    await browser?.close();
    await guard?.close();
  });

  test("by email: the principal, each consent's evidence (the API's audit hashes), events, nomination", async () => {
    const { page, problems } = viewer;
    await page.getByRole("heading", { level: 1, name: "Consent lookup" }).waitFor();
    await page.getByText("Nobody looked up yet").waitFor();
    await page.getByLabel("Principal's email").fill(email.toUpperCase());
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByRole("heading", { name: "Consents (2)" }).waitFor();
    assert.match(page.url(), /\?by=email&q=ASHA\.LOOKUP%40EXAMPLE\.COM$/);

    const consents = page.getByRole("region", { name: "Consents, newest first, with their evidence" });
    const marketingRow = consents.getByRole("row", { name: /Marketing/ });
    assert.match((await marketingRow.textContent()) ?? "", /withdrawn/i);
    assert.match((await marketingRow.textContent()) ?? "", /Reason: principal_request/);
    const shownHashes = await consents.locator("code[data-audit-hash]").allTextContents();
    assert.deepEqual(
      shownHashes,
      api.consents.map((c) => c.auditHash),
      "the audit hashes shown are the API's, in its order",
    );
    assert.ok(await consents.getByRole("button", { name: "Copy audit hash of Marketing" }).isVisible());

    const timeline = page.getByRole("list", { name: "Consent events, oldest first" });
    const events = await timeline.getByRole("listitem").allTextContents();
    assert.equal(events.length, 3);
    assert.match(events[0]!, /^Consent given: Account/);
    assert.match(events[2]!, /^Consent withdrawn: Marketing/);
    assert.deepEqual(
      await timeline.locator("code[data-audit-hash]").allTextContents(),
      api.events.map((e) => e.auditHash),
    );

    const nomination = page.getByRole("region", { name: "Nomination" });
    assert.match((await nomination.textContent()) ?? "", /Ravi Kumar.*ravi@example\.com.*active/);

    await checkAccessibility(page, "the consent lookup (a principal found)");
    await screenshot(page, "consent-lookup");
    assert.deepEqual(problems, []);
  });

  test("by external id, and the search survives a reload", async () => {
    const { page } = viewer;
    await page.getByRole("radio", { name: "External id" }).check();
    await page.getByLabel("Principal's external id").fill(externalId);
    await page.getByRole("button", { name: "Look up" }).click();
    await page.waitForURL(/by=externalId&q=crm-4711/);
    await page.getByRole("heading", { name: "Consents (2)" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { name: "Consents (2)" }).waitFor();
    assert.equal(await page.getByLabel("Principal's external id").inputValue(), externalId);
    assert.ok(await page.getByText(email, { exact: true }).isVisible());
  });

  test("an unknown email shows the friendly empty state, not an error", async () => {
    const { page, problems } = viewer;
    await page.getByRole("radio", { name: "Email" }).check();
    await page.getByLabel("Principal's email").fill("nobody@example.com");
    await page.getByRole("button", { name: "Look up" }).click();
    await page.getByText("No principal with that email in this organisation").waitFor();
    assert.equal(await page.getByRole("alert").count(), 0);
    await checkAccessibility(page, "the consent lookup (nobody found)");
    assert.deepEqual(problems, []);
  });
});
