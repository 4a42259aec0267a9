// Notices (issue 24, page 3) in a real Chromium against a real Guard: a DPO creates a notice,
// writes it in English and Hindi, sees the API's field error at the right input, previews the
// draft in Hindi through the hosted banner's own view, publishes version 1 after a confirmation
// that explains the consequence, sees it in the history and in Guard's public notice list, then
// archives it and discards a later draft; a viewer reads the same notice without any write control.
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
import { startGuard, type GuardUnderTest } from "./support/guard.js";

const HINDI_TITLE = "हमारी गोपनीयता सूचना";

const TEXTS = {
  English: {
    Title: "Our privacy notice",
    Body: "We use your data for the purposes below.",
    "How to withdraw consent": "Open Privacy choices and switch a purpose off.",
    "How to exercise your rights": "Write to dpo@example.com.",
    "How to complain to the Data Protection Board": "Complain to the Data Protection Board of India.",
  },
  Hindi: {
    Title: HINDI_TITLE,
    Body: "हम नीचे दिए गए उद्देश्यों के लिए आपके डेटा का उपयोग करते हैं।",
    "How to withdraw consent": "गोपनीयता विकल्प खोलें और उद्देश्य बंद करें।",
    "How to exercise your rights": "dpo@example.com पर लिखें।",
    "How to complain to the Data Protection Board": "भारतीय डेटा संरक्षण बोर्ड से शिकायत करें।",
  },
} as const;

async function fillLanguage(page: Page, language: keyof typeof TEXTS): Promise<void> {
  const group = page.getByRole("group", { name: language, exact: true });
  for (const [label, text] of Object.entries(TEXTS[language]))
    await group.getByLabel(label, { exact: true }).fill(text);
}

