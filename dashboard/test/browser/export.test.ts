// The Export page in a real Chromium against a real Guard (issue 24, page 10): consents seeded
// through the API (some withdrawn) are exported for a range of days; the file offered for
// download is parsed here and must hold the header row and exactly the seeded consents (ids,
// purposes, withdrawal); a range without consents gives a header-only file and says "0 rows";
// an inverted range shows the API's message next to the field it names. A viewer may export (a
// read). Axe and screenshots.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { parseCsv } from "../../../server/test/support/csv.js";
import {
  browserSkip,
  checkAccessibility,
  launchChromium,
  newUser,
  screenshot,
  signIn,
  type User,
} from "./support/browser.js";
import { istDay, seedConsents, type SeededConsent } from "./support/consent-seed.js";
import { startGuard, type GuardUnderTest } from "./support/guard.js";

const HEADER = [
  "consent_id",
  "principal_id",
  "external_id",
  "anonymous_id",
  "notice_id",
  "notice_version",
  "purpose",
  "data_types",
  "source",
  "given_at",
  "withdrawn_at",
  "withdrawal_reason",
  "audit_hash",
  "audit_key_version",
];

/** Sets the range, exports, waits for completion and downloads the file; answers its text. */
async function exportRange(
  page: Page,
  from: string,
  to: string,
): Promise<{ text: string; fileName: string }> {
  await page.getByLabel("From (first day)").fill(from);
  await page.getByLabel("To (last day, included)").fill(to);
  await page.getByRole("button", { name: "Export CSV" }).click();
  const link = page.getByRole("link", { name: /^Download / });
  await link.waitFor();
  const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
  const file = await download.path();
  return { text: fs.readFileSync(file, "utf8"), fileName: download.suggestedFilename() };
}

describe("dashboard Export in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let consents: SeededConsent[];
  const users: User[] = [];

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    consents = await seedConsents(guard, { Marketing: 3, Account: 2, Newsletter: 1 }, { Marketing: 2 });
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("exporting today gives every seeded consent once, with the header row, and says how many", async () => {
    const user = await newUser(browser, { acceptDownloads: true });
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "dpo", "/export");
    await page.getByRole("heading", { level: 1, name: "Export" }).waitFor();
    await checkAccessibility(page, "the Export page");

    const today = istDay(guard.t.clock.now());
    const { text, fileName } = await exportRange(page, today, today);
    assert.match(fileName, new RegExp(`^guard-consent-evidence-${guard.seeded.org.slug}-\\d+-\\d+\\.csv$`));
    const [header, ...rows] = parseCsv(text);
    assert.deepEqual(header, HEADER);
    const byId = new Map(rows.map((r) => [r[0], r]));
    assert.equal(rows.length, consents.length);
    assert.deepEqual([...byId.keys()].sort(), consents.map((c) => c.consentId).sort());
    for (const consent of consents) {
      const row = byId.get(consent.consentId)!;
      assert.equal(row[6], consent.purpose, consent.consentId);
      assert.equal(row[10] !== "", consent.withdrawn, `${consent.consentId} withdrawn_at`);
      assert.match(row[12]!, /^[0-9a-f]{64}$/);
    }
    await page.getByText(`${consents.length} rows exported`).waitFor();
    const progress = page.locator("progress");
    assert.equal(await progress.getAttribute("value"), String(consents.length));
    assert.equal(await page.getByText("may be incomplete").count(), 0);
    await checkAccessibility(page, "the Export page after an export");
    await screenshot(page, "export");
    assert.deepEqual(problems, []);
  });

  test("a range without consents gives a header-only file and says 0 rows", async () => {
    const user = await newUser(browser, { acceptDownloads: true });
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "admin", "/export");
    const { text } = await exportRange(page, "2020-01-01", "2020-01-31");
    assert.deepEqual(parseCsv(text), [HEADER]);
    await page.getByText("0 rows exported").waitFor();
    assert.deepEqual(problems, []);
  });

  test("an inverted range shows the API's message next to the To field", async () => {
    const user = await newUser(browser);
    users.push(user);
    const { page } = user;
    await signIn(page, guard, "admin", "/export");
    await page.getByLabel("From (first day)").fill("2026-03-10");
    await page.getByLabel("To (last day, included)").fill("2026-03-01");
    await page.getByRole("button", { name: "Export CSV" }).click();
    const to = page.getByLabel("To (last day, included)");
    await page.getByText("to must be after from").waitFor();
    assert.equal(await to.getAttribute("aria-invalid"), "true");
    const describedBy = (await to.getAttribute("aria-describedby")) ?? "";
    assert.match(
      await page.locator(`[id="${describedBy.split(" ").pop()}"]`).innerText(),
      /to must be after from/,
    );
    assert.equal(await page.getByRole("link", { name: /^Download / }).count(), 0);
    await checkAccessibility(page, "the Export page with a field error");
    await screenshot(page, "export-field-error");
  });

  test("a viewer may export (a read) at phone width", async () => {
    const user = await newUser(browser, { acceptDownloads: true, viewport: { width: 390, height: 844 } });
    users.push(user);
    const { page, problems } = user;
    await signIn(page, guard, "viewer", "/export");
    const today = istDay(guard.t.clock.now());
    const { text } = await exportRange(page, today, today);
    assert.equal(parseCsv(text).length, consents.length + 1);
    assert.equal(await page.locator(".read-only-note").count(), 0);
    await checkAccessibility(page, "the Export page at 390px (viewer)");
    await screenshot(page, "export-390");
    assert.deepEqual(problems, []);
  });
});
