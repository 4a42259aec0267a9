// QR consent links: POST /api/v1/offline-consent/links mints a link for one purpose of a published
// notice (per-key budget, idempotent, behind offline_consent_links), staff list and disable links
// (labels shown to staff only, counts of answers), and the principal's page /offline-consent/{token}
// shows the notice in its languages without JavaScript and records an agreement (exactly one
// consent with source offline_link and a withdrawal token, however often the form is posted) or a
// refusal (evidence only), behind offline_consent_bridge.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { verifyAuditChain } from "../../../src/audit/verify.js";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import { parseNoticeDraft, publishNotice } from "../../../src/notices/notices.js";
import { LINK_PAGE_POST_BUDGET } from "../../../src/offline/links/page.js";
import { OFFLINE_ROUTE_BUDGET, spendOfflineBudget } from "../../../src/offline/routes.js";
import { resolveWithdrawalToken } from "../../../src/offline/withdrawal/tokens.js";
import { assertApiError } from "../../support/api-error.js";
import {
  archiveNotice,
  countRows,
  insertDraftNotice,
  publishTestNotice,
} from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";
import { ok, staffClient } from "../../support/staff-client.js";

interface Created {
  linkId: string;
  token: string;
  url: string;
}

interface LinkRecord {
  linkId: string;
  noticeId: string;
  purpose: string;
  dataTypes: string[];
  label: string | null;
  createdBy: string;
  disabledAt: number | null;
  disabledBy: string | null;
  acceptedCount: number;
  declinedCount: number;
}

const TWO_LANGUAGE_NOTICE = {
  key: "counter",
  itemized: [
    { purpose: "Account", personalDataDescription: "Name and phone, to open your account." },
    { purpose: "Marketing", personalDataDescription: "Phone, to send offers." },
  ],
  content: {
    en: {
      title: "How the branch uses your data",
      body: "We keep your data only for the purposes listed.",
      withdrawal: "Withdraw at any time with your code.",
      rights: "You may access, correct and erase your data.",
      complaint: "Write to the grievance officer; you may complain to the Board.",
    },
    hi: {
      title: "शाखा आपके डेटा का उपयोग कैसे करती है",
      body: "हम आपका डेटा केवल सूचीबद्ध उद्देश्यों के लिए रखते हैं।",
      withdrawal: "अपने कोड से कभी भी सहमति वापस लें।",
      rights: "आप अपना डेटा देख, सुधार और मिटा सकते हैं।",
      complaint: "शिकायत अधिकारी को लिखें; आप बोर्ड से शिकायत कर सकते हैं।",
    },
  },
};

const FORM = { "content-type": "application/x-www-form-urlencoded" };

