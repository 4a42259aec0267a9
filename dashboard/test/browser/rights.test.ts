// The rights queues in a real Chromium against a real Guard (issue 24, page 5): DSRs filed by a
// principal through the API, worked by the DPO through the page (pending -> in_progress with the
// mouse, in_progress -> completed with the keyboard only), only the state machine's moves offered,
// an overdue request shown as overdue, a grievance answered and resolved, the viewer's read-only
// view, filters in the URL, and axe-core plus screenshots of the lists and details.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import {
  DAY,
  fileDsr,
  fileGrievance,
  principalToken,
  type DsrBody,
  type GrievanceBody,
} from "../../../server/test/support/rights-helpers.js";
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

/** Presses Tab until the focused element's text is `name` (keyboard only); fails after `limit` presses. */
async function tabTo(page: Page, name: string, limit = 40): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const text = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? "");
    if (text === name) return;
  }
  assert.fail(`Tab never reached "${name}"`);
}

describe("dashboard rights queues in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let browser: Browser;
  let dpo: User;
  let correction: DsrBody;
  let late: DsrBody;
  let grievance: GrievanceBody;

  before(async () => {
    guard = await startGuard();
    browser = await launchChromium();
    const orgId = guard.seeded.org.organizationId;
    const now = guard.t.clock.now();
    // Filed 40 days ago under the default 30-day period: overdue by 10 days now.
    guard.t.clock.set(now - 40 * DAY);
    const oldToken = await principalToken(guard.t, guard.seeded, "late-principal");
    late = await fileDsr(guard.t, oldToken, { organizationId: orgId, type: "erasure", details: "Erase me" });
    guard.t.clock.set(now);
    const token = await principalToken(guard.t, guard.seeded, "alice-rights");
    correction = await fileDsr(guard.t, token, {
      organizationId: orgId,
      type: "correction",
      details: "My address changed to 12 Park Street",
    });
    grievance = await fileGrievance(guard.t, token, {
      organizationId: orgId,
      subject: "Marketing after withdrawal",
      description: "I withdrew consent but still get emails.",
    });
    dpo = await newUser(browser);
    await signIn(dpo.page, guard, "dpo", "/rights/dsr");
  });
  after(async () => {
    await dpo?.close().catch(() => undefined);
    await browser?.close();
    await guard?.close();
  });

  test("the DSR queue: earliest deadline first, the overdue request highlighted in words, filters in the URL", async () => {
    const { page } = dpo;
    await page.getByRole("heading", { level: 1, name: "Data subject requests" }).waitFor();
    const rows = page.getByRole("region", { name: "Data subject requests" }).locator("tbody tr");
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2);
    // The API sorts by deadline: the overdue erasure request comes first.
    const first = rows.nth(0);
    assert.ok(await first.getByText(late.requestId).isVisible());
    const overdue = first.locator(".countdown-overdue");
    assert.match((await overdue.textContent()) ?? "", /^!?Overdue by 10 days/);
    assert.ok(await rows.nth(1).getByText(correction.requestId).isVisible());
    assert.equal(await rows.nth(1).locator(".countdown-overdue").count(), 0);
    await checkAccessibility(page, "the DSR queue");
    await screenshot(page, "rights-dsr-list");

    await page.getByLabel("Deadline").selectOption("overdue");
    await page.waitForURL(/\/dashboard\/rights\/dsr\?sla=overdue$/);
    // The two-row table goes while the filtered list loads; then the one overdue request.
    await rows.nth(1).waitFor({ state: "detached" });
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.ok(await rows.first().getByText(late.requestId).isVisible());
    await page.getByLabel("Type").selectOption("summary");
    await page.waitForURL(/sla=overdue&type=summary$/);
    await page.getByText("No requests match these filters").waitFor();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await page.waitForURL(/\/dashboard\/rights\/dsr$/);
    await rows.nth(1).waitFor();
    assert.deepEqual(dpo.problems, []);
  });

  test("the DPO moves a DSR pending -> in_progress (mouse) -> completed (keyboard only); only allowed moves are offered", async () => {
    const { page } = dpo;
    await page.goto(guard.url("/rights/dsr"));
    await page.getByRole("link", { name: new RegExp(correction.requestId) }).click();
    await page.getByRole("heading", { level: 1, name: "Correction request" }).waitFor();
    assert.ok(await page.getByText("My address changed to 12 Park Street").isVisible());
    // The principal links to the Consent lookup page, where their consents and nomination are shown.
    assert.equal(
      await page.getByRole("link", { name: "alice-rights" }).getAttribute("href"),
      "/dashboard/consent-lookup?by=externalId&q=alice-rights",
    );
    const history = page.getByRole("region", { name: "History" });
    assert.ok(await history.getByText("Filed as Pending").isVisible());
    // From pending the state machine allows in_progress only.
    const start = page.getByRole("button", { name: "Start work" });
    assert.ok(await start.isVisible());
    for (const name of ["Mark completed…", "Reject…"])
      assert.equal(
        await page.getByRole("button", { name }).count(),
        0,
        `${name} is not offered from pending`,
      );
    await checkAccessibility(page, "a pending DSR");
    await screenshot(page, "rights-dsr-detail-pending");

    await page.getByLabel("Reason (kept in the history, optional)").fill("Checking the new address");
    await start.click();
    await page.getByText("The request is now in progress.").waitFor();
    await history.getByText("Pending → In progress").waitFor();
    assert.ok(await history.getByText("Checking the new address").isVisible());
    assert.equal(await page.getByRole("button", { name: "Start work" }).count(), 0);

    // Keyboard only from here: Tab to the button, Space opens the confirmation, Enter confirms.
    await page.getByRole("button", { name: "Mark completed…" }).waitFor();
    await tabTo(page, "Mark completed…");
    await page.keyboard.press("Space");
    const dialog = page.getByRole("dialog", { name: "Mark the request completed?" });
    await dialog.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Mark completed");
    await page.keyboard.press("Enter");
    await page.getByText("The request is now completed.").waitFor();
    await history.getByText("In progress → Completed").waitFor();
    await page.getByText("This request is completed: that is final.").waitFor();
    for (const name of ["Start work", "Mark completed…", "Reject…"])
      assert.equal(
        await page.getByRole("button", { name }).count(),
        0,
        `${name} is not offered once completed`,
      );
    await checkAccessibility(page, "a completed DSR");
    await screenshot(page, "rights-dsr-detail-completed");

    // The server agrees: the request is completed with its history.
    const res = await page.request.get(`${guard.origin}/api/v1/staff/dsr/${correction.requestId}`);
    const body = (await res.json()) as { request: DsrBody; transitions: { to: string }[] };
    assert.equal(body.request.status, "completed");
    assert.deepEqual(
      body.transitions.map((t) => t.to),
      ["pending", "in_progress", "completed"],
    );
    assert.deepEqual(dpo.problems, []);
  });

  test("the overdue erasure request says so on its page and offers statutory denial with suggestions", async () => {
    const { page } = dpo;
    await page.goto(guard.url(`/rights/dsr/${late.requestId}`));
    await page.getByRole("heading", { level: 1, name: "Erasure request" }).waitFor();
    assert.match((await page.locator(".countdown-overdue").textContent()) ?? "", /Overdue by 10 days/);
    assert.ok(await page.getByRole("heading", { name: "Deny on a statutory basis" }).isVisible());
    // Submitting without a basis: the API's message is shown next to the field it names.
    await page.getByRole("button", { name: "Deny erasure…" }).click();
    await page.getByRole("dialog", { name: "Deny this erasure request?" }).waitFor();
    await page.getByRole("button", { name: "Deny erasure", exact: true }).click();
    await page.locator(".field-invalid .field-error").first().waitFor();
    const suggestions = page.getByLabel("Suggested provision");
    // The suggestions load on their own (with the page), not with the refusal.
    await suggestions.locator("option").nth(1).waitFor({ state: "attached" });
    assert.ok((await suggestions.locator("option").count()) > 1, "suggestions are listed");
    await suggestions.selectOption({ index: 1 });
    assert.notEqual(await page.getByLabel("Statute").inputValue(), "");
    assert.notEqual(await page.getByLabel("Citation").inputValue(), "");
    assert.equal(await page.locator(".field-invalid").count(), 0, "editing clears the stale field error");
    await checkAccessibility(page, "an overdue erasure DSR");
    await screenshot(page, "rights-dsr-detail-erasure");

    const statute = await page.getByLabel("Statute").inputValue();
    await page.getByRole("button", { name: "Deny erasure…" }).click();
    await page.getByRole("button", { name: "Deny erasure", exact: true }).click();
    await page.getByText("The request was denied on the statutory basis and is now rejected.").waitFor();
    // The notice comes with the answer; the re-read request follows it.
    await page.getByText("Denied under").waitFor();
    assert.ok(await page.getByText(statute, { exact: true }).isVisible());
    const history = page.getByRole("region", { name: "History" });
    await history.getByText("In progress → Rejected").waitFor();
    assert.ok(await history.getByText("Pending → In progress").isVisible());
    assert.equal(await page.getByRole("button", { name: "Deny erasure…" }).count(), 0);
    // Closed after its deadline: said in words.
    assert.ok(await page.getByText("Closed late").isVisible());
    assert.deepEqual(dpo.problems, []);
  });

  test("the DPO generates the summary of a summary request and sees it as the answer", async () => {
    const { page } = dpo;
    const token = await principalToken(guard.t, guard.seeded, "carol-rights");
    const filed = await fileDsr(guard.t, token, {
      organizationId: guard.seeded.org.organizationId,
      type: "summary",
    });
    await page.goto(guard.url(`/rights/dsr/${filed.requestId}`));
    await page.getByRole("heading", { level: 1, name: "Summary of data request" }).waitFor();
    assert.ok(await page.getByText("No answer recorded yet.").isVisible());
    await page.getByRole("button", { name: "Generate summary…" }).click();
    await page.getByRole("dialog", { name: "Generate the summary?" }).waitFor();
    await page.getByRole("button", { name: "Generate and complete" }).click();
    await page.getByText("The summary was generated and the request is completed.").waitFor();
    const answer = page.getByLabel("Answer recorded (JSON)");
    await answer.waitFor();
    assert.match((await answer.textContent()) ?? "", /carol-rights/);
    assert.equal(await page.getByRole("button", { name: "Generate summary…" }).count(), 0);
    await checkAccessibility(page, "a DSR with its generated summary");
    await screenshot(page, "rights-dsr-detail-summary");
    assert.deepEqual(dpo.problems, []);
  });

  test("the DPO answers a grievance (interim, then resolved with confirmation)", async () => {
    const { page } = dpo;
    await page.goto(guard.url("/rights/grievances"));
    await page.getByRole("heading", { level: 1, name: "Grievances" }).waitFor();
    await checkAccessibility(page, "the grievance queue");
    await screenshot(page, "rights-grievance-list");
    await page.getByRole("link", { name: "Marketing after withdrawal" }).click();
    await page.waitForURL(new RegExp(`/dashboard/rights/grievances/${grievance.grievanceId}$`));
    await page.getByRole("heading", { level: 1, name: "Grievance: Marketing after withdrawal" }).waitFor();
    // From open only in_progress is allowed.
    assert.equal(await page.getByRole("radio").count(), 1);
    await page.getByRole("button", { name: "Send response" }).click();
    // An empty response: the API's message next to the response field.
    await page.locator(".field-invalid").getByLabel("Response to the principal").waitFor();
    await page.getByLabel("Response to the principal").fill("We are looking into it.");
    await page.getByRole("button", { name: "Send response" }).click();
    await page.getByText("Response sent; the grievance is in progress.").waitFor();
    const history = page.getByRole("region", { name: "History" });
    await history.getByText("We are looking into it.").waitFor();
    await page.getByLabel("Resolved (the final response)").waitFor();

    await page.getByLabel("Response to the principal").fill("You are removed from the list.");
    await page.getByLabel("Resolved (the final response)").check();
    await page.getByRole("button", { name: "Send and resolve…" }).click();
    await page.getByRole("dialog", { name: "Resolve the grievance?" }).waitFor();
    await page.getByRole("button", { name: "Send and resolve", exact: true }).click();
    await page.getByText("Response sent; the grievance is resolved.").waitFor();
    await page.getByText("This grievance is resolved: that is final.").waitFor();
    assert.equal(await page.getByRole("button", { name: /Send/ }).count(), 0);
    await checkAccessibility(page, "a resolved grievance");
    await screenshot(page, "rights-grievance-detail");
    assert.deepEqual(dpo.problems, []);
  });

  test("a viewer reads the queues and details but cannot act", async () => {
    const viewer = await newUser(browser);
    try {
      const { page } = viewer;
      const orgId = guard.seeded.org.organizationId;
      const token = await principalToken(guard.t, guard.seeded, "bob-rights");
      const pending = await fileDsr(guard.t, token, { organizationId: orgId, type: "summary" });
      const open = await fileGrievance(guard.t, token, {
        organizationId: orgId,
        subject: "No answer",
        description: "Nobody replied.",
      });
      await signIn(page, guard, "viewer", `/rights/dsr/${pending.requestId}`);
      await page.getByRole("heading", { level: 1, name: "Summary of data request" }).waitFor();
      assert.ok(await page.getByText("Your role (viewer) can read this page but not change it.").isVisible());
      for (const name of ["Start work", "Generate summary…"])
        assert.equal(await page.getByRole("button", { name }).count(), 0, `${name} hidden from a viewer`);
      await checkAccessibility(page, "a DSR as viewer");
      await screenshot(page, "rights-dsr-detail-viewer");

      await page.goto(guard.url(`/rights/grievances/${open.grievanceId}`));
      await page.getByRole("heading", { level: 1, name: "Grievance: No answer" }).waitFor();
      assert.ok(await page.getByText("Your role (viewer) can read this page but not change it.").isVisible());
      assert.equal(await page.getByLabel("Response to the principal").count(), 0);

      await page.goto(guard.url("/rights/grievances"));
      await page.getByRole("link", { name: "No answer" }).waitFor();
      await page.getByText("Response periods").click();
      assert.ok(await page.getByLabel("DSR response days").isDisabled());
      assert.equal(await page.getByRole("button", { name: "Save periods" }).count(), 0);
      assert.deepEqual(viewer.problems, []);
    } finally {
      await viewer.close();
    }
  });
});
