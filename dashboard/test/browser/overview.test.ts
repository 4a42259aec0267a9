// The Overview page in a real Chromium against a real Guard (issue 24, page 9): consents seeded
// through the API show as today's totals, in the chart (one labelled SVG, a legend, a <title> per
// segment) and in its table alternative; the range selector; the DSR and grievance SLA tiles link
// to their queues; Consent Gate counts; "Verify audit chain" reports an intact chain. Viewers read
// everything here and may verify the chain (a read). Axe and screenshots at desktop and phone widths.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { fileDsr, principalToken } from "../../../server/test/support/rights-helpers.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { seedConsents, type SeededConsent } from "./support/consent-seed.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

/** The number a stat shows under its label (a <dt>/<dd> pair). */
async function stat(page: Page, label: string): Promise<number> {
  const dd = page
    .locator("dt", { hasText: new RegExp(`^${label}$`) })
    .locator("xpath=following-sibling::dd[1]");
  return Number((await dd.innerText()).replace(/[^\d]/g, ""));
}

describe("dashboard Overview in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let consents: SeededConsent[];
  const users: User[] = [];

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("an organisation without consents sees empty states, zero tiles and an intact (empty) chain", async () => {
    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo");
    await page.getByRole("heading", { level: 2, name: "Consents given and withdrawn" }).waitFor();
    await page.getByText("No consents given or withdrawn in the last 30 days").waitFor();
    assert.equal(await stat(page, "Given today"), 0);
    assert.equal(await page.getByTestId("consent-chart").count(), 0, "no chart without data");
    await checkAccessibility(page, "the empty Overview");
    await screenshot(page, "overview-empty");
    await page.getByRole("button", { name: "Verify audit chain" }).click();
    await page.getByText("Intact: every record matches the chain.").waitFor();
    assert.deepEqual(problems, []);
    await user.close();
  });

  test("seeded consents show as today's totals, in the chart and its table; tiles, gate and audit", async () => {
    consents = await seedConsents(
      guard,
      { Marketing: 3, Account: 2, Newsletter: 1 },
      { Marketing: 1, Newsletter: 1 },
    );
    const { t, seeded } = guard;
    // One DSR on its statutory clock, so a tile counts something.
    const token = await principalToken(t, seeded, "overview-dsr");
    await fileDsr(t, token, { organizationId: seeded.org.organizationId, type: "summary" });
    // Two Consent Gate decisions: an active consent is allowed, a withdrawn one denied.
    const active = consents.find((c) => !c.withdrawn)!;
    const gone = consents.find((c) => c.withdrawn)!;
    for (const { consentId } of [active, gone]) {
      const res = await t.request({
        method: "POST",
        url: "/api/v1/consent/verify",
        headers: { authorization: `Bearer ${seeded.apiKey}` },
        payload: { consentId },
      });
      assert.equal(res.statusCode, 200, res.body);
    }

    const user = await newUser(browser);
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "admin");
    const chart = page.getByTestId("consent-chart");
    await chart.waitFor();
    assert.equal(await stat(page, "Given today"), 6);
    assert.equal(await stat(page, "Withdrawn today"), 2);
    assert.equal(await stat(page, "Given in 30 days"), 6);
    assert.equal(await stat(page, "Withdrawn in 30 days"), 2);

    // The chart: one labelled image, a legend naming every purpose (most given first), a <title> per segment.
    assert.equal(await chart.getAttribute("role"), "img");
    assert.match((await chart.locator("desc").textContent()) ?? "", /6 given and 2 withdrawn over 30 days/);
    const legend = page.getByRole("list", { name: "Legend" });
    assert.deepEqual((await legend.getByRole("listitem").allInnerTexts()).slice(0, 3), [
      "Marketing",
      "Account",
      "Newsletter",
    ]);
    const titles = await chart.locator("g > title").allTextContents();
    assert.equal(titles.length, 5, titles.join("\n"));
    assert.ok(
      titles.some((x) => /Marketing: 3 given$/.test(x)),
      titles.join("\n"),
    );
    assert.ok(
      titles.some((x) => /Marketing: 1 withdrawn$/.test(x)),
      titles.join("\n"),
    );

    // The table alternative has the same numbers.
    await page.getByText("Show the numbers as a table").click();
    const table = page.getByRole("table", { name: /by day and purpose/ });
    const rows = await table.locator("tbody tr").allInnerTexts();
    const cells = rows.map((r) =>
      r
        .split("\t")
        .slice(1)
        .map((c) => c.trim()),
    );
    assert.deepEqual(cells, [
      ["Marketing", "3", "1"],
      ["Account", "2", "0"],
      ["Newsletter", "1", "1"],
    ]);

    // SLA tiles and the gate.
    const dsr = page.getByTestId("overview-dsr");
    assert.ok(await dsr.getByRole("link", { name: /^DSRs Open\s?:\s?1$/ }).isVisible());
    assert.ok(await dsr.getByRole("link", { name: /^DSRs Overdue\s?:\s?0$/ }).isVisible());
    assert.ok(
      await page
        .getByTestId("overview-grievances")
        .getByRole("link", { name: /^Grievances Open\s?:\s?0$/ })
        .isVisible(),
    );
    assert.equal(await stat(page, "Allowed"), 1);
    assert.equal(await stat(page, "Denied"), 1);

    await checkAccessibility(page, "the Overview with data");
    await screenshot(page, "overview");

    // The range selector asks again with 7 days and keeps the choice in the URL.
    await page.getByLabel("Last 7 days").check();
    await page.getByText("Given in 7 days").waitFor();
    assert.match(page.url(), /\?days=7$/);
    assert.equal(await stat(page, "Given in 7 days"), 6);
    assert.equal(await chart.locator(".chart-axis-label").count(), 7, "a label for each of 7 days");

    await page.getByRole("button", { name: "Verify audit chain" }).click();
    const result = page.locator(".audit-result");
    await result.getByText("Intact: every record matches the chain.").waitFor();
    assert.match(await result.innerText(), /Consents checked\s+6/);
    assert.match(await result.innerText(), /Head hash\s+[0-9a-f]{64}/);

    // A tile leads to its queue.
    assert.match(
      (await dsr.getByRole("link", { name: /^DSRs Overdue/ }).getAttribute("href")) ?? "",
      /\/dashboard\/rights\/dsr\?sla=overdue$/,
    );
    await dsr.getByRole("link", { name: /^DSRs Open\s?:\s?1$/ }).click();
    await page.waitForURL(/\/dashboard\/rights\/dsr$/);
    assert.deepEqual(problems, []);
    await user.close();
  });

  test("a viewer reads the Overview and may verify the chain (a read); phone width is accessible", async () => {
    const user = await newUser(browser, { viewport: { width: 390, height: 844 } });
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "viewer");
    await page.getByTestId("consent-chart").waitFor();
    assert.equal(await stat(page, "Given today"), 6);
    assert.equal(await page.locator(".read-only-note").count(), 0, "nothing on the Overview needs writing");
    await page.getByRole("button", { name: "Verify audit chain" }).click();
    await page.getByText("Intact: every record matches the chain.").waitFor();
    await checkAccessibility(page, "the Overview at 390px (viewer)");
    await screenshot(page, "overview-390");
    assert.deepEqual(problems, []);
  });
});
