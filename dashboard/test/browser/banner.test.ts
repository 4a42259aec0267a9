// Banner settings (issue 24, page 4) in a real Chromium against a real Guard with a published
// default notice: the live preview (the hosted banner's own view) follows the form as the DPO types,
// an invalid colour shows Guard's message at that colour's input, saving raises configVersion, a
// domain gets its own settings and then follows the default again, a widget domain group is
// created (the public widget config then answers for its domain), refused under a taken name,
// changed and deleted, and a viewer sees the settings and the preview without any write control.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { signIn as apiSignIn } from "../../../server/test/support/harness.js";
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

const TEXTS = {
  title: "Our privacy notice",
  body: "We use your data for the purposes below.",
  withdrawal: "Open Privacy choices and switch a purpose off.",
  rights: "Write to dpo@example.com.",
  complaint: "Complain to the Data Protection Board of India.",
};

/** The preview's Accept all button's background colour, read inside the banner's shadow root. */
const acceptBackground = (page: Page) =>
  page.evaluate(() => {
    const button = document
      .querySelector("#guard-consent")
      ?.shadowRoot?.querySelector('[data-guard="banner"] [data-action="accept-all"]');
    return button ? getComputedStyle(button).backgroundColor : null;
  });

describe("dashboard Banner page in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  const users: User[] = [];

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    // The organisation's default notice, created and published through the staff routes.
    const { headers } = await apiSignIn(guard.t, guard.seeded, "admin");
    const created = await guard.t.request({
      method: "POST",
      url: "/api/v1/staff/notices",
      headers,
      payload: {
        key: "default",
        itemized: [{ purpose: "Analytics", personalDataDescription: "Pages visited" }],
        content: { en: TEXTS },
      },
    });
    assert.equal(created.statusCode, 201, created.body);
    const { noticeId } = created.json() as { noticeId: string };
    const published = await guard.t.request({
      method: "POST",
      url: `/api/v1/staff/notices/${noticeId}/publish`,
      headers,
    });
    assert.equal(published.statusCode, 200, published.body);
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("a DPO changes a colour: the preview follows, a bad colour is refused at its field, saving bumps configVersion", async () => {
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo", "/banner");
    await page.getByRole("heading", { name: "Banner", level: 1 }).waitFor();
    const heading = page.getByRole("heading", { name: /^Organisation default · configVersion \d+$/ });
    await heading.waitFor();
    const before = Number(/(\d+)$/.exec(await heading.innerText())?.[1]);
    await page.locator('[data-guard="banner"] h2').waitFor();
    assert.equal(await page.locator('[data-guard="banner"] h2').innerText(), TEXTS.title);
    const initial = await acceptBackground(page);

    // Typing a colour changes the preview at once, before anything is saved.
    const primary = page.getByLabel("Primary colour", { exact: true });
    await primary.fill("#b00020");
    await page.waitForFunction(
      () =>
        getComputedStyle(
          document
            .querySelector("#guard-consent")!
            .shadowRoot!.querySelector('[data-guard="banner"] [data-action="accept-all"]')!,
        ).backgroundColor === "rgb(176, 0, 32)",
    );
    assert.notEqual(initial, "rgb(176, 0, 32)");
    await page.getByLabel("Layout").selectOption("box");
    await page.waitForFunction(
      () =>
        document
          .querySelector("#guard-consent")
          ?.shadowRoot?.querySelector('[data-guard="banner"]')
          ?.classList.contains("box") === true,
    );

    // An invalid colour: Guard's message, next to that input.
    await primary.fill("#12");
    await page.getByRole("button", { name: "Save settings" }).click();
    const field = page.locator(".field", { has: primary });
    await field.locator(".field-error").waitFor();
    assert.match(await field.locator(".field-error").innerText(), /bannerSettings\.colors\.primary/);
    assert.equal(await primary.getAttribute("aria-invalid"), "true");
    await screenshot(page, "banner-invalid-colour");

    await primary.fill("#b00020");
    await page.getByRole("button", { name: "Save settings" }).click();
    await page.getByText(`configVersion is now ${before + 1}`).waitFor();
    await page.getByRole("heading", { name: `Organisation default · configVersion ${before + 1}` }).waitFor();
    assert.equal(await acceptBackground(page), "rgb(176, 0, 32)");

    // What Guard now holds.
    const { headers } = await apiSignIn(guard.t, guard.seeded, "viewer");
    const listed = await guard.t.request({ method: "GET", url: "/api/v1/staff/banner-settings", headers });
    const scopes = (
      listed.json() as {
        bannerSettings: { scope: string; configVersion: number; bannerSettings: Record<string, unknown> }[];
      }
    ).bannerSettings;
    const saved = scopes.find((s) => s.scope === "default");
    assert.equal(saved?.configVersion, before + 1);
    assert.deepEqual(saved?.bannerSettings, { layout: "box", colors: { primary: "#b00020" } });

    await checkAccessibility(page, "the Banner page with its preview");
    await screenshot(page, "banner");
    assert.deepEqual(problems, []);
  });

  test("a domain gets its own settings, then follows the default again", async () => {
    const { headers } = await apiSignIn(guard.t, guard.seeded, "admin");
    const registered = await guard.t.request({
      method: "PUT",
      url: "/api/v1/staff/domains/shop.example.com",
      headers,
    });
    assert.equal(registered.statusCode, 200, registered.body);
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo", "/banner");
    await page
      .getByLabel("Give a registered domain or app its own settings")
      .selectOption("domain:shop.example.com");
    await page.getByRole("button", { name: "Start from the default" }).click();
    await page.getByRole("heading", { name: "Domain shop.example.com · not saved yet" }).waitFor();
    // It starts from the default's settings.
    assert.equal(await page.getByLabel("Primary colour", { exact: true }).inputValue(), "#b00020");
    await page.getByLabel("Theme").selectOption("dark");
    await page.getByRole("button", { name: "Save settings for Domain shop.example.com" }).click();
    await page.getByText(/Saved Domain shop\.example\.com: configVersion is now \d+/).waitFor();
    const table = page.getByRole("region", { name: "Banner settings" });
    await table.getByRole("rowheader", { name: "Domain shop.example.com" }).waitFor();

    await page.getByRole("button", { name: "Remove Domain shop.example.com's own settings…" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove Domain shop.example.com's own settings?" });
    await dialog.getByRole("button", { name: "Remove its settings" }).click();
    await page.getByText("Domain shop.example.com follows the organisation default again.").waitFor();
    await table.getByRole("rowheader", { name: "Domain shop.example.com" }).waitFor({ state: "detached" });
    assert.deepEqual(problems, []);
  });

  test("a DPO creates a widget domain group, changes it and deletes it", async () => {
    const { headers } = await apiSignIn(guard.t, guard.seeded, "admin");
    const registered = await guard.t.request({
      method: "PUT",
      url: "/api/v1/staff/domains/widget.example.com",
      headers,
    });
    assert.equal(registered.statusCode, 200, registered.body);
    const listGroups = async () => {
      const res = await guard.t.request({ method: "GET", url: "/api/v1/staff/domain-groups", headers });
      return (
        res.json() as {
          domainGroups: { domainGroupId: string; name: string; domains: string[]; noticeId: string | null }[];
        }
      ).domainGroups;
    };
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo", "/banner");
    const section = page.getByRole("region", { name: "Widget domain groups" }).first();
    await section.getByText("No widget domain groups.").waitFor();

    await section.getByRole("button", { name: "New widget group" }).click();
    const create = page.getByRole("form", { name: "Create a widget group" });
    await create.getByLabel("Name").fill("Shop widget");
    await create.getByLabel("widget.example.com").check();
    await create.getByRole("button", { name: "Create group" }).click();
    await section
      .getByText(/^The widget group “Shop widget” is created: embed the widget with \?id=/)
      .waitFor();
    await section.getByRole("rowheader", { name: /Shop widget/ }).waitFor();
    const [group] = await listGroups();
    assert.deepEqual(
      { name: group!.name, domains: group!.domains, noticeId: group!.noticeId },
      { name: "Shop widget", domains: ["widget.example.com"], noticeId: null },
    );
    // The widget now answers for that domain, with the default notice.
    const widget = await guard.t.request({
      method: "GET",
      url: `/api/v1/widget/config?id=${group!.domainGroupId}&domain=widget.example.com`,
    });
    assert.equal(widget.statusCode, 200, widget.body);

    // A second group under the same name is refused, with Guard's message.
    await section.getByRole("button", { name: "New widget group" }).click();
    const again = page.getByRole("form", { name: "Create a widget group" });
    await again.getByLabel("Name").fill("Shop widget");
    await again.getByLabel("shop.example.com").check();
    await again.getByRole("button", { name: "Create group" }).click();
    await again.getByText("The widget group was not saved").waitFor();
    await again.getByRole("button", { name: "Cancel" }).click();

    await section.getByRole("button", { name: "Edit Shop widget" }).click();
    const edit = page.getByRole("form", { name: "Change the widget group “Shop widget”" });
    assert.equal(await edit.getByLabel("widget.example.com").isChecked(), true);
    await edit.getByLabel("Name").fill("Shop widget (India)");
    await edit.getByLabel("widget.example.com").uncheck();
    await edit.getByLabel("shop.example.com").check();
    await edit.getByRole("button", { name: "Save group" }).click();
    await section.getByText("The widget group “Shop widget (India)” is saved.").waitFor();
    const [changed] = await listGroups();
    assert.deepEqual(
      { id: changed!.domainGroupId, name: changed!.name, domains: changed!.domains },
      { id: group!.domainGroupId, name: "Shop widget (India)", domains: ["shop.example.com"] },
    );
    await checkAccessibility(page, "the Banner page with a widget group");

    await section.getByRole("button", { name: "Delete Shop widget (India)" }).click();
    await page
      .getByRole("dialog", { name: "Delete the widget group “Shop widget (India)”?" })
      .getByRole("button", { name: "Delete group" })
      .click();
    await section.getByText("The widget group “Shop widget (India)” is deleted.").waitFor();
    await section.getByText("No widget domain groups.").waitFor();
    assert.deepEqual(await listGroups(), []);
    assert.deepEqual(problems, []);
  });

  test("a viewer sees the settings and the preview but cannot change them", async () => {
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "viewer", "/banner");
    await page.getByRole("heading", { name: /^Organisation default · configVersion \d+$/ }).waitFor();
    await page.getByText(/can read this page but not change it/).waitFor();
    assert.equal(await page.getByRole("button", { name: "Save settings" }).count(), 0);
    await page.getByText("No widget domain groups.").waitFor();
    assert.equal(await page.getByRole("button", { name: /^(New widget group|Edit |Delete )/ }).count(), 0);
    assert.equal(await page.getByLabel("Primary colour", { exact: true }).isDisabled(), true);
    await page.locator('[data-guard="banner"] h2').waitFor();
    await checkAccessibility(page, "the Banner page as a viewer sees it");
    await screenshot(page, "banner-viewer");
    assert.deepEqual(problems, []);
  });
});
