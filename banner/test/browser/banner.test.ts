// The hosted banner in a real Chromium against a real, listening Guard (issue 23, "Tests and
// figures"): the test page is another loopback origin with a strict CSP, a script tagged with a
// purpose and the one-line snippet. Each test is one visitor (a fresh browser context, so fresh
// storage). Runs on the engine GUARD_TEST_DB names, like the server suites.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import axe from "axe-core";
import { computeAuditHash } from "@guard/contract";
import type { Browser, Page } from "playwright-core";
import { principal } from "../../../server/test/support/consent-fixtures.js";
import { bearer } from "../../../server/test/support/harness.js";
import { ok } from "../../../server/test/support/staff-client.js";
import { browserSkip, ensureBannerBuilt, launchChromium } from "./support/browser.js";
import { DATA_TYPES, eventually, NOTICE, startGuard, type GuardUnderTest } from "./support/guard.js";
import { load, newVisitor, ready, SEL, state, type Visitor } from "./support/page.js";
import { startSite, type Site } from "./support/site.js";

type ConsentRecord = {
  consentId: string;
  purpose: string;
  dataTypes: string[];
  givenAt: number;
  withdrawnAt: number | null;
  status: "active" | "withdrawn";
  noticeId: string;
  noticeVersion: number;
  source: string;
  auditHash: string;
  auditKeyVersion: number;
};

/** Consent Mode v2 defaults the banner sets before any network (BANNER-SPEC.md, loading step 1). */
const CONSENT_DEFAULTS = {
  ad_storage: "denied",
  ad_user_data: "denied",
  ad_personalization: "denied",
  analytics_storage: "denied",
  functionality_storage: "denied",
  personalization_storage: "denied",
  security_storage: "granted",
  wait_for_update: 500,
};

