// Consent Gate page (issue 24, page 7) in Chromium against a real Guard: decisions seeded through
// POST /api/v1/consent/verify with the organisation's service key show up (allow and deny), a
// consent denied often enough is a bypass alert with the window and threshold in words, a dpo
// changes the threshold (the API's message at the field for a bad value) and the alerts follow,
// and a viewer reads without the save button; axe and a screenshot.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import {
  principal,
  publishTestNotice,
  recordConsent,
} from "../../../server/test/support/consent-fixtures.js";
import { bearer } from "../../../server/test/support/harness.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
} from "./support/browser.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

describe("dashboard Consent Gate in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let active: string;
  let withdrawn: string;

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    const { t, seeded } = guard;
    const { noticeId } = await publishTestNotice(t, seeded);
    await principal(t, seeded, "gate-user", "gate@example.com");
    const give = async (purpose: string) => {
      const res = await recordConsent(t, seeded, {
        email: "gate@example.com",
        noticeId,
        purpose,
        dataTypes: ["email"],
      });
      assert.equal(res.statusCode, 201, res.body);
      return (res.json() as { consentId: string }).consentId;
    };
    active = await give("Account");
    withdrawn = await give("Marketing");
    const del = await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${withdrawn}`,
      headers: bearer(seeded.apiKey),
    });
    assert.equal(del.statusCode, 200, del.body);
    const verify = async (consentId: string) => {
      const res = await t.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: bearer(seeded.apiKey),
        payload: { consentId },
      });
      assert.equal(res.statusCode, 200, res.body);
      t.clock.advance(1000);
    };
    await verify(active);
    // Two denies: below the default threshold (3), so no alert until the threshold is lowered.
    await verify(withdrawn);
    await verify(withdrawn);
  });
  after(async () => {
    await browser?.close();
    await guard?.close();
  });

  test("a dpo sees the decisions, lowers the threshold and the consent becomes a bypass alert", async () => {
    const { page, problems, close } = await newUser(browser);
    try {
      await signIn(page, guard, "dpo", "/consent-gate");
      await page.getByRole("heading", { level: 1, name: "Consent Gate" }).waitFor();
      const decisions = page.getByRole("region", { name: /Gate decisions, newest first/ });
      await decisions.waitFor();
      const rows = decisions.getByRole("row");
      assert.equal(await rows.count(), 4, "a header row and three decisions");
      assert.match(
        (await rows.nth(1).textContent()) ?? "",
        new RegExp(`deny.*Consent was withdrawn.*${withdrawn}`),
      );
      assert.match(
        (await rows.nth(3).textContent()) ?? "",
        new RegExp(`allow.*Consent is active.*${active}`),
      );
      assert.equal(await page.getByRole("button", { name: "Older" }).isDisabled(), true);

      await page.getByText("No bypass alerts").waitFor();
      assert.match(
        (await page.locator(".gate-rule").textContent()) ?? "",
        /denied 3 times or more within 1 hour/,
      );
      // The window in human units: the default hour shows as 1 hours-unit.
      assert.equal(await page.getByLabel("Alert window", { exact: true }).inputValue(), "1");
      assert.equal(await page.getByLabel("Alert window unit").inputValue(), "hours");

      // A value the API refuses: its message beside the field it names.
      await page.getByLabel("Deny threshold").fill("0");
      await page.getByRole("button", { name: "Save alert settings" }).click();
      const invalid = page.locator(".field-invalid");
      await invalid.waitFor();
      assert.match((await invalid.textContent()) ?? "", /Deny threshold.*denyThreshold/s);

      await page.getByLabel("Deny threshold").fill("2");
      await page.getByLabel("Alert window", { exact: true }).fill("30");
      await page.getByLabel("Alert window unit").selectOption("minutes");
      await page.getByRole("button", { name: "Save alert settings" }).click();
      await page.getByText("Saved. An alert is now 2 or more denies within 30 minutes.").waitFor();
      const alerts = page.getByRole("region", { name: "Bypass alerts, most recently denied first" });
      await alerts.waitFor();
      assert.match((await alerts.textContent()) ?? "", new RegExp(`${withdrawn}\\s*2`));
      assert.match(
        (await page.locator(".gate-rule").textContent()) ?? "",
        /denied 2 times or more within 30 minutes/,
      );

      const settings = await guard.t.request({
        method: "GET",
        url: "/api/v1/staff/organization/settings",
        headers: bearer(guard.seeded.apiKey),
      });
      assert.deepEqual((settings.json() as { consentGate: unknown }).consentGate, {
        windowMs: 30 * 60_000,
        denyThreshold: 2,
      });

      await checkAccessibility(page, "the Consent Gate page");
      await screenshot(page, "consent-gate");
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("a viewer reads decisions, alerts and settings but cannot save", async () => {
    const { page, problems, close } = await newUser(browser);
    try {
      await signIn(page, guard, "viewer", "/consent-gate");
      await page.getByRole("region", { name: /Gate decisions/ }).waitFor();
      await page.getByText(/can read this page but not change it/).waitFor();
      assert.equal(await page.getByRole("button", { name: "Save alert settings" }).count(), 0);
      assert.equal(await page.getByLabel("Deny threshold").isDisabled(), true);
      await checkAccessibility(page, "the Consent Gate page (viewer)");
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
