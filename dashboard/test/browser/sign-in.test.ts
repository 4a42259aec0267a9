// Sign-in, sign-out and the session in a real Chromium against a real, listening Guard (issue 24,
// page 1): mouse and keyboard-only sign-in, the wrong-credentials and rate-limit messages, sign-out,
// a reload resuming the session, a session ending mid-task (back to sign-in, then back to the same
// page), and axe-core on the sign-in page and the signed-in shell at desktop and phone widths.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser } from "playwright-core";
import { SIGN_IN_LIMITS } from "../../../server/src/accounts/sign-in-limits.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { ok, staffClient } from "../../../server/test/support/staff-client.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

const NAV_PAGES = [
  "Overview",
  "Integrations",
  "Notices",
  "Banner",
  "Rights",
  "DSRs",
  "Grievances",
  "Consent lookup",
  "Consent Gate",
  "Offline capture",
  "Organisation",
  "Export",
];

describe("dashboard sign-in in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  const users: User[] = [];
  const user = async (options?: Parameters<typeof newUser>[1]) => {
    const created = await newUser(browser, options);
    users.push(created);
    return created;
  };

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("signing in with the mouse opens the Overview in the shell: organisation, email, role, all pages", async () => {
    const { page, problems } = await user();
    await page.goto(guard.url("/"));
    // Signed out: the app sends the visitor to sign-in.
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    await checkAccessibility(page, "the sign-in page");
    await screenshot(page, "sign-in");

    await signIn(page, guard, "admin");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    assert.match(page.url(), /\/dashboard\/$/);
    const banner = page.getByRole("banner");
    assert.ok(await banner.getByText(`Organisation: ${guard.seeded.org.slug}`).isVisible());
    assert.ok(await banner.getByText(guard.seeded.staff.admin.email).isVisible());
    assert.ok(await banner.getByText("Admin", { exact: true }).isVisible());
    assert.equal(
      await page.getByRole("button", { name: "Menu" }).isVisible(),
      false,
      "no menu button at 1280px",
    );
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const name of NAV_PAGES)
      assert.ok(await nav.getByRole("link", { name, exact: true }).isVisible(), name);
    assert.equal(await nav.getByRole("link", { name: "Overview" }).getAttribute("aria-current"), "page");
    await checkAccessibility(page, "the shell (Overview)");
    await screenshot(page, "overview-shell");

    // Every page of the route table renders its heading in the shell, and passes axe.
    await nav.getByRole("link", { name: "DSRs" }).click();
    await page.getByRole("heading", { level: 1, name: "Data subject requests" }).waitFor();
    assert.match(page.url(), /\/dashboard\/rights\/dsr$/);
    await checkAccessibility(page, "the DSR placeholder");
    await page.goto(guard.url("/no-such-page"));
    await page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
    assert.deepEqual(problems, []);
  });

  test("keyboard only: Tab, type and Enter sign in", async () => {
    const { page, problems } = await user();
    await page.goto(guard.url("/sign-in"));
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("name")), "organizationSlug");
    await page.keyboard.type(guard.seeded.org.slug);
    await page.keyboard.press("Tab");
    await page.keyboard.type(guard.seeded.staff.dpo.email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(guard.seeded.staff.dpo.password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    assert.ok(await page.getByText("Data Protection Officer").isVisible());
    // The skip link is the first stop on every signed-in page and moves focus to the content.
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    assert.deepEqual(problems, []);
  });

  test("a wrong password says so without telling which part was wrong, and keeps the user on sign-in", async () => {
    const { page } = await user();
    await page.goto(guard.url("/sign-in"));
    await page.getByLabel("Organisation").fill(guard.seeded.org.slug);
    await page.getByLabel("Email").fill(guard.seeded.staff.viewer.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("Wrong organisation, email or password.").waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    assert.equal(await page.getByLabel("Password").inputValue(), "", "the wrong password is cleared");
    await checkAccessibility(page, "the sign-in page with an error");
    await screenshot(page, "sign-in-wrong-password");
  });

  test("repeated failures: the rate-limit message with the seconds to wait from Retry-After", async () => {
    const { page } = await user();
    await page.goto(guard.url("/sign-in"));
    // An account nobody has: limited exactly like one that exists, and no seeded user is slowed.
    await page.getByLabel("Organisation").fill(guard.seeded.org.slug);
    await page.getByLabel("Email").fill("guesser@example.com");
    const submit = page.getByRole("button", { name: "Sign in" });
    for (let i = 0; i < SIGN_IN_LIMITS.accountNetworkAllowance; i++) {
      await page.getByLabel("Password").fill(`guess-${i}`);
      await submit.click();
      await page.getByRole("alert").getByText("Wrong organisation, email or password.").waitFor();
      await submit.isEnabled();
    }
    await page.getByLabel("Password").fill("one more guess");
    await submit.click();
    const seconds = Math.ceil(SIGN_IN_LIMITS.firstDelayMs / 1000);
    await page
      .getByRole("alert")
      .getByText(
        `Too many failed sign-in attempts. Wait ${seconds} second${seconds === 1 ? "" : "s"} before trying again.`,
      )
      .waitFor();
    await screenshot(page, "sign-in-rate-limited");
  });

  test("signing out ends the session server-side and returns to sign-in", async () => {
    const { page } = await user();
    await signIn(page, guard, "dpo");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    // The cookie no longer opens a session (DELETE needed the CSRF token the client sent).
    const res = await page.request.get(`${guard.origin}/api/v1/staff/session`);
    assert.equal(res.status(), 401);
    await page.goto(guard.url("/notices"));
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
  });

  test("a reload resumes the session on the same page", async () => {
    const { page } = await user();
    await signIn(page, guard, "viewer", "/integrations");
    await page.getByRole("heading", { level: 1, name: "Integrations" }).waitFor();
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Integrations" }).waitFor();
    assert.match(page.url(), /\/dashboard\/integrations$/);
    assert.ok(await page.getByText("Viewer (read only)").isVisible());
  });

  test("an unauthenticated deep link signs in and lands on that page", async () => {
    const { page } = await user();
    await page.goto(guard.url("/export?from=2026-01-01"));
    await page.getByRole("heading", { name: "Sign in to the dashboard" }).waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in\?next=%2Fexport%3Ffrom%3D2026-01-01$/);
    await signIn(page, guard, "dpo");
    await page.getByRole("heading", { level: 1, name: "Export" }).waitFor();
    assert.match(page.url(), /\/dashboard\/export\?from=2026-01-01$/);
  });

  test("the session ending mid-task: back to sign-in with a message, then back to the same page", async () => {
    const { page } = await user();
    await signIn(page, guard, "dpo", "/consent-gate");
    await page.getByRole("heading", { level: 1, name: "Consent Gate" }).waitFor();
    guard.expireSessions();
    // The user returns to the tab: the dashboard checks the session and finds it gone.
    await page.evaluate(() => window.dispatchEvent(new Event("focus")));
    await page.getByText("Your session has ended. Sign in again to continue where you were.").waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in\?next=%2Fconsent-gate$/);
    await checkAccessibility(page, "the sign-in page after the session ended");
    await screenshot(page, "sign-in-session-ended");
    await signIn(page, guard, "dpo");
    await page.getByRole("heading", { level: 1, name: "Consent Gate" }).waitFor();
    assert.match(page.url(), /\/dashboard\/consent-gate$/);
  });

  test("the session ending between filling a form and sending it: the write is refused, sign-in, back to the page", async () => {
    const { page, apiSettled } = await user();
    await signIn(page, guard, "dpo", "/integrations");
    const form = page.getByRole("form", { name: "Create an API key" });
    await form.getByLabel("Key name").fill("written after the session ended");
    // The page's own loads answered first: one still on its way would meet the ended session and
    // send the user to sign-in before the write this test is about.
    await apiSettled();
    guard.expireSessions();
    await form.getByRole("button", { name: /create/i }).click();
    // The server refused the write (401), so nothing was created; the dashboard asks to sign in again.
    await page.getByText("Your session has ended. Sign in again to continue where you were.").waitFor();
    assert.match(page.url(), /\/dashboard\/sign-in\?next=%2Fintegrations$/);
    await signIn(page, guard, "dpo");
    await page.getByRole("form", { name: "Create an API key" }).waitFor();
    assert.match(page.url(), /\/dashboard\/integrations$/);
    const keys = ok<{ apiKeys: { name: string }[] }>(
      await staffClient(guard.t)(guard.seeded, "dpo", "GET", "/api/v1/staff/api-keys"),
    );
    assert.ok(
      !keys.apiKeys.some((key) => key.name === "written after the session ended"),
      "no key was created by the refused write",
    );
  });

  test("at phone width (390px) the navigation is behind a labelled Menu button; axe passes", async () => {
    const { page, problems } = await user({ viewport: { width: 390, height: 844 } });
    await signIn(page, guard, "admin");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    const menu = page.getByRole("button", { name: "Menu" });
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    assert.equal(await page.getByRole("link", { name: "Notices" }).isVisible(), false);
    await checkAccessibility(page, "the shell at 390px");
    await screenshot(page, "overview-shell-390");
    await menu.click();
    assert.equal(await menu.getAttribute("aria-expanded"), "true");
    await page.getByRole("link", { name: "Notices" }).click();
    await page.getByRole("heading", { level: 1, name: "Notices" }).waitFor();
    assert.equal(await menu.getAttribute("aria-expanded"), "false");
    assert.deepEqual(problems, []);
  });
});