describe("hosted banner in Chromium", { skip: browserSkip }, () => {
  let guard: GuardUnderTest;
  let site: Site;
  let browser: Browser;
  const visitors: Visitor[] = [];

  before(async () => {
    await ensureBannerBuilt();
    guard = await startGuard("127.0.0.1");
    site = await startSite(guard.origin, guard.seeded.org.slug);
    browser = await launchChromium();
  });
  after(async () => {
    for (const visitor of visitors) await visitor.close().catch(() => undefined);
    await browser?.close();
    await site?.close();
    await guard?.close();
  });

  const visitor = async (options: Parameters<typeof newVisitor>[1] = {}) => {
    const v = await newVisitor(browser, options);
    visitors.push(v);
    return v;
  };

  const consent = async (consentId: string) =>
    ok<ConsentRecord>(
      await guard.t.request({
        method: "GET",
        url: `/cm/v1/consent/${consentId}`,
        headers: bearer(guard.seeded.apiKey),
      }),
    );

  /** The webhook deliveries the receiver accepted, parsed. */
  const webhooks = () =>
    guard.receiver.accepted().map(
      (hit) =>
        JSON.parse(hit.body) as {
          eventType: string;
          payload: { consentId: string; purpose: string; source: string };
        },
    );

  const assertNoCspViolations = async (page: Page) =>
    assert.deepEqual((await state(page)).violations, [], "the banner works under the page's strict CSP");

  const bannerVisible = (page: Page) => page.locator(SEL.banner).isVisible();

  /** A visitor who accepted everything on their first visit. */
  const acceptedVisitor = async () => {
    const v = await visitor();
    assert.deepEqual(await load(v.page, site.url), { shown: true });
    await v.page.locator(SEL.acceptAll).click();
    await eventually(
      "the tagged script to run after accept",
      async () => (await state(v.page)).analyticsRuns === 1,
    );
    const stored = await eventually("the decision to be stored", async () => (await state(v.page)).stored);
    return { v, stored };
  };

  test("first visit shows the banner; reject leaves the tagged script unexecuted and records nothing", async () => {
    const { page } = await visitor();
    assert.deepEqual(await load(page, site.url), { shown: true });
    const banner = page.locator(SEL.banner);
    assert.equal(await banner.isVisible(), true, "on screen once Guard.ready says shown");
    assert.equal(await banner.getAttribute("role"), "dialog");
    assert.match((await banner.textContent()) ?? "", new RegExp(NOTICE.content.en.title));
    const first = await state(page);
    assert.equal(first.hostState, "banner");
    assert.deepEqual(
      first.dataLayer[0],
      ["consent", "default", CONSENT_DEFAULTS],
      "Consent Mode defaults first",
    );
    assert.equal(first.analyticsRuns, 0);

    await page.locator(SEL.rejectAll).click();
    await eventually("the banner to close after reject", async () => !(await bannerVisible(page)));
    const after = await state(page);
    assert.equal(after.analyticsRuns, 0, "the Analytics tag did not run");
    assert.equal(site.hits("/analytics.js"), 0, "the Analytics tag was not even fetched");
    assert.equal(after.hostState, "hidden");
    assert.deepEqual(after.stored?.purposes, { Analytics: false, Marketing: false });
    const [event] = after.events;
    assert.equal(event?.reason, "choice");
    assert.deepEqual(event?.purposes, { Analytics: false, Marketing: false });
    assert.ok(event?.denied.includes("analytics_storage") && !event.granted.includes("analytics_storage"));
    const update = after.dataLayer
      .filter((e) => Array.isArray(e) && e[0] === "consent" && e[1] === "update")
      .at(-1) as [string, string, Record<string, string>] | undefined;
    assert.equal(update?.[2].analytics_storage, "denied", "Consent Mode update after the choice");
    // Refusing at first visit is no consent: nothing to record server-side.
    const [row] = await guard.t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM consents WHERE anonymous_id = $1",
      [after.stored!.anonymousId],
    );
    assert.equal(row!.n, 0);

    await page.reload();
    assert.deepEqual(await ready(page), { shown: false }, "a refusal is remembered");
    assert.equal((await state(page)).analyticsRuns, 0);
    await assertNoCspViolations(page);
  });

  test("accept runs the tag and records anonymous consent, visible through the service-key routes with its audit hash", async () => {
    const { v, stored } = await acceptedVisitor();
    const { page } = v;
    assert.equal(site.hits("/analytics.js") >= 1, true);
    const now = await state(page);
    assert.equal(await bannerVisible(page), false);
    assert.deepEqual(stored.purposes, { Analytics: true, Marketing: true });
    assert.equal(stored.noticeId, guard.noticeId);
    assert.equal(stored.noticeVersion, guard.noticeVersion);
    assert.match(stored.anonymousId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // The guard:consent event and the Consent Mode update.
    const event = now.events.at(-1);
    assert.equal(event?.reason, "choice");
    assert.deepEqual(event?.purposes, { Analytics: true, Marketing: true });
    assert.equal(event?.anonymousId, stored.anonymousId);
    assert.equal(event?.noticeId, guard.noticeId);
    for (const type of ["analytics_storage", "ad_storage", "ad_user_data", "ad_personalization"])
      assert.ok(event?.granted.includes(type), `${type} granted`);
    assert.deepEqual(now.dataLayer[0], ["consent", "default", CONSENT_DEFAULTS]);
    const update = now.dataLayer.find((e) => Array.isArray(e) && e[0] === "consent" && e[1] === "update") as
      [string, string, Record<string, string>] | undefined;
    assert.equal(update?.[2].analytics_storage, "granted");
    assert.equal(update?.[2].ad_storage, "granted");

    // The anonymous id is in a first-party cookie too, for the fiduciary's backend to link.
    const cookies = await v.context.cookies(site.url);
    assert.equal(
      cookies.find((c) => c.name === `guard_anon_${guard.seeded.org.slug}`)?.value,
      stored.anonymousId,
    );

    const organizationId = guard.seeded.org.organizationId;
    for (const purpose of ["Analytics", "Marketing"]) {
      const consentId = stored.consentIds[purpose];
      assert.ok(consentId, `a consent id stored for ${purpose}`);
      const record = await consent(consentId);
      assert.equal(record.status, "active");
      assert.equal(record.purpose, purpose);
      assert.deepEqual(record.dataTypes, DATA_TYPES[purpose]);
      assert.equal(record.noticeId, guard.noticeId);
      assert.equal(record.noticeVersion, guard.noticeVersion);
      // The service-key route shows the consent's evidence; its audit hash recomputes from the contract.
      assert.equal(record.source, "anonymous");
      assert.equal(
        record.auditHash,
        computeAuditHash(guard.t.config.auditKeys[record.auditKeyVersion]!, {
          organizationId,
          noticeId: record.noticeId,
          noticeVersion: record.noticeVersion,
          purpose,
          dataTypes: record.dataTypes,
          givenAt: record.givenAt,
          source: "anonymous",
        }),
      );
      const [row] = await guard.t.db.query<{ anonymous_id: string }>(
        "SELECT anonymous_id FROM consents WHERE consent_id = $1",
        [consentId],
      );
      assert.equal(row!.anonymous_id, stored.anonymousId);
    }
    await eventually("consent.given webhooks for both purposes", () => {
      const given = webhooks().filter((w) => w.eventType === "consent.given");
      return Object.values(stored.consentIds).every((id) => given.some((w) => w.payload.consentId === id));
    });

    // The fiduciary links the guest's consent at sign-in; consent-status then shows it.
    const user = await principal(guard.t, guard.seeded);
    const linked = ok<{ linkedCount: number }>(
      await guard.t.request({
        method: "POST",
        url: "/api/v1/link-anonymous-consent",
        headers: bearer(user.accessToken),
        payload: { anonymousId: stored.anonymousId },
      }),
    );
    assert.equal(linked.linkedCount, 2);
    const status = ok<{
      consents: { purpose: string; status: string; noticeId: string; source: string; auditHash: string }[];
    }>(
      await guard.t.request({
        method: "GET",
        url: `/api/v1/consent-status?externalId=${encodeURIComponent(user.externalId)}`,
        headers: bearer(guard.seeded.apiKey),
      }),
    );
    assert.deepEqual(status.consents.map((c) => [c.purpose, c.status, c.noticeId, c.source]).sort(), [
      ["Analytics", "active", guard.noticeId, "linked"],
      ["Marketing", "active", guard.noticeId, "linked"],
    ]);
    // Linking re-hashes the consent with source `linked`.
    for (const entry of status.consents) assert.match(entry.auditHash, /^[0-9a-f]{64}$/);
    await assertNoCspViolations(page);
  });

  test("reload shows no banner, runs the tag at once from the stored decision and shows the floating button", async () => {
    const { v } = await acceptedVisitor();
    const { page } = v;
    await page.reload();
    assert.deepEqual(await ready(page), { shown: false });
    const now = await state(page);
    assert.equal(await bannerVisible(page), false);
    assert.equal(now.analyticsRuns, 1, "released from the stored decision");
    assert.equal(now.events[0]?.reason, "stored");
    assert.deepEqual(now.events[0]?.purposes, { Analytics: true, Marketing: true });
    // The stored decision is applied before any network: the update follows the defaults directly.
    assert.deepEqual(now.dataLayer[0], ["consent", "default", CONSENT_DEFAULTS]);
    const second = now.dataLayer[1] as [string, string, Record<string, string>] | undefined;
    assert.deepEqual(
      [second?.[0], second?.[1], second?.[2].analytics_storage],
      ["consent", "update", "granted"],
    );
    assert.equal(await page.locator(SEL.floating).isVisible(), true);
    assert.equal(now.hostState, "hidden");
    await assertNoCspViolations(page);
  });

  test("withdrawing in the preference centre reaches Guard and its consent.withdrawn webhook", async () => {
    const { v, stored } = await acceptedVisitor();
    const { page } = v;
    const analyticsId = stored.consentIds.Analytics!;
    const marketingId = stored.consentIds.Marketing!;

    // Through the floating button: Escape closes and gives focus back to it.
    await page.locator(SEL.floating).click();
    const preferences = page.locator(SEL.preferences);
    await preferences.waitFor({ state: "visible" });
    assert.equal(await preferences.getAttribute("role"), "dialog");
    assert.equal(await preferences.getAttribute("aria-modal"), "true");
    assert.equal((await state(page)).hostState, "preferences");
    await page.keyboard.press("Escape");
    await preferences.waitFor({ state: "hidden" });
    assert.equal(await activeAction(page), "open-preferences", "focus returns to the opener");

    await page.locator(SEL.floating).click();
    await preferences.waitFor({ state: "visible" });
    const toggle = page.locator(SEL.toggle("Analytics"));
    assert.equal(await toggle.isChecked(), true);
    assert.equal(await page.locator(SEL.toggle("Marketing")).isChecked(), true);
    await toggle.uncheck();
    await page.locator(SEL.inPreferences("save")).click();
    await preferences.waitFor({ state: "hidden" });
    await eventually(
      "the Analytics consent to be withdrawn",
      async () => (await consent(analyticsId)).status === "withdrawn",
    );
    assert.equal((await consent(marketingId)).status, "active", "the other purpose is untouched");
    await eventually("the consent.withdrawn webhook", () =>
      webhooks().some((w) => w.eventType === "consent.withdrawn" && w.payload.consentId === analyticsId),
    );
    let now = await state(page);
    assert.deepEqual(now.stored?.purposes, { Analytics: false, Marketing: true });
    assert.equal(now.events.at(-1)?.reason, "choice");
    assert.ok(now.events.at(-1)?.denied.includes("analytics_storage"));

    // Through the API: Guard.openPreferences(), then reject all.
    await page.evaluate(() =>
      (window as unknown as { Guard: { openPreferences(): void } }).Guard.openPreferences(),
    );
    await preferences.waitFor({ state: "visible" });
    assert.equal(await page.locator(SEL.toggle("Analytics")).isChecked(), false);
    await page.locator(SEL.inPreferences("reject-all")).click();
    await eventually(
      "the Marketing consent to be withdrawn",
      async () => (await consent(marketingId)).status === "withdrawn",
    );
    await eventually("the second consent.withdrawn webhook", () =>
      webhooks().some((w) => w.eventType === "consent.withdrawn" && w.payload.consentId === marketingId),
    );
    now = await state(page);
    assert.deepEqual(now.stored?.purposes, { Analytics: false, Marketing: false });
    await page.reload();
    assert.deepEqual(await ready(page), { shown: false }, "a withdrawal is a decision too");
    await assertNoCspViolations(page);
  });

  test("a hi-IN browser gets the notice in Hindi; the switcher changes the language", async () => {
    const { page } = await visitor({ locale: "hi-IN" });
    assert.deepEqual(await load(page, site.url), { shown: true });
    const banner = page.locator(SEL.banner);
    assert.match((await banner.textContent()) ?? "", new RegExp(NOTICE.content.hi.title));
    assert.equal(await bannerLanguage(page), "hi");
    const select = page.locator(SEL.language);
    assert.equal(await select.inputValue(), "hi");
    assert.deepEqual(
      (
        await select
          .locator("option")
          .evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))
      ).sort(),
      ["en", "hi"],
    );
    assert.ok(
      await select.evaluate(
        (el) => (el as HTMLSelectElement).labels?.length || el.getAttribute("aria-label"),
      ),
      "the switcher has an accessible label",
    );
    await select.selectOption("en");
    await eventually("the English text", async () =>
      ((await banner.textContent()) ?? "").includes(NOTICE.content.en.title),
    );
    assert.equal(await bannerLanguage(page), "en");
    await assertNoCspViolations(page);
  });

  test("keyboard only: Tab and Enter accept", async () => {
    const { page } = await visitor();
    assert.deepEqual(await load(page, site.url), { shown: true });
    await page.locator(SEL.banner).waitFor({ state: "visible" });
    await page.keyboard.press("Tab");
    assert.notEqual(await activeAction(page), undefined, "the first Tab stays in the banner");
    let presses = 1;
    while ((await activeAction(page)) !== "accept-all" && presses < 10) {
      await page.keyboard.press("Tab");
      presses++;
    }
    assert.equal(await activeAction(page), "accept-all", "accept-all is reachable by Tab");
    await page.keyboard.press("Enter");
    await eventually("the tagged script to run", async () => (await state(page)).analyticsRuns === 1);
    const stored = await eventually("the decision", async () => (await state(page)).stored);
    assert.equal((await consent(stored.consentIds.Analytics!)).status, "active");
    await assertNoCspViolations(page);
  });

  test("accept and reject look the same, and host page styles do not reach them", async () => {
    const { page } = await visitor();
    assert.deepEqual(await load(page, site.url), { shown: true });
    const look = (selector: string) =>
      page.locator(selector).evaluate((el): Record<string, string | number> => {
        const s = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        return {
          className: String(el.getAttribute("class")),
          width: Math.round(box.width),
          height: Math.round(box.height),
          ...Object.fromEntries(
            [
              "color",
              "background-color",
              "font-family",
              "font-size",
              "font-weight",
              "font-style",
              "text-decoration-line",
              "border-top-width",
              "border-top-style",
              "border-top-color",
              "border-radius",
              "padding-top",
              "padding-left",
              "opacity",
            ].map((p) => [p, s.getPropertyValue(p)]),
          ),
        };
      });
    const accept = await look(SEL.acceptAll);
    const reject = await look(SEL.rejectAll);
    assert.deepEqual(reject, accept);
    assert.notEqual(
      accept["background-color"],
      "rgb(255, 105, 180)",
      "the host's button rule does not apply",
    );
    await assertNoCspViolations(page);
  });

  test("a 360×640 phone shows every banner button inside the viewport", async () => {
    const { page } = await visitor({ viewport: { width: 360, height: 640 }, isMobile: true, hasTouch: true });
    assert.deepEqual(await load(page, site.url), { shown: true });
    for (const selector of [SEL.acceptAll, SEL.rejectAll, SEL.customize]) {
      const box = await page.locator(selector).boundingBox();
      assert.ok(box, `${selector} is rendered`);
      assert.ok(
        box.x >= 0 && box.y >= 0 && box.x + box.width <= 360 && box.y + box.height <= 640,
        `${selector} inside the viewport: ${JSON.stringify(box)}`,
      );
    }
    const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(scrollWidth <= 360, `no horizontal scrolling (scrollWidth ${scrollWidth})`);
    await assertNoCspViolations(page);
  });

  test("an unregistered origin gets no CORS grant, no banner and exactly one console warning", async () => {
    const v = await visitor();
    const { page } = v;
    assert.deepEqual(await load(page, site.unregisteredUrl), { shown: false });
    // Let any late message arrive before counting.
    await page.waitForTimeout(300);
    assert.equal(await page.locator(SEL.banner).count(), 0);
    assert.equal((await state(page)).analyticsRuns, 0);
    const warnings = v.console.filter((m) => m.type === "warning");
    assert.equal(warnings.length, 1, JSON.stringify(v.console));
    assert.match(warnings[0]!.text, /localhost/);
    assert.match(warnings[0]!.text, new RegExp(guard.seeded.org.slug));
    assert.deepEqual(v.pageErrors, [], "nothing thrown");
    await assertNoCspViolations(page);

    // The same calls as seen by Guard: the registered host is granted, the other is not.
    const slug = guard.seeded.org.slug;
    const unregistered = `http://localhost:${site.port}`;
    const registered = `http://127.0.0.1:${site.port}`;
    const get = (origin: string) => fetch(`${guard.origin}/api/v1/org/${slug}`, { headers: { origin } });
    const preflight = (origin: string) =>
      fetch(`${guard.origin}/api/v1/consents/anonymous`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "POST",
          "access-control-request-headers": "content-type,idempotency-key",
        },
      });
    assert.equal((await get(unregistered)).headers.get("access-control-allow-origin"), null);
    assert.equal((await preflight(unregistered)).headers.get("access-control-allow-origin"), null);
    assert.equal((await get(registered)).headers.get("access-control-allow-origin"), registered);
    assert.equal((await preflight(registered)).headers.get("access-control-allow-origin"), registered);
  });

  test("axe-core finds no serious or critical violation in the banner or the preference centre", async () => {
    const { page } = await visitor();
    assert.deepEqual(await load(page, site.url), { shown: true });
    // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern.
    await page.evaluate(axe.source);
    const audit = (part: string) =>
      page.evaluate(async (part) => {
        const { axe: inPage } = window as unknown as { axe: typeof axe };
        // The host, then the part inside its shadow root (axe's shadow DOM selector).
        const result = await inPage.run({ include: { fromShadowDom: ["#guard-consent", part] } });
        return {
          checked: result.passes.reduce((n, rule) => n + rule.nodes.length, 0),
          serious: result.violations
            .filter((rule) => rule.impact === "serious" || rule.impact === "critical")
            .map((rule) => ({
              id: rule.id,
              impact: rule.impact,
              nodes: rule.nodes.map((n) => n.target.join(" > ")),
            })),
        };
      }, part);
    const banner = await audit('[data-guard="banner"]');
    assert.ok(banner.checked > 0, "axe looked inside the shadow root");
    assert.deepEqual(banner.serious, [], "banner");
    await page.locator(SEL.customize).click();
    await page.locator(SEL.preferences).waitFor({ state: "visible" });
    const preferences = await audit('[data-guard="preferences"]');
    assert.ok(preferences.checked > 0);
    assert.deepEqual(preferences.serious, [], "preference centre");
  });
});

/** `data-action` of the element focused inside the banner's shadow root (null: no action; undefined: none). */
function activeAction(page: Page): Promise<string | null | undefined> {
  return page.evaluate(() => {
    const active = document.getElementById("guard-consent")?.shadowRoot?.activeElement;
    return active ? active.getAttribute("data-action") : undefined;
  });
}

/** The `lang` the banner's text is marked with. */
function bannerLanguage(page: Page): Promise<string | null> {
  return page.locator(SEL.banner).evaluate((el) => el.closest("[lang]")?.getAttribute("lang") ?? null);
}
