// The registers pages in a real Chromium against a real Guard (issue 27): a DPO records a processing
// activity (a bad destination first: the API's message at the field), finds it with the cross-border
// filter, changes, archives and restores it; records a breach discovered 70 hours ago and sees its
// clocks (principals overdue, the Board's 72 hours due soon), records the Board's first intimation,
// adds an affected principal and tells her, and finds the notification on the Notifications page;
// creates a retention policy from a Third-Schedule preset and changes its name and terms (a blank
// name refused at its field), places and releases a legal hold, reports that a principal's purpose
// was served 40 days ago (an unknown principal first), cancels the erasure that falls due by hand
// with a reason, and sets how long the audit trail is kept (under a year refused at its field). A
// viewer reads every page with no write controls. axe-core and a screenshot per page.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { WebhookRelayNotifier } from "../../../server/src/notifications/notifier.js";
import { sweepRetention } from "../../../server/src/retention/sweep.js";
import { principal } from "../../../server/test/support/consent-fixtures.js";
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

const HOUR = 3_600_000;

describe("dashboard registers pages in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let dpo: User;
  const users: User[] = [];
  let breachId = "";

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    dpo = await newUser(browser);
    users.push(dpo);
    await signIn(dpo.page, guard, "dpo", "/ropa");
    await dpo.page.getByRole("heading", { level: 1, name: "Records of processing" }).waitFor();
  });
  after(async () => {
    for (const u of users) await u.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  const form = (page: Page, name: string) => page.getByRole("form", { name });
  /**
   * An instant as the page's datetime-local inputs take it: in the browser's time zone, which
   * newUser sets to Asia/Kolkata (UTC+05:30 all year), so the page's own conversion is exercised.
   */
  const local = (at: number) => new Date(at + 330 * 60_000).toISOString().slice(0, 16);

  test("a processing activity is recorded, filtered, changed, archived and restored", async () => {
    const { page, problems } = dpo;
    await page.getByText("No activities recorded yet.").waitFor();
    await page.getByRole("button", { name: "Record a processing activity" }).click();
    const create = form(page, "Record a processing activity");
    await create.getByLabel("Name", { exact: true }).fill("Order fulfilment");
    await create.getByLabel("Purpose", { exact: true }).fill("Delivery");
    await create.getByLabel("Data categories").fill("name, delivery address");
    await create.getByLabel("Legal basis").selectOption("deemed_consent");
    await create.getByLabel("Storage location").fill("Mumbai data centre");
    await create.getByLabel(/transferred outside India/).check();
    // India is not a destination abroad: the server says so, at the field.
    await create.getByLabel("Destination countries").fill("IN");
    await create.getByRole("button", { name: "Add a recipient" }).click();
    await create.getByLabel("Recipient 1 name").fill("ShipCo");
    await create.getByLabel("Recipient 1 country").fill("US");
    await create.getByRole("button", { name: "Record activity" }).click();
    const destinations = create.getByLabel("Destination countries");
    await create.getByText(/list only the countries outside India/).waitFor();
    assert.equal(await destinations.getAttribute("aria-invalid"), "true");

    await destinations.fill("US, sg");
    await create.getByRole("button", { name: "Record activity" }).click();
    await page.getByText(/“Order fulfilment” is recorded as act_/).waitFor();
    const row = page.getByRole("row", { name: /Order fulfilment/ });
    await row.getByRole("cell", { name: "Yes: US, SG" }).waitFor();
    await row.getByRole("cell", { name: /ShipCo \(processor, US\)/ }).waitFor();
    assert.match(await row.innerText(), /Legitimate use/);

    await page.getByLabel("Outside India").selectOption("false");
    await page.getByText("No activities recorded yet.").waitFor();
    await page.getByLabel("Outside India").selectOption("true");
    await row.waitFor();
    await checkAccessibility(page, "Records of processing (dpo)");
    await screenshot(page, "ropa-dpo");

    await row.getByRole("button", { name: "Edit Order fulfilment" }).click();
    const edit = form(page, "Change the activity");
    await edit.getByLabel("Name", { exact: true }).fill("Order delivery");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("“Order delivery” is saved.").waitFor();

    await page.getByRole("button", { name: "Archive Order delivery" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Archive activity" }).click();
    await page.getByText(/“Order delivery” is archived/).waitFor();
    await page.getByText("No activities recorded yet.").waitFor();
    await page.getByLabel("Show").selectOption("archived");
    await page.getByRole("button", { name: "Restore Order delivery" }).click();
    await page.getByText("“Order delivery” is active again.").waitFor();
    assert.deepEqual(problems, []);
  });

  test("a breach is recorded with its clocks, reported to the Board and told to its principal", async () => {
    const { page, problems } = dpo;
    const person = await principal(guard.t, guard.seeded, "breach-person-1");
    await page.getByRole("link", { name: "Breaches", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Breaches" }).waitFor();
    await page.getByText("No breaches recorded.").waitFor();
    await page.getByRole("button", { name: "Record a breach" }).click();
    const record = form(page, "Record a breach");
    await record.getByLabel("What happened").fill("A courier's tablet with delivery addresses was stolen.");
    // 70 hours ago: the principals' 24 hours are over, the Board's 72 are nearly up.
    await record.getByLabel("Discovered at").fill(local(guard.t.clock.now() - 70 * HOUR));
    await record.getByLabel(/^Mitigation/).fill("The tablet was wiped remotely; passwords reset.");
    await record.getByLabel("Affected purposes (optional)").fill("Delivery");
    await record.getByRole("button", { name: "Record breach" }).click();
    const recorded = await page.getByText(/The breach is recorded as /).innerText();
    breachId = /recorded as (\S+)\./.exec(recorded)![1]!;

    const row = page.getByRole("row", { name: /courier's tablet/ });
    assert.match(await row.getByRole("cell").nth(2).innerText(), /Overdue by/);
    assert.match(await row.getByRole("cell").nth(2).innerText(), /0 of 0 told/);
    assert.match(await row.getByRole("cell").nth(3).innerText(), /Due soon: 1 h \d+ min left/);
    // "Met" first, so the row is gone before "Overdue" is chosen: its coming back proves the filter
    // kept it (waiting for a row already listed would prove nothing).
    await page.getByLabel("Clocks").selectOption("met");
    await page.getByText("No breaches recorded.").waitFor();
    await page.getByLabel("Clocks").selectOption("overdue");
    await row.waitFor();
    assert.equal(await page.getByText("No breaches recorded.").count(), 0);
    await page.getByLabel("Clocks").selectOption("");
    await checkAccessibility(page, "Breaches (dpo)");
    await screenshot(page, "breaches-dpo");

    await row.getByRole("link").click();
    await page.getByRole("heading", { level: 2, name: breachId }).waitFor();
    // A detailed report before any first intimation is refused, at its field.
    const reports = form(page, "Text and reports");
    await reports.getByLabel("Detailed report submitted at").fill(local(guard.t.clock.now() - HOUR));
    await reports.getByRole("button", { name: "Save" }).click();
    await reports.getByText(/reportedToBoardAt/).waitFor();
    assert.equal(
      await reports.getByLabel("Detailed report submitted at").getAttribute("aria-invalid"),
      "true",
    );
    await reports.getByLabel("Detailed report submitted at").fill("");
    await reports.getByLabel("Board first intimation at").fill(local(guard.t.clock.now() - 2 * HOUR));
    await reports.getByRole("button", { name: "Save" }).click();
    await page.getByText("The breach is saved.").waitFor();
    // The status names the first obligation still open: the principals are not told yet.
    await page.getByText("Principals to be told").waitFor();
    assert.equal(await reports.getByLabel("Board first intimation at").getAttribute("readonly"), "");

    const add = form(page, "Add affected principals");
    await add.getByLabel("External ids").fill("nobody-known");
    await add.getByRole("button", { name: "Add principals" }).click();
    await add
      .locator(".field-error", { hasText: /not a principal of this organisation: nobody-known/ })
      .waitFor();
    await add.getByLabel("External ids").fill(person.externalId);
    await add.getByRole("button", { name: "Add principals" }).click();
    await page.getByText("1 principal added.").waitFor();

    await page.getByRole("button", { name: "Notify principals" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByLabel("Likely consequences for them").fill("Your address may be known to others.");
    await dialog.getByLabel("What they can do to protect themselves").fill("Watch for unexpected parcels.");
    await dialog.getByLabel("Contact who can answer their questions").fill("dpo@shop.example");
    await dialog.getByRole("button", { name: "Notify principals" }).click();
    await page.getByText("1 principal told.").waitFor();
    await page.getByText("1 affected, 1 told, 0 not yet told", { exact: false }).waitFor();
    await page.getByText("Board intimated; detailed report due").waitFor();
    await checkAccessibility(page, "Breach detail (dpo)");
    await screenshot(page, "breach-detail-dpo");

    await page.getByRole("link", { name: "Notifications", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    await page.getByLabel("Principal (externalId)").fill(person.externalId);
    await page.getByRole("button", { name: "Filter" }).click();
    const told = page.getByRole("row", { name: new RegExp(person.externalId) });
    await told.getByRole("link", { name: "Breach", exact: true }).waitFor();
    await page.getByLabel("Principal (externalId)").fill("someone-else");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.getByText("No notifications to someone-else.").waitFor();
    await checkAccessibility(page, "Notifications (dpo)");
    assert.deepEqual(problems, []);
  });

  test("a retention policy is made from a preset; a legal hold is placed and released", async () => {
    const { page, problems } = dpo;
    await page.getByRole("link", { name: "Retention", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Retention" }).waitFor();
    const create = form(page, "Create a retention policy");
    await page.getByText("No retention policies yet.").waitFor();
    // A custom policy without its terms is refused at the first missing field.
    await create.getByLabel("Purpose", { exact: true }).fill("Shopping");
    await create.getByRole("button", { name: "Create policy" }).click();
    await create.locator(".field-error").first().waitFor();

    const made = create.getByLabel("Made from");
    // The presets load on their own (with the page), not with the refusal.
    await made.locator('option[value="ecommerce"]').waitFor({ state: "attached" });
    const presetValues = await made
      .locator("option")
      .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    assert.ok(presetValues.includes("ecommerce"), presetValues.join());
    await made.selectOption("ecommerce");
    await create.getByRole("button", { name: "Create policy" }).click();
    await page.getByText(/The policy “.+” is created as /).waitFor();
    const policyRow = page.getByRole("region", { name: "Retention policies" }).getByRole("row").nth(1);
    assert.match(await policyRow.innerText(), /Shopping[\s\S]*ecommerce/);

    // Its name and terms are changed: a blank name is the API's refusal at the field; then a new
    // name and a longer window, which the page says moves the policy's erasures.
    await policyRow.getByRole("button", { name: /^Edit / }).click();
    const edit = page.getByRole("form", { name: /^Change the policy / });
    const nameInput = edit.getByLabel("Name", { exact: true });
    assert.equal(await nameInput.evaluate((el) => el === document.activeElement), true, "focused");
    assert.equal(await form(page, "Create a retention policy").count(), 0, "one form at a time");
    await nameInput.fill("  ");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await edit.locator(".field-error").waitFor();
    assert.equal(await nameInput.getAttribute("aria-invalid"), "true");
    await nameInput.fill("Online shop accounts");
    await edit.getByLabel("Kept for (days)").fill("400");
    await edit.getByRole("button", { name: "Save changes" }).click();
    await page
      .getByText(
        "“Online shop accounts” is saved. Its open erasures are cancelled and will be scheduled again under the new terms.",
      )
      .waitFor();
    await policyRow.getByText("Online shop accounts").waitFor();
    assert.match(await policyRow.innerText(), /1 year 35 days after/);
    const stored = await guard.t.request({
      method: "GET",
      url: "/api/v1/staff/retention/policies?includeArchived=true",
      headers: { authorization: `Bearer ${guard.seeded.apiKey}` },
    });
    const listed = (stored.json() as { policies: { name: string; durationDays: number }[] }).policies;
    assert.deepEqual(
      listed.map((p) => [p.name, p.durationDays]),
      [["Online shop accounts", 400]],
    );
    await policyRow.getByRole("button", { name: /^Edit / }).click();
    await page
      .getByRole("form", { name: /^Change the policy / })
      .getByRole("button", { name: "Save changes" })
      .click();
    await page.getByText("Nothing changed.").waitFor();
    await form(page, "Create a retention policy").waitFor();

    const hold = form(page, "Place a legal hold");
    await hold.getByLabel("Principal (externalId)").fill("breach-person-1");
    await hold.getByLabel("Statute").fill("Income-tax Act, 1961, s.131");
    await hold.getByLabel("Citation").fill("Notice 42 of the Assessing Officer");
    await hold.getByRole("button", { name: "Place hold" }).click();
    await page.getByText(/The legal hold .+ is in force\./).waitFor();
    // The section and its table are both regions named so; the section comes first.
    const holds = page.getByRole("region", { name: "Legal holds" }).first();
    await holds.getByRole("cell", { name: "In force" }).waitFor();
    await checkAccessibility(page, "Retention (dpo)");
    await screenshot(page, "retention-dpo");
    await holds.getByRole("button", { name: /^Release hold / }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("button", { name: "Release hold" }).click();
    await dialog.locator(".field-error").waitFor();
    assert.equal(await dialog.getByLabel("Reason").getAttribute("aria-invalid"), "true");
    await dialog.getByLabel("Reason").fill("The assessment is closed.");
    await dialog.getByRole("button", { name: "Release hold" }).click();
    await page.getByText(/is released; its erasures proceed/).waitFor();
    await holds.getByRole("cell", { name: /Released/ }).waitFor();

    // An erasure falls due (a purpose served 40 days ago under a 30-day policy); the DPO cancels it
    // by hand, with a reason.
    const svc = { authorization: `Bearer ${guard.seeded.apiKey}` };
    const policy = await guard.t.request({
      method: "POST",
      url: "/api/v1/staff/retention/policies",
      headers: svc,
      payload: { name: "Deliveries", purpose: "Delivery", anchorEvent: "purpose_served", durationDays: 30 },
    });
    assert.equal(policy.statusCode, 201, policy.body);
    const report = form(page, "Report a retention event");
    await report.getByLabel("Principal (externalId)").fill("nobody-we-know");
    await report.getByLabel("What happened").selectOption("purpose_served");
    await report.getByLabel("Purpose", { exact: true }).fill("Delivery");
    await report.getByRole("button", { name: "Record event" }).click();
    await report.getByText("The event was not recorded").waitFor();
    await report.getByLabel("Principal (externalId)").fill("breach-person-1");
    await report.getByLabel("When (optional)").fill(local(guard.t.clock.now() - 40 * 24 * HOUR));
    await report.getByRole("button", { name: "Record event" }).click();
    await page.getByText(/^The purpose served is recorded for breach-person-1\./).waitFor();
    assert.equal(
      (await sweepRetention(guard.t.db, new WebhookRelayNotifier(), guard.t.clock.now())).scheduled,
      1,
    );
    await page.reload();
    const erasures = page.getByRole("region", { name: "Scheduled erasures" }).first();
    await erasures.getByRole("button", { name: /^Cancel erasure / }).click();
    const cancelDialog = page.getByRole("dialog");
    await cancelDialog.getByRole("button", { name: "Cancel erasure" }).click();
    await cancelDialog.locator(".field-error").waitFor();
    await cancelDialog.getByLabel("Reason").fill("She disputes it; kept pending ticket 88.");
    await cancelDialog.getByRole("button", { name: "Cancel erasure" }).click();
    await page.getByText(/The erasure of breach-person-1's data under this window is cancelled\./).waitFor();
    await erasures.getByRole("cell", { name: /Cancelled \(staff cancelled\): She disputes it/ }).waitFor();

    // Guard's own logs: kept forever by default; a period under a year is the API's refusal at its
    // field; 400 days for the audit trail is saved and shown with who set it.
    const logs = page.getByRole("region", { name: "Guard's own logs" });
    const auditRow = logs.getByRole("row", { name: /Audit trail entries/ });
    await auditRow.getByRole("cell", { name: "Forever" }).waitFor();
    const logForm = form(page, "Change how long logs are kept");
    await logForm.getByLabel("Audit trail entries (days)").fill("100");
    await logForm.getByRole("button", { name: "Save log retention" }).click();
    await logForm.locator(".field-error").waitFor();
    assert.equal(await logForm.getByLabel("Audit trail entries (days)").getAttribute("aria-invalid"), "true");
    await logForm.getByLabel("Audit trail entries (days)").fill("400");
    await logForm.getByRole("button", { name: "Save log retention" }).click();
    await page.getByText("The log retention policy is saved.", { exact: false }).waitFor();
    await auditRow.getByText("1 year 35 days (400 days)").waitFor();
    assert.match(await auditRow.innerText(), /stf_/);
    const logPolicy = await guard.t.request({
      method: "GET",
      url: "/api/v1/staff/log-retention/policy",
      headers: { authorization: `Bearer ${guard.seeded.apiKey}` },
    });
    const logClasses = logPolicy.json() as Record<string, { retainDays: number | null }>;
    assert.equal(logClasses.auditEntries!.retainDays, 400);
    assert.equal(logClasses.webhookDeliveries!.retainDays, null, "the classes not changed are not sent");
    assert.deepEqual(problems, []);
  });

  test("a viewer reads every register page with no write controls", async () => {
    const viewer = await newUser(browser);
    users.push(viewer);
    const { page, problems } = viewer;
    await signIn(page, guard, "viewer", "/ropa");
    await page.getByRole("rowheader", { name: /Order delivery/ }).waitFor();
    await page.getByText(/can read this page but not change it/).waitFor();
    for (const name of [/^Record a processing activity$/, /^Edit /, /^Archive /, /^Restore /])
      assert.equal(await page.getByRole("button", { name }).count(), 0, String(name));
    await checkAccessibility(page, "Records of processing (viewer)");
    await screenshot(page, "ropa-viewer");

    await page.getByRole("link", { name: "Breaches", exact: true }).click();
    await page.getByRole("row", { name: /courier's tablet/ }).waitFor();
    assert.equal(await page.getByRole("button", { name: "Record a breach" }).count(), 0);
    await page
      .getByRole("row", { name: /courier's tablet/ })
      .getByRole("link")
      .click();
    await page.getByRole("heading", { level: 2, name: breachId }).waitFor();
    await page.getByText("Board intimated; detailed report due").waitFor();
    for (const name of ["Save", "Add principals", "Notify principals"])
      assert.equal(await page.getByRole("button", { name }).count(), 0, name);
    await checkAccessibility(page, "Breach detail (viewer)");
    await screenshot(page, "breach-detail-viewer");

    await page.getByRole("link", { name: "Retention", exact: true }).click();
    await page
      .getByRole("region", { name: "Legal holds" })
      .first()
      .getByRole("cell", { name: /Released/ })
      .waitFor();
    for (const name of [
      /^Create policy$/,
      /^Edit /,
      /^Record event$/,
      /^Place hold$/,
      /^Archive /,
      /^Release hold/,
      /^Cancel erasure/,
      /^Save log retention$/,
    ])
      assert.equal(await page.getByRole("button", { name }).count(), 0, String(name));
    await page
      .getByRole("region", { name: "Guard's own logs" })
      .getByRole("row", { name: /Audit trail entries/ })
      .getByText("400 days", { exact: false })
      .waitFor();
    await checkAccessibility(page, "Retention (viewer)");

    await page.getByRole("link", { name: "Notifications", exact: true }).click();
    await page.getByRole("link", { name: "Breach", exact: true }).first().waitFor();
    await checkAccessibility(page, "Notifications (viewer)");
    await screenshot(page, "notifications-viewer");
    assert.deepEqual(problems, []);
  });
});