describe("dashboard Notices page in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  const users: User[] = [];
  let noticePath = "";

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("a DPO creates, writes, previews in Hindi, publishes and archives a notice", async () => {
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo", "/notices");
    await page.getByRole("heading", { name: "Notices", level: 1 }).waitFor();
    await page.getByText("No notices yet").waitFor();
    await checkAccessibility(page, "the empty Notices page");
    await screenshot(page, "notices-empty");

    await page.getByLabel("New notice key").fill("default");
    await page.getByRole("button", { name: "Create notice" }).click();
    await page.getByRole("heading", { name: "Notice default" }).waitFor();
    noticePath = new URL(page.url()).pathname.replace(/^\/dashboard/, "");

    // Two purposes, the second left without its name; English and Hindi texts.
    const first = page.getByRole("group", { name: "Purpose 1" });
    await first.getByLabel("Purpose", { exact: true }).fill("Analytics");
    await first.getByLabel("Personal data it uses").fill("Pages visited and device type");
    await first.getByLabel("Data types of purpose 1").fill("device id");
    await first.getByLabel("Data types of purpose 1").press("Enter");
    await first.getByText("device id", { exact: true }).waitFor();
    await page.getByRole("button", { name: "Add a purpose" }).click();
    const second = page.getByRole("group", { name: "Purpose 2" });
    await second.getByLabel("Personal data it uses").fill("Email address");
    await fillLanguage(page, "English");
    await page.getByLabel("Add a language").selectOption("hi");
    await page.getByRole("button", { name: "Add language" }).click();
    await fillLanguage(page, "Hindi");

    // The API refuses the nameless purpose; its message sits at that purpose's input.
    await page.getByRole("button", { name: "Save draft" }).click();
    const missing = second.getByLabel("Purpose", { exact: true });
    await second.locator(".field-error").waitFor();
    assert.match(await second.locator(".field-error").innerText(), /itemized\[1\]\.purpose/);
    assert.equal(await missing.getAttribute("aria-invalid"), "true");
    assert.equal(await first.locator(".field-error").count(), 0);
    await screenshot(page, "notices-field-error");

    await missing.fill("Marketing");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText("Draft saved. It is complete and can be published.").waitFor();

    // The preview: the hosted banner's own view, switched to Hindi, buttons record nothing.
    await page.getByRole("button", { name: "Preview draft" }).click();
    await page.getByText("Publishing would create version 1.").waitFor();
    await page.getByLabel("Preview language").selectOption("hi");
    const bannerTitle = page.locator('[data-guard="banner"] h2');
    await page.waitForFunction(
      (title) =>
        document.querySelector("#guard-consent")?.shadowRoot?.querySelector('[data-guard="banner"] h2')
          ?.textContent === title,
      HINDI_TITLE,
    );
    assert.equal(await bannerTitle.innerText(), HINDI_TITLE);
    await page.locator('[data-guard="banner"] [data-action="accept-all"]').click();
    await page.getByText("Accept all clicked — a preview records nothing.").waitFor();
    await checkAccessibility(page, "the notice editor with its preview");
    await screenshot(page, "notices-preview-hindi");

    // Publish, after a confirmation that explains what a new version does.
    await page.getByRole("button", { name: "Publish…" }).click();
    const dialog = page.getByRole("dialog", { name: "Publish version 1 of default?" });
    await dialog.waitFor();
    assert.match(await dialog.innerText(), /becomes version 1 and goes public/);
    await checkAccessibility(page, "the publish confirmation");
    await dialog.getByRole("button", { name: "Publish version 1" }).click();
    await page.getByText("Published version 1.").waitFor();
    const history = page.getByRole("region", { name: "Published versions" });
    await history.getByRole("rowheader", { name: "v1" }).waitFor();
    assert.match(await history.innerText(), /Published \(current\)/);
    await screenshot(page, "notices-published");

    // Guard itself serves it publicly, in both languages.
    const response = await fetch(`${guard.origin}/api/v1/org/${guard.seeded.org.organizationId}/notices`);
    assert.equal(response.status, 200);
    const body = (await response.json()) as {
      notices: {
        key?: string;
        version: number;
        status: string;
        content: Record<string, { title: string }>;
      }[];
    };
    const published = body.notices.find((n) => n.key === "default");
    assert.ok(published, "the public list has the notice");
    assert.equal(published.version, 1);
    assert.equal(published.status, "published");
    assert.equal(published.content.hi?.title, HINDI_TITLE);

    // The list shows it as published, version 1, in two languages.
    await page.getByRole("link", { name: "All notices" }).click();
    const row = page.getByRole("row", { name: /default/ });
    await row.waitFor();
    assert.match(await row.innerText(), /Published[\s\S]*v1[\s\S]*en, hi/);
    await checkAccessibility(page, "the Notices list");
    await screenshot(page, "notices-list");

    // Archive, with a confirmation.
    await row.getByRole("link", { name: "default" }).click();
    await page.getByRole("button", { name: "Archive…" }).click();
    const archive = page.getByRole("dialog", { name: "Archive default?" });
    await archive.waitFor();
    assert.match(await archive.innerText(), /Consents already given keep pointing at version 1/);
    await archive.getByRole("button", { name: "Archive notice" }).click();
    await page.getByText("Version 1 archived: it is no longer public.").waitFor();
    // The reloaded notice says so (and offers no second archive) before the editor is typed into.
    await page.getByText(/^Archived · /).waitFor();
    assert.equal(await page.getByRole("button", { name: "Archive…" }).count(), 0);
    const after = await fetch(`${guard.origin}/api/v1/org/${guard.seeded.org.organizationId}/notices`);
    const afterBody = (await after.json()) as { notices: { key?: string }[] };
    assert.equal(afterBody.notices.filter((n) => n.key === "default").length, 0);

    // A new draft from the archived version, then discarded (with a confirmation): nothing published changes.
    await page
      .getByRole("group", { name: "English", exact: true })
      .getByLabel("Title", { exact: true })
      .fill("Changed");
    await page.getByRole("button", { name: "Save draft" }).click();
    await page.getByText("Draft saved. It is complete and can be published.").waitFor();
    await page.getByRole("button", { name: "Discard draft…" }).click();
    const discard = page.getByRole("dialog", { name: "Discard the draft?" });
    await discard.getByRole("button", { name: "Discard draft" }).click();
    await page.getByText("Draft discarded. Published versions are unchanged.").waitFor();
    // The editor returns to the newest version's text once the notice has reloaded.
    const title = await page
      .getByRole("group", { name: "English", exact: true })
      .getByLabel("Title", { exact: true })
      .elementHandle();
    await page.waitForFunction(([input, expected]) => (input as HTMLInputElement).value === expected, [
      title,
      TEXTS.English.Title,
    ] as const);

    assert.deepEqual(problems, []);
  });

  test("a viewer reads the notice but has no write control", async () => {
    assert.ok(noticePath, "the first test created a notice");
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "viewer", "/notices");
    await page.getByRole("heading", { name: "Notices", level: 1 }).waitFor();
    await page.getByText(/can read this page but not change it/).waitFor();
    assert.equal(await page.getByRole("button", { name: "Create notice" }).count(), 0);

    await page.getByRole("link", { name: "default" }).click();
    await page.getByRole("heading", { name: "Notice default" }).waitFor();
    await page.getByText(/can read this page but not change it/).waitFor();
    for (const name of [
      "Save draft",
      "Publish…",
      "Discard draft…",
      "Archive…",
      "Add a purpose",
      "Add language",
    ])
      assert.equal(await page.getByRole("button", { name }).count(), 0, `${name} is not offered to a viewer`);
    const purpose = page.getByRole("group", { name: "Purpose 1" }).getByLabel("Purpose", { exact: true });
    assert.equal(await purpose.inputValue(), "Analytics");
    assert.equal(await purpose.isDisabled(), true);
    await page.getByRole("region", { name: "Published versions" }).waitFor();
    await checkAccessibility(page, "a notice as a viewer sees it");
    await screenshot(page, "notices-viewer");
    assert.deepEqual(problems, []);
  });
});
