// The principal's withdrawal page: /withdraw (type the code from a slip) and /withdraw/{token} (a
// QR code's link) show what the token withdraws and withdraw only on the confirming POST, through
// the same rule as the API; plain HTML without script, no Referer, rate-limited per address; and the
// access log never carries a token.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { redactedPath } from "../../../src/http/logging.js";
import { WITHDRAWAL_BUDGET } from "../../../src/offline/withdrawal/routes.js";
import { publishTestNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

describe("withdrawal page", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let noticeId: string;
  let calls = 0;
  let addresses = 0;
  let address = "";

  /** An IVR acceptance: a consent (source offline_ivr) and the token read out to the caller. */
  const ivrConsent = async (purpose = "Marketing") => {
    const res = await t.request({
      method: "POST",
      url: "/api/v1/offline/ivr",
      headers: bearer(acme.apiKey),
      payload: {
        noticeId,
        partnerCallId: `page-call-${++calls}`,
        audioRecordingUri: `https://recordings.example/${calls}.wav`,
        locale: "en",
        dtmfSequence: "1",
        callerNumberHash: "h",
        capturedAt: t.clock.now(),
        partnerSignature: "sig",
        purpose,
        dataTypes: ["phone"],
      },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as { consentId: string; withdrawalToken: string };
  };
  const page = (
    method: "GET" | "POST",
    url: string,
    form?: Record<string, string>,
    remoteAddress = address,
  ) =>
    t.request({
      method,
      url,
      remoteAddress,
      ...(form
        ? {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            payload: new URLSearchParams(form).toString(),
          }
        : {}),
    });
  const statusOf = async (consentId: string) =>
    (
      await t.request({ method: "GET", url: `/cm/v1/consent/${consentId}`, headers: bearer(acme.apiKey) })
    ).json().status as string;
  const assertPageHeaders = (res: Awaited<ReturnType<TestApp["request"]>>) => {
    assert.match(String(res.headers["content-type"]), /^text\/html; charset=utf-8/);
    assert.equal(res.headers["referrer-policy"], "no-referrer");
    assert.equal(res.headers["cache-control"], "no-store");
    assert.match(String(res.headers["content-security-policy"]), /default-src 'none'/);
    assert.doesNotMatch(
      String(res.headers["content-security-policy"]),
      /script-src|upgrade-insecure-requests/,
    );
    assert.doesNotMatch(res.body, /<script/i);
  };

  before(async () => {
    t = await startTestApp({ accessLog: true, logLevel: "info" });
    acme = await seedOrganization(t);
    // A name with markup: the page shows it as text.
    await t.db.query("UPDATE organizations SET name = $2 WHERE organization_id = $1", [
      acme.org.organizationId,
      "Shanti <Clinic> & Co",
    ]);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());
  test.beforeEach(() => {
    address = `10.8.0.${++addresses}`;
  });

  test("GET /withdraw is a form to type the code, with no script and no Referer", async () => {
    const res = await page("GET", "/withdraw");
    assert.equal(res.statusCode, 200, res.body);
    assertPageHeaders(res);
    assert.match(res.body, /<form method="post" action="\/withdraw">/);
    assert.match(res.body, /<input type="text" id="token" name="token"/);
    const hindi = await t.request({ method: "GET", url: "/withdraw?lang=hi", remoteAddress: address });
    assert.match(hindi.body, /<html lang="hi"/);
  });

  test("the QR link shows what the token withdraws; only the confirming POST withdraws", async () => {
    const { consentId, withdrawalToken } = await ivrConsent("Marketing");
    const shown = await page("GET", `/withdraw/${withdrawalToken}`);
    assert.equal(shown.statusCode, 200, shown.body);
    assertPageHeaders(shown);
    assert.match(shown.body, /<strong>Marketing<\/strong>/);
    assert.match(shown.body, /Shanti &lt;Clinic&gt; &amp; Co/);
    assert.doesNotMatch(shown.body, /<Clinic>/);
    assert.match(shown.body, /given 23 Nov 2026/);
    assert.match(shown.body, new RegExp(`<form method="post" action="/withdraw/${withdrawalToken}">`));
    // Looking is not withdrawing.
    assert.equal(await statusOf(consentId), "active");

    t.clock.advance(1_000);
    const done = await page("POST", `/withdraw/${withdrawalToken}`);
    assert.equal(done.statusCode, 200, done.body);
    assertPageHeaders(done);
    assert.match(done.body, /Consent withdrawn/);
    assert.match(done.body, /<strong>Marketing<\/strong>/);
    assert.equal(await statusOf(consentId), "withdrawn");
    const events = await t.db.query<{ event_type: string; reason: string | null }>(
      "SELECT event_type, reason FROM consent_events WHERE consent_id = $1 ORDER BY audit_ref",
      [consentId],
    );
    assert.deepEqual(events.at(-1), { event_type: "withdrawn", reason: "principal_request" });
    const [hook] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_events WHERE event_type = 'consent.withdrawn' AND payload->>'consentId' = $1",
      [consentId],
    );
    assert.equal(hook!.n, 1);

    // A refresh or a double tap: nothing more happens, and the page says it was already withdrawn.
    const again = await page("POST", `/withdraw/${withdrawalToken}`);
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /was already withdrawn/);
    const shownAfter = await page("GET", `/withdraw/${withdrawalToken}`);
    assert.match(shownAfter.body, /already withdrawn/);
    assert.doesNotMatch(shownAfter.body, /<form/);
  });

  test("a typed code (spaces forgiven) shows the consents; confirming withdraws them", async () => {
    const { consentId, withdrawalToken } = await ivrConsent("Newsletter");
    const typed = `  ${withdrawalToken.slice(0, 10)} ${withdrawalToken.slice(10)} `;
    const shown = await page("POST", "/withdraw", { token: typed });
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(shown.body, /<strong>Newsletter<\/strong>/);
    assert.match(shown.body, new RegExp(`<input type="hidden" name="token" value="${withdrawalToken}">`));
    assert.match(shown.body, /<input type="hidden" name="confirm" value="yes">/);
    assert.equal(await statusOf(consentId), "active");
    const done = await page("POST", "/withdraw", { token: withdrawalToken, confirm: "yes" });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Consent withdrawn/);
    assert.equal(await statusOf(consentId), "withdrawn");
  });

  test("an unknown or malformed code is a 404 page that reveals nothing", async () => {
    for (const url of [`/withdraw/wdt_${"C".repeat(32)}`, "/withdraw/not-a-token"]) {
      const res = await page("GET", url);
      assert.equal(res.statusCode, 404);
      assertPageHeaders(res);
      assert.match(res.body, /Page not found/);
      const posted = await page("POST", url);
      assert.equal(posted.statusCode, 404);
    }
    const typed = await page("POST", "/withdraw", { token: "wdt_nothing" });
    assert.equal(typed.statusCode, 404);
    assert.match(typed.body, /No consent matches this code/);
    assert.match(typed.body, /<form method="post" action="\/withdraw">/);
  });

  test("token lookups spend the per-address budget: past it, a 429 page with Retry-After", async () => {
    const unknown = `/withdraw/wdt_${"D".repeat(32)}`;
    for (let i = 0; i < WITHDRAWAL_BUDGET.limit; i++)
      assert.equal((await page("GET", unknown)).statusCode, 404);
    const limited = await page("GET", unknown);
    assert.equal(limited.statusCode, 429);
    assertPageHeaders(limited);
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    // The API route shares the budget.
    const api = await t.request({
      method: "POST",
      url: "/api/v1/offline/withdrawals",
      payload: { withdrawalToken: "x" },
      remoteAddress: address,
    });
    assert.equal(api.statusCode, 429);
    // The form itself is never limited.
    assert.equal((await page("GET", "/withdraw")).statusCode, 200);
  });

  test("the access log names the page, never the token", async () => {
    const { withdrawalToken } = await ivrConsent("Account");
    t.logs.length = 0;
    await page("GET", `/withdraw/${withdrawalToken}`);
    await page("GET", "/offline-consent/secret-link-token");
    await page("GET", "/consent/secret-pos-token");
    const logged = t.logs.join("\n");
    assert.match(logged, /"path":"\/withdraw\/\[redacted\]"/);
    assert.match(logged, /"path":"\/offline-consent\/\[redacted\]"/);
    assert.match(logged, /"path":"\/consent\/\[redacted\]"/);
    assert.ok(!logged.includes(withdrawalToken));
    assert.ok(!logged.includes("secret-link-token"));
    assert.ok(!logged.includes("secret-pos-token"));
  });

  test("redactedPath keeps other paths as they are", () => {
    assert.equal(redactedPath("/withdraw"), "/withdraw");
    assert.equal(redactedPath("/withdraw/wdt_abc"), "/withdraw/[redacted]");
    assert.equal(redactedPath("/consent/tok/extra"), "/consent/[redacted]/extra");
    assert.equal(redactedPath("/cm/v1/consent/cns_123"), "/cm/v1/consent/cns_123");
    assert.equal(redactedPath("/api/v1/consents/anonymous"), "/api/v1/consents/anonymous");
  });
});