describe("offline consent links", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let otherNotice: string;
  let staff: ReturnType<typeof staffClient>;
  let addresses = 0;
  /** A client address of its own, so the page's per-address budget never couples two tests. */
  const address = () => `10.26.${Math.floor(++addresses / 250)}.${addresses % 250}`;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (
      await publishNotice(t.db, acme.org.organizationId, parseNoticeDraft(TWO_LANGUAGE_NOTICE), t.clock.now())
    ).noticeId;
    otherNotice = (await publishTestNotice(t, other)).noticeId;
    staff = staffClient(t);
  });
  after(() => t.close());

  const body = (overrides: Record<string, unknown> = {}) => ({
    noticeId,
    purpose: "Marketing",
    dataTypes: ["phone"],
    label: "Mumbai Branch - Counter 3",
    ...overrides,
  });
  const create = (payload: Record<string, unknown>, seeded = acme, headers: Record<string, string> = {}) =>
    t.request({
      method: "POST",
      url: "/api/v1/offline-consent/links",
      headers: { ...bearer(seeded.apiKey), ...headers },
      payload,
    });
  const mint = async (overrides: Record<string, unknown> = {}) =>
    ok<Created>(await create(body(overrides)), 201);
  const page = (token: string, options: { query?: string; headers?: Record<string, string> } = {}) =>
    t.request({
      method: "GET",
      url: `/offline-consent/${token}${options.query ?? ""}`,
      headers: options.headers ?? {},
      remoteAddress: address(),
    });
  const nonceOf = (html: string) => /name="nonce" value="([0-9A-Za-z]+)"/.exec(html)![1]!;
  const versionOf = (html: string) => /name="version" value="(\d+)"/.exec(html)![1]!;
  const post = (token: string, fields: Record<string, string>, remoteAddress = address()) =>
    t.request({
      method: "POST",
      url: `/offline-consent/${token}`,
      headers: FORM,
      payload: new URLSearchParams(fields).toString(),
      remoteAddress,
    });
  const rendered = async (token: string) => {
    const res = await page(token);
    assert.equal(res.statusCode, 200, res.body);
    return { nonce: nonceOf(res.body), version: versionOf(res.body) };
  };
  const linkConsents = async (seeded = acme) =>
    (
      await t.db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM consents WHERE organization_id = $1 AND source = 'offline_link'",
        [seeded.org.organizationId],
      )
    )[0]!.n;
  const tokenOnPage = (html: string) => /class="secret">(wdt_[0-9A-Za-z]{32})</.exec(html)?.[1];

  const assertPageHeaders = (res: LightMyRequestResponse) => {
    assert.match(String(res.headers["content-type"]), /^text\/html; charset=utf-8/);
    const csp = String(res.headers["content-security-policy"]);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);
    assert.doesNotMatch(csp, /script-src/);
    assert.equal(res.headers["referrer-policy"], "no-referrer");
    assert.equal(res.headers["cache-control"], "no-store");
    assert.doesNotMatch(res.body, /<script/i);
  };

  test("minting answers 201 with the link id, a token and the page's URL; a replay answers the same link", async () => {
    const first = await create(body(), acme, { "idempotency-key": "link-once" });
    const created = ok<Created>(first, 201);
    assert.match(created.linkId, /^lnk_/);
    assert.match(created.token, /^olk_[0-9A-Za-z]{26}$/);
    assert.match(created.url, /^https?:\/\/[^/]+\/offline-consent\/olk_/);
    assert.ok(created.url.endsWith(`/offline-consent/${created.token}`));
    const replay = await create(body(), acme, { "idempotency-key": "link-once" });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.json(), created);
    const stored = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM offline_consent_links WHERE organization_id = $1 AND link_id = $2",
      [acme.org.organizationId, created.linkId],
    );
    assert.equal(stored[0]!.n, 1);
    // Only the token's hash is kept.
    const leaked = await t.db.query("SELECT 1 FROM offline_consent_links WHERE token_hash = $1", [
      created.token,
    ]);
    assert.equal(leaked.length, 0);
    // The same key with another body is a conflict, not a second link.
    assertApiError(
      await create(body({ purpose: "Account" }), acme, { "idempotency-key": "link-once" }),
      409,
      "CONFLICT",
    );
  });

  test("the link's URL uses GUARD_PUBLIC_URL when it is set", async () => {
    const configured = await startTestApp({ publicUrl: "http://guard.example.test:8080/base" });
    try {
      const seeded = await seedOrganization(configured);
      const notice = (await publishTestNotice(configured, seeded)).noticeId;
      const res = await configured.request({
        method: "POST",
        url: "/api/v1/offline-consent/links",
        headers: bearer(seeded.apiKey),
        payload: { noticeId: notice, purpose: "Account", dataTypes: ["email"] },
      });
      const created = ok<Created>(res, 201);
      assert.equal(created.url, `http://guard.example.test:8080/base/offline-consent/${created.token}`);
    } finally {
      await configured.close();
    }
  });

  test("a notice that is not the organisation's, not published, or not itemising the purpose is refused", async () => {
    assertApiError(await create(body({ noticeId: otherNotice })), 404, "NOT_FOUND");
    assertApiError(await create(body({ noticeId: "ntc_doesNotExist0" })), 404, "NOT_FOUND");
    const draft = await insertDraftNotice(t, acme);
    assertApiError(await create(body({ noticeId: draft })), 400, "NOTICE_NOT_PUBLISHED");
    assertApiError(await create(body({ purpose: "Profiling" })), 400, "VALIDATION_ERROR", {
      field: "purpose",
    });
    assertApiError(await create(body({ label: "   " })), 400, "VALIDATION_ERROR", { field: "label" });
    assertApiError(await create(body({ dataTypes: ["a|b"] })), 400, "VALIDATION_ERROR");
    assertApiError(await create(body({ dataTypes: [] })), 400, "VALIDATION_ERROR");
    assertApiError(
      await t.request({ method: "POST", url: "/api/v1/offline-consent/links", payload: body() }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("the route answers 429 with Retry-After once the key's budget is spent", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const credential = { organizationId: seeded.org.organizationId, apiKeyId: seeded.apiKeyId };
    for (let spent = 0; spent < OFFLINE_ROUTE_BUDGET.limit; spent++)
      spendOfflineBudget(credential, "links", t.clock.now());
    const refused = await create({ noticeId: notice, purpose: "Account", dataTypes: ["email"] }, seeded);
    assertApiError(refused, 429, "RATE_LIMITED");
    assert.ok(Number(refused.headers["retry-after"]) >= 1);
    assert.equal(await countRows(t, "offline_consent_links", seeded.org.organizationId), 0);
    // Another key's budget is its own.
    ok(await create(body()), 201);
  });

  test("staff list links with their labels and answer counts; admin and dpo disable, viewers may not", async () => {
    const link = await mint({ label: "Pune - desk 2" });
    const listed = ok<{ links: LinkRecord[]; nextCursor: string | null }>(
      await staff(acme, "viewer", "GET", "/api/v1/staff/offline-consent/links?limit=500"),
    );
    const row = listed.links.find((l) => l.linkId === link.linkId)!;
    assert.equal(row.label, "Pune - desk 2");
    assert.equal(row.noticeId, noticeId);
    assert.equal(row.purpose, "Marketing");
    assert.deepEqual(row.dataTypes, ["phone"]);
    assert.equal(row.createdBy, `service:${acme.apiKeyId}`);
    assert.equal(row.disabledAt, null);
    assert.equal(row.acceptedCount, 0);
    // Answers are counted.
    const shown = await rendered(link.token);
    assert.equal((await post(link.token, { ...shown, decision: "decline", lang: "en" })).statusCode, 200);
    const counted = ok<{ links: LinkRecord[] }>(
      await staff(acme, "viewer", "GET", "/api/v1/staff/offline-consent/links?limit=500"),
    ).links.find((l) => l.linkId === link.linkId)!;
    assert.equal(counted.declinedCount, 1);
    assert.equal(counted.acceptedCount, 0);
    // The service key may list too; another organisation sees none of acme's links.
    const byKey = ok<{ links: LinkRecord[] }>(
      await t.request({
        method: "GET",
        url: "/api/v1/staff/offline-consent/links",
        headers: bearer(acme.apiKey),
      }),
    );
    assert.ok(byKey.links.some((l) => l.linkId === link.linkId));
    const theirs = ok<{ links: LinkRecord[] }>(
      await staff(other, "admin", "GET", "/api/v1/staff/offline-consent/links"),
    );
    assert.ok(!theirs.links.some((l) => l.linkId === link.linkId));

    const disableUrl = `/api/v1/staff/offline-consent/links/${link.linkId}/disable`;
    assertApiError(await staff(acme, "viewer", "POST", disableUrl), 403, "FORBIDDEN");
    assertApiError(await staff(other, "admin", "POST", disableUrl), 404, "NOT_FOUND");
    const disabled = ok<LinkRecord>(await staff(acme, "dpo", "POST", disableUrl));
    assert.equal(typeof disabled.disabledAt, "number");
    assert.match(disabled.disabledBy!, /^staff:stf_/);
    assert.equal(disabled.declinedCount, 1);
    assertApiError(await staff(acme, "admin", "POST", disableUrl), 409, "CONFLICT");
    assertApiError(
      await staff(acme, "admin", "POST", "/api/v1/staff/offline-consent/links/lnk_doesNotExist0/disable"),
      404,
      "NOT_FOUND",
    );
    const onlyDisabled = ok<{ links: LinkRecord[] }>(
      await staff(acme, "viewer", "GET", "/api/v1/staff/offline-consent/links?status=disabled&limit=500"),
    );
    assert.ok(onlyDisabled.links.every((l) => l.disabledAt !== null));
    assert.ok(onlyDisabled.links.some((l) => l.linkId === link.linkId));
    const onlyActive = ok<{ links: LinkRecord[] }>(
      await staff(acme, "viewer", "GET", "/api/v1/staff/offline-consent/links?status=active&limit=500"),
    );
    assert.ok(!onlyActive.links.some((l) => l.linkId === link.linkId));
    // The disabled link's page is gone, plainly.
    const gone = await page(link.token);
    assert.equal(gone.statusCode, 410);
    assertPageHeaders(gone);
    assert.doesNotMatch(gone.body, /lnk_|Error|stack/);
  });

  test("staff list pages with a cursor, newest first", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.advance(1);
      made.push(
        ok<Created>(await create({ noticeId: notice, purpose: "Account", dataTypes: ["email"] }, seeded), 201)
          .linkId,
      );
    }
    const first = ok<{ links: LinkRecord[]; nextCursor: string | null }>(
      await staff(seeded, "viewer", "GET", "/api/v1/staff/offline-consent/links?limit=2"),
    );
    assert.deepEqual(
      first.links.map((l) => l.linkId),
      [made[2], made[1]],
    );
    assert.ok(first.nextCursor);
    const second = ok<{ links: LinkRecord[]; nextCursor: string | null }>(
      await staff(
        seeded,
        "viewer",
        "GET",
        `/api/v1/staff/offline-consent/links?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`,
      ),
    );
    assert.deepEqual(
      second.links.map((l) => l.linkId),
      [made[0]],
    );
    assert.equal(second.nextCursor, null);
  });

  test("the page shows the notice in its languages, by ?lang=, then Accept-Language, then the notice's first", async () => {
    const link = await mint();
    const english = await page(link.token);
    assert.equal(english.statusCode, 200);
    assertPageHeaders(english);
    assert.match(english.body, /<html lang="en" dir="ltr">/);
    assert.match(english.body, /How the branch uses your data/);
    assert.match(english.body, /Phone, to send offers\./);
    assert.match(english.body, /Withdraw at any time with your code\./);
    assert.match(english.body, /I agree/);
    assert.match(english.body, /<a href="\?lang=hi" hreflang="hi"/);
    assert.match(english.body, /<form method="post">/);
    // Staff-only: the label never reaches the principal.
    assert.doesNotMatch(english.body, /Counter 3/);

    const hindi = await page(link.token, { query: "?lang=hi" });
    assert.equal(hindi.statusCode, 200);
    assert.match(hindi.body, /<html lang="hi" dir="ltr">/);
    assert.match(hindi.body, /शाखा आपके डेटा का उपयोग कैसे करती है/);
    assert.match(hindi.body, /मैं सहमत हूँ/);
    assert.match(hindi.body, /<a href="\?lang=en" hreflang="en"/);
    assert.doesNotMatch(hindi.body, /<script/i);

    const byHeader = await page(link.token, {
      headers: { "accept-language": "ta;q=0.9, hi-IN;q=0.8, en;q=0.1" },
    });
    assert.match(byHeader.body, /<html lang="hi"/);
    const unknownLanguage = await page(link.token, {
      query: "?lang=xx",
      headers: { "accept-language": "fr" },
    });
    assert.match(unknownLanguage.body, /<html lang="en"/);
  });

  test("an unknown or malformed token is a plain 404 page", async () => {
    for (const token of ["olk_AAAAAAAAAAAAAAAAAAAAAAAAAA", "nope", "olk_%3Cscript%3E"]) {
      const res = await page(token);
      assert.equal(res.statusCode, 404, token);
      assertPageHeaders(res);
      assert.doesNotMatch(res.body, /NOT_FOUND|stack|olk_/);
    }
    const posted = await post("olk_AAAAAAAAAAAAAAAAAAAAAAAAAA", {
      decision: "accept",
      nonce: "a".repeat(32),
    });
    assert.equal(posted.statusCode, 404);
  });

  test("agreeing gives exactly one consent, even when the same form is posted twice or at once", async () => {
    const seeded = await seedOrganization(t);
    const notice = (
      await publishNotice(
        t.db,
        seeded.org.organizationId,
        parseNoticeDraft(TWO_LANGUAGE_NOTICE),
        t.clock.now(),
      )
    ).noticeId;
    const link = ok<Created>(
      await create({ noticeId: notice, purpose: "Account", dataTypes: ["name", "phone"] }, seeded),
      201,
    );
    const shown = await rendered(link.token);
    const fields = { ...shown, decision: "accept", lang: "hi" };
    const first = await post(link.token, fields);
    assert.equal(first.statusCode, 200, first.body);
    assertPageHeaders(first);
    assert.match(first.body, /<html lang="hi"/);
    const token = tokenOnPage(first.body);
    assert.ok(token, "the withdrawal code is shown");
    // A refresh (the same form again) shows the first outcome, with the same code, and records nothing.
    const again = await post(link.token, fields);
    assert.equal(again.statusCode, 200);
    assert.equal(tokenOnPage(again.body), token);
    assert.equal(await linkConsents(seeded), 1);
    // A double tap: two posts of another rendering's form at once.
    const second = await rendered(link.token);
    const both = await Promise.all([
      post(link.token, { ...second, decision: "accept", lang: "en" }),
      post(link.token, { ...second, decision: "accept", lang: "en" }),
    ]);
    for (const res of both) assert.equal(res.statusCode, 200, res.body);
    assert.equal(tokenOnPage(both[0]!.body), tokenOnPage(both[1]!.body));
    assert.equal(await linkConsents(seeded), 2);
    assert.equal(await countRows(t, "offline_link_responses", seeded.org.organizationId), 2);

    const [consent] = await t.db.query<{
      consent_id: string;
      anonymous_id: string;
      purpose: string;
      data_types: string[];
      notice_version: number;
    }>(
      "SELECT c.consent_id, c.anonymous_id, c.purpose, c.data_types, c.notice_version FROM consents c JOIN offline_link_responses r ON r.organization_id = c.organization_id AND r.consent_id = c.consent_id WHERE r.organization_id = $1 AND r.locale = 'hi'",
      [seeded.org.organizationId],
    );
    assert.ok(consent);
    assert.match(consent.anonymous_id, /^link:lrs_/);
    assert.equal(consent.purpose, "Account");
    assert.deepEqual(consent.data_types, ["name", "phone"]);
    assert.equal(Number(consent.notice_version), Number(shown.version));
    // The code on the page withdraws exactly that consent.
    const resolved = await resolveWithdrawalToken(t.db, token!);
    assert.deepEqual(resolved, {
      organizationId: seeded.org.organizationId,
      consentIds: [consent.consent_id],
    });
    // The evidence is on the chain, and the chain checks out against the rows.
    const verified = await verifyAuditChain(t.db, seeded.org.organizationId, t.config.auditKeys, {
      now: t.clock.now(),
    });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
    const entries = await t.db.query<{ entry_type: string }>(
      "SELECT entry_type FROM audit_entries WHERE organization_id = $1 AND entry_type LIKE 'offline_link.%' ORDER BY seq",
      [seeded.org.organizationId],
    );
    assert.deepEqual(
      entries.map((e) => e.entry_type),
      ["offline_link.created", "offline_link.accepted", "offline_link.accepted"],
    );
  });

  test("declining stores the refusal as evidence and gives no consent", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const link = ok<Created>(
      await create({ noticeId: notice, purpose: "Marketing", dataTypes: ["email"] }, seeded),
      201,
    );
    const shown = await rendered(link.token);
    const res = await post(link.token, { ...shown, decision: "decline", lang: "en" });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /You did not agree/);
    assert.equal(tokenOnPage(res.body), undefined);
    assert.equal(await linkConsents(seeded), 0);
    const [row] = await t.db.query<{
      decision: string;
      consent_id: string | null;
      notice_version: number;
      locale: string;
    }>(
      "SELECT decision, consent_id, notice_version, locale FROM offline_link_responses WHERE organization_id = $1",
      [seeded.org.organizationId],
    );
    assert.deepEqual(
      { ...row!, notice_version: Number(row!.notice_version) },
      {
        decision: "declined",
        consent_id: null,
        notice_version: Number(shown.version),
        locale: "en",
      },
    );
    const verified = await verifyAuditChain(t.db, seeded.org.organizationId, t.config.auditKeys, {
      now: t.clock.now(),
    });
    assert.equal(verified.intact, true, JSON.stringify(verified.problems));
  });

  test("a form posted after the notice changed shows the new version instead of recording", async () => {
    const seeded = await seedOrganization(t);
    const first = await publishTestNotice(t, seeded, { key: "changing" });
    const link = ok<Created>(
      await create({ noticeId: first.noticeId, purpose: "Account", dataTypes: ["email"] }, seeded),
      201,
    );
    const shown = await rendered(link.token);
    await publishTestNotice(t, seeded, { key: "changing", title: "Updated terms" });
    const res = await post(link.token, { ...shown, decision: "accept", lang: "en" });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /This notice was updated/);
    assert.match(res.body, /Updated terms/);
    assert.equal(versionOf(res.body), String(first.version + 1));
    assert.equal(await countRows(t, "offline_link_responses", seeded.org.organizationId), 0);
  });

  test("a malformed post is a plain 400 page and records nothing", async () => {
    const link = await mint();
    const before = await countRows(t, "offline_link_responses", acme.org.organizationId);
    const shown = await rendered(link.token);
    for (const fields of [
      { ...shown, decision: "maybe" },
      { ...shown, decision: "accept", nonce: "short" },
      { version: shown.version, decision: "accept" },
    ]) {
      const res = await post(link.token, fields);
      assert.equal(res.statusCode, 400, JSON.stringify(fields));
      assertPageHeaders(res);
    }
    const json = await t.request({
      method: "POST",
      url: `/offline-consent/${link.token}`,
      headers: { "content-type": "text/xml" },
      payload: "<a/>",
      remoteAddress: address(),
    });
    assert.ok(json.statusCode >= 400 && json.statusCode < 500);
    assert.match(String(json.headers["content-type"]), /^text\/html/);
    assert.equal(await countRows(t, "offline_link_responses", acme.org.organizationId), before);
  });

  test("with offline_consent_bridge off the page is a 404; with offline_consent_links off the routes are", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const link = ok<Created>(
      await create({ noticeId: notice, purpose: "Account", dataTypes: ["email"] }, seeded),
      201,
    );
    const shown = await rendered(link.token);
    await setCapabilities(t.db, seeded.org.organizationId, { offline_consent_bridge: false });
    assert.equal((await page(link.token)).statusCode, 404);
    assert.equal((await post(link.token, { ...shown, decision: "accept", lang: "en" })).statusCode, 404);
    assert.equal(await linkConsents(seeded), 0);
    await setCapabilities(t.db, seeded.org.organizationId, { offline_consent_bridge: true });
    assert.equal((await page(link.token)).statusCode, 200);

    await setCapabilities(t.db, seeded.org.organizationId, { offline_consent_links: false });
    assertApiError(
      await create({ noticeId: notice, purpose: "Account", dataTypes: ["email"] }, seeded),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await staff(seeded, "admin", "GET", "/api/v1/staff/offline-consent/links"),
      404,
      "NOT_FOUND",
    );
    assertApiError(
      await staff(seeded, "admin", "POST", `/api/v1/staff/offline-consent/links/${link.linkId}/disable`),
      404,
      "NOT_FOUND",
    );
  });

  test("a notice no longer published makes the page 410", async () => {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    const link = ok<Created>(
      await create({ noticeId: notice, purpose: "Account", dataTypes: ["email"] }, seeded),
      201,
    );
    await archiveNotice(t, seeded, notice);
    const res = await page(link.token);
    assert.equal(res.statusCode, 410);
    assertPageHeaders(res);
  });

  test("posts on a link's page are limited per client address", async () => {
    const link = await mint();
    const from = address();
    let status = 0;
    for (let sent = 0; sent <= LINK_PAGE_POST_BUDGET.limit && status !== 429; sent++)
      status = (await post(link.token, { decision: "maybe", nonce: "x" }, from)).statusCode;
    assert.equal(status, 429);
    const limited = await post(link.token, { decision: "maybe", nonce: "x" }, from);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    assertPageHeaders(limited);
    // Another address is unaffected.
    assert.equal((await post(link.token, { decision: "maybe", nonce: "x" })).statusCode, 400);
  });
});
