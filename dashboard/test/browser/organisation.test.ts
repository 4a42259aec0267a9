// Organisation page (issue 24, page 8) in Chromium against a real Guard: an admin creates a viewer
// account (the generated password shown once), that viewer signs in with it in a fresh context and
// finds no write control; the admin's own-role change is refused with the API's 409 message; a dpo
// sees capabilities read-only with the reason; axe and a screenshot.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { signIn as apiSignIn } from "../../../server/test/support/harness.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

describe("dashboard Organisation in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let admin: User;
  let generated = "";
  const newEmail = "new.viewer@example.com";

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    admin = await newUser(browser);
    await signIn(admin.page, guard, "admin", "/organisation");
  });
  // The API's own view, through a staff session of the dpo (any role reads capabilities).
  let headers: Record<string, string> | undefined;
  const staffHeaders = async () => (headers ??= (await apiSignIn(guard.t, guard.seeded, "dpo")).headers);
  const apiGet = async <T>(url: string): Promise<T> =>
    (await guard.t.request({ method: "GET", url, headers: await staffHeaders() })).json() as T;
  const apiCapabilities = async () =>
    (await apiGet<{ capabilities: { name: string; enabled: boolean }[] }>("/api/v1/staff/capabilities"))
      .capabilities;
  /**
   * Every capability's switch, once the list has loaded: the read-only note is rendered with the
   * page, before the capabilities answer, so counting the switches as soon as it shows counts none.
   */
  const allSwitches = async (page: Page) => {
    const expected = (await apiCapabilities()).length;
    const switches = page.getByRole("switch");
    await switches.nth(expected - 1).waitFor();
    assert.equal(await switches.count(), expected);
    return switches.all();
  };
  after(async () => {
    await admin?.close();
    await browser?.close();
    await guard?.close();
  });

  test("an admin creates a viewer account; its generated password is shown once", async () => {
    const { page, problems } = admin;
    await page.getByRole("heading", { level: 1, name: "Organisation" }).waitFor();
    await page.getByRole("region", { name: "Staff account list" }).waitFor();
    await page.getByLabel("Email", { exact: true }).fill(newEmail);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await page.getByRole("button", { name: "Create account" }).click();
    const secret = page.getByLabel(`Password for ${newEmail} value`);
    await secret.waitFor();
    generated = (await secret.textContent()) ?? "";
    assert.ok(generated.length >= 12, "a generated password");
    assert.ok(await page.getByRole("button", { name: `Copy password for ${newEmail}` }).isVisible());
    const row = page
      .getByRole("region", { name: "Staff account list" })
      .getByRole("row", { name: new RegExp(newEmail) });
    assert.match((await row.textContent()) ?? "", /Viewer \(read only\).*Can sign in/);

    // The same email again: the API's 409 beside the email field.
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByLabel("Email", { exact: true }).fill(newEmail);
    await page.getByRole("button", { name: "Create account" }).click();
    const invalid = page.locator(".field-invalid");
    await invalid.waitFor();
    assert.match((await invalid.textContent()) ?? "", /^Email/);

    await checkAccessibility(page, "the Organisation page (admin)");
    await screenshot(page, "organisation");
    assert.deepEqual(problems, []);
  });

  test("the new viewer signs in with that password in a fresh context and cannot write", async () => {
    const { page, problems, close } = await newUser(browser);
    try {
      await page.goto(guard.url("/organisation"));
      await page.getByLabel("Organisation").fill(guard.seeded.org.slug);
      await page.getByLabel("Email").fill(newEmail);
      await page.getByLabel("Password").fill(generated);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("heading", { level: 1, name: "Organisation" }).waitFor();
      // All three sections loaded before anything is found missing: an absence is only telling then.
      await page.getByRole("region", { name: "Staff account list" }).waitFor();
      await page.getByText("Only an admin can add or change staff accounts.").waitFor();
      assert.equal(await page.getByLabel("Deny threshold").isDisabled(), true);
      const switches = await allSwitches(page);
      for (const toggle of switches) assert.equal(await toggle.isDisabled(), true);
      assert.equal(await page.getByRole("button", { name: "Create account" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: "Save settings" }).count(), 0);
      assert.equal(await page.getByRole("button", { name: /^Change role of/ }).count(), 0);
      await checkAccessibility(page, "the Organisation page (viewer)");
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test("an admin changing their own role gets the API's 409 message; disabling another account works", async () => {
    const { page } = admin;
    const self = guard.seeded.staff.admin.email;
    await page.getByRole("button", { name: `Change role of ${self}` }).click();
    const dialog = page.getByRole("dialog", { name: `Change the role of ${self}` });
    await dialog.getByLabel("New role").selectOption("viewer");
    await dialog.getByRole("button", { name: "Change role" }).click();
    const alert = dialog.getByRole("alert");
    await alert.waitFor();
    assert.match((await alert.textContent()) ?? "", /CONFLICT/);
    await dialog.getByRole("button", { name: "Cancel" }).click();

    await page.getByRole("button", { name: `Disable ${newEmail}` }).click();
    await page
      .getByRole("dialog", { name: `Disable ${newEmail}?` })
      .getByRole("button", { name: "Disable" })
      .click();
    await page.getByText(`${newEmail} is disabled and was signed out.`).waitFor();
    await page.getByRole("button", { name: `Enable ${newEmail}` }).waitFor();
  });

  test("an admin switches a capability off (confirmed first) and on again", async () => {
    const { page, problems } = admin;
    const toggle = page.getByRole("switch", { name: /consent_gate_bypass_alerts/ });
    assert.equal(await toggle.isChecked(), true);
    await toggle.click();
    const dialog = page.getByRole("dialog", { name: "Switch consent_gate_bypass_alerts off?" });
    await dialog.getByRole("button", { name: "Cancel" }).click();
    assert.equal(await toggle.isChecked(), true, "cancelled: still on");
    await toggle.click();
    await dialog.getByRole("button", { name: "Switch off" }).click();
    await page.getByText("consent_gate_bypass_alerts is now off.").waitFor();
    // Shown off with the notice: clicking it now switches it on, not asks to switch it off again.
    assert.equal(await toggle.isChecked(), false);
    const capabilities = async () =>
      (await apiCapabilities()).find((c) => c.name === "consent_gate_bypass_alerts")?.enabled;
    assert.equal(await capabilities(), false);
    await toggle.click();
    await page.getByText("consent_gate_bypass_alerts is now on.").waitFor();
    assert.equal(await toggle.isChecked(), true);
    assert.equal(await capabilities(), true);
    assert.deepEqual(problems, []);
  });

  test("a dpo edits settings but sees capabilities read-only, with the reason", async () => {
    const { page, problems, close } = await newUser(browser);
    try {
      await signIn(page, guard, "dpo", "/organisation");
      await page
        .getByText("Only an admin can switch capabilities on or off; your role can see them.")
        .waitFor();
      for (const toggle of await allSwitches(page)) assert.equal(await toggle.isDisabled(), true);
      const lastChanged = page.getByText(/^Last changed:/);
      assert.match((await lastChanged.textContent()) ?? "", /never/);
      await page.getByLabel("Per client address").fill("50");
      await page.getByRole("button", { name: "Save settings" }).click();
      await page.getByText("Settings saved. They apply from the next request.").waitFor();
      // The saved settings are on the page with the notice (not the ones from before the save).
      assert.doesNotMatch((await lastChanged.textContent()) ?? "", /never/);
      assert.equal(await page.getByLabel("Per client address").inputValue(), "50");
      type Settings = { anonymousConsentRateLimit: { perAddress: number } };
      const stored = await apiGet<Settings>("/api/v1/staff/organization/settings");
      assert.equal(stored.anonymousConsentRateLimit.perAddress, 50);
      await checkAccessibility(page, "the Organisation page (dpo)");
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
});
