// Point-of-sale consent requests: POST /api/v1/offline/pos creates a pending request (no consent),
// the customer's page /consent/{token} confirms (exactly one consent, source offline_pos, and a
// withdrawal token) or declines (kept as evidence), a request unanswered for 72 hours expires (the
// clock decides; the sweep moves it into the staff queue), staff close expired requests with a note,
// the phone number is never stored or logged, the route is per-key rate-limited, and everything is
// behind offline_async_consent and scoped to the caller's organisation.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { linkQueuedOf } from "../../../src/audit/sequencer.js";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import { OFFLINE_ROUTE_BUDGET, spendOfflineBudget } from "../../../src/offline/routes.js";
import { sha256Hex } from "../../../src/lib/secrets.js";
import { phoneHash } from "../../../src/offline/phone-hash.js";
import { sweepExpiredPosRequests } from "../../../src/offline/pos/expiry.js";
import { POS_PAGE_BUDGET } from "../../../src/offline/pos/page.js";
import { POS_REQUEST_TTL_MS } from "../../../src/offline/pos/requests.js";
import { resolveWithdrawalToken } from "../../../src/offline/withdrawal/tokens.js";
import { assertApiError } from "../../support/api-error.js";
import { publishNotice, parseNoticeDraft } from "../../../src/notices/notices.js";
import { DEFAULT_ITEMIZED, insertDraftNotice, publishTestNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

interface Created {
  requestId: string;
  token: string;
  expiresAt: number;
  url: string;
}

interface WireRequest {
  requestId: string;
  noticeId: string;
  noticeVersion: number;
  status: string;
  consentId: string | null;
  closedBy: string | null;
  closeNote: string | null;
}

const PHONE = "+91 98765-43210";
// The test number in any written form ("9876543210", "98765 43210", "98765-43210"). Matching a
// shorter run such as "98765" fails at random: log timings, ids and hex hashes can contain it.
const PHONE_DIGITS = /98765\D{0,3}43210/;

describe("point-of-sale consent requests", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let otherNotice: string;
  let addresses = 0;

  before(async () => {
    t = await startTestApp({ accessLog: true, logLevel: "info" });
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    otherNotice = (await publishTestNotice(t, other)).noticeId;
  });
  after(() => t.close());

  /**
   * A staff call; signed in once per organisation and role, and again when the manual clock has
   * moved past the session's lifetime (these tests move it by days).
   */
  const sessions = new Map<string, Record<string, string>>();
  const staff = async (
    seeded: SeededOrg,
    role: "viewer" | "dpo",
    method: "GET" | "POST",
    url: string,
    payload?: Record<string, unknown>,
  ): Promise<LightMyRequestResponse> => {
    const key = `${seeded.org.slug}:${role}`;
    for (let attempt = 0; ; attempt++) {
      let headers = sessions.get(key);
      if (!headers) {
        headers = (await signIn(t, seeded, role)).headers;
        sessions.set(key, headers);
      }
      const res = await t.request({ method, url, headers, ...(payload ? { payload } : {}) });
      if (res.statusCode !== 401 || attempt > 0) return res;
      sessions.delete(key);
    }
  };
  const body = (overrides: Record<string, unknown> = {}) => ({
    noticeId,
    purpose: "Marketing",
    dataTypes: ["phone", "purchase_history"],
    phone: PHONE,
    ...overrides,
  });
  const create = (payload: Record<string, unknown>, seeded = acme, headers: Record<string, string> = {}) =>
    t.request({
      method: "POST",
      url: "/api/v1/offline/pos",
      headers: { ...bearer(seeded.apiKey), ...headers },
      payload,
    });
  const created = async (overrides: Record<string, unknown> = {}, seeded = acme): Promise<Created> => {
    const res = await create(body(overrides), seeded);
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Created;
  };
  /** A page request from its own client address, so the per-address budget never interferes. */
  const page = (
    method: "GET" | "POST",
    token: string,
    form?: Record<string, string>,
    remoteAddress = `10.9.0.${++addresses}`,
  ) =>
    t.request({
      method,
      url: `/consent/${token}`,
      remoteAddress,
      ...(form
        ? {
            headers: { "content-type": "application/x-www-form-urlencoded" },
            payload: new URLSearchParams(form).toString(),
          }
        : {}),
    });
  const confirm = (token: string, version = "1") => page("POST", token, { answer: "confirm", version });
  const row = async (requestId: string) => {
    const [found] = await t.db.query<{
      status: string;
      consent_id: string | null;
      notice_version: number;
      phone_hash: string;
      answered_at: number | null;
    }>("SELECT * FROM pos_consent_requests WHERE request_id = $1", [requestId]);
    assert.ok(found, `request ${requestId} is stored`);
    return found;
  };
  const consentsOf = (requestId: string) =>
    t.db.query<{ consent_id: string; source: string; notice_version: number; data_types: string[] }>(
      "SELECT consent_id, source, notice_version, data_types FROM consents WHERE anonymous_id = $1",
      [`pos:${requestId}`],
    );
  const count = async (table: string, seeded = acme) => {
    const [found] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`,
      [seeded.org.organizationId],
    );
    return found!.n;
  };
  const auditTypes = async (requestId: string) => {
    await linkQueuedOf(t.db, acme.org.organizationId, t.clock.now());
    const entries = await t.db.query<{ entry_type: string }>(
      "SELECT entry_type FROM audit_entries WHERE subject_id = $1 ORDER BY seq",
      [requestId],
    );
    return entries.map((entry) => entry.entry_type);
  };
  const withdrawalTokenIn = (res: LightMyRequestResponse) => /wdt_[0-9A-Za-z]{32}/.exec(res.body)?.[0];
  const queue = async (query = "", seeded = acme) => {
    const res = await staff(seeded, "viewer", "GET", `/api/v1/staff/offline/pos${query}`);
    assert.equal(res.statusCode, 200, res.body);
    return res.json() as { requests: WireRequest[]; nextCursor: string | null };
  };

  test("a till creates a pending request: 201 with the token and its URL; an Idempotency-Key replays it", async () => {
    const before = await count("pos_consent_requests");
    const headers = { "idempotency-key": "till-7-receipt-1001" };
    const first = await create(body(), acme, headers);
    assert.equal(first.statusCode, 201, first.body);
    const answer = first.json() as Created;
    assert.match(answer.requestId, /^pos_[0-9A-Za-z]{20}$/);
    assert.match(answer.token, /^[0-9A-Za-z]{24}$/);
    assert.equal(answer.expiresAt, t.clock.now() + 72 * 3_600_000);
    assert.equal(answer.url, `http://localhost:80/consent/${answer.token}`);
    const replay = await create(body(), acme, headers);
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.json(), answer);
    assertApiError(await create(body({ purpose: "Newsletter" }), acme, headers), 409, "CONFLICT");
    assert.equal(await count("pos_consent_requests"), before + 1);

    const stored = await row(answer.requestId);
    assert.equal(stored.status, "pending");
    assert.equal(stored.notice_version, 1);
    // Only the token's hash is kept.
    const byToken = await t.db.query<{ token_hash: string }>(
      "SELECT token_hash FROM pos_consent_requests WHERE request_id = $1",
      [answer.requestId],
    );
    assert.deepEqual(byToken, [{ token_hash: sha256Hex(answer.token) }]);
    assert.deepEqual(await auditTypes(answer.requestId), ["offline_pos.created"]);
  });

  test("bad input is a 400 naming the field; an unknown or unpublished notice is refused", async () => {
    assertApiError(await create(body({ phone: "no digits" })), 400, "VALIDATION_ERROR", { field: "phone" });
    assertApiError(await create(body({ dataTypes: [] })), 400, "VALIDATION_ERROR", { field: "dataTypes" });
    assertApiError(await create(body({ purpose: "Astrology" })), 400, "VALIDATION_ERROR", {
      field: "purpose",
    });
    assertApiError(await create(body({ noticeId: "ntc_doesnotexist000" })), 404, "NOT_FOUND");
    const draft = await insertDraftNotice(t, acme);
    assertApiError(await create(body({ noticeId: draft })), 400, "NOTICE_NOT_PUBLISHED");
  });

  test("no consent exists until the customer confirms; the page shows the notice without script", async () => {
    const consentsBefore = await count("consents");
    const request = await created();
    assert.equal(await count("consents"), consentsBefore);
    const shown = await page("GET", request.token);
    assert.equal(shown.statusCode, 200, shown.body);
    assert.match(String(shown.headers["content-type"]), /^text\/html; charset=utf-8/);
    assert.match(String(shown.headers["content-security-policy"]), /default-src 'none'/);
    assert.equal(shown.headers["referrer-policy"], "no-referrer");
    assert.doesNotMatch(shown.body, /<script/i);
    assert.match(shown.body, /How we use your data/);
    assert.match(shown.body, /<strong>Marketing<\/strong>/);
    assert.match(shown.body, /phone, purchase_history/);
    assert.match(shown.body, new RegExp(`<form method="post" action="/consent/${request.token}">`));
    assert.match(shown.body, /name="answer" value="confirm"/);
    assert.match(shown.body, /name="answer" value="decline"/);
    // Looking is not answering.
    assert.equal(await count("consents"), consentsBefore);
    assert.equal((await row(request.requestId)).status, "pending");
  });

  test("confirming creates exactly one consent (source offline_pos) and shows a withdrawal token", async () => {
    const request = await created();
    t.clock.advance(60_000);
    const done = await confirm(request.token);
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /Consent recorded/);
    const withdrawalToken = withdrawalTokenIn(done);
    assert.ok(withdrawalToken, "the confirmation shows the withdrawal token");

    const consents = await consentsOf(request.requestId);
    assert.equal(consents.length, 1);
    const [consent] = consents;
    assert.equal(consent!.source, "offline_pos");
    assert.equal(consent!.notice_version, 1);
    assert.deepEqual(consent!.data_types, ["phone", "purchase_history"]);
    const stored = await row(request.requestId);
    assert.equal(stored.status, "confirmed");
    assert.equal(stored.consent_id, consent!.consent_id);
    assert.equal(stored.answered_at, t.clock.now());
    assert.deepEqual(await resolveWithdrawalToken(t.db, withdrawalToken), {
      organizationId: acme.org.organizationId,
      consentIds: [consent!.consent_id],
    });

    // A double tap or a refresh shows the recorded answer (and the same code) and gives nothing more.
    const again = await confirm(request.token);
    assert.equal(again.statusCode, 200);
    assert.match(again.body, /Consent recorded/);
    assert.equal(withdrawalTokenIn(again), withdrawalToken);
    const declineAfter = await page("POST", request.token, { answer: "decline", version: "1" });
    assert.match(declineAfter.body, /Consent recorded/);
    assert.equal((await consentsOf(request.requestId)).length, 1);
    assert.equal((await row(request.requestId)).status, "confirmed");
    assert.deepEqual(await auditTypes(request.requestId), ["offline_pos.created", "offline_pos.confirmed"]);
    // Once the request's 72 hours are over the page no longer hands the code out.
    t.clock.advance(POS_REQUEST_TTL_MS);
    const later = await page("GET", request.token);
    assert.equal(later.statusCode, 200);
    assert.match(later.body, /Consent recorded/);
    assert.equal(withdrawalTokenIn(later), undefined);
  });

  test("two confirmations at once give one consent", async () => {
    const request = await created();
    const answers = await Promise.all([
      confirm(request.token),
      confirm(request.token),
      confirm(request.token),
    ]);
    for (const answer of answers) assert.equal(answer.statusCode, 200, answer.body);
    assert.equal((await consentsOf(request.requestId)).length, 1);
    const tokens = new Set(answers.map(withdrawalTokenIn));
    assert.equal(tokens.size, 1, "every answer shows the one withdrawal token");
  });

  test("declining records the answer as evidence and no consent; a later confirm changes nothing", async () => {
    const request = await created();
    const declined = await page("POST", request.token, { answer: "decline", version: "1" });
    assert.equal(declined.statusCode, 200, declined.body);
    assert.match(declined.body, /You did not consent/);
    const stored = await row(request.requestId);
    assert.equal(stored.status, "declined");
    assert.equal(stored.consent_id, null);
    assert.equal(stored.answered_at, t.clock.now());
    const late = await confirm(request.token);
    assert.match(late.body, /You did not consent/);
    assert.equal((await consentsOf(request.requestId)).length, 0);
    assert.deepEqual(await auditTypes(request.requestId), ["offline_pos.created", "offline_pos.declined"]);
    assert.equal((await page("POST", request.token, { answer: "maybe" })).statusCode, 400);
  });

  test("the page is in the notice's languages (?lang= or Accept-Language), its text escaped", async () => {
    const own = await seedOrganization(t);
    await t.db.query("UPDATE organizations SET name = $2 WHERE organization_id = $1", [
      own.org.organizationId,
      "Kirana <Store> & Sons",
    ]);
    const draft = parseNoticeDraft({
      key: "bilingual",
      itemized: DEFAULT_ITEMIZED,
      content: {
        en: { title: "How we use your data", body: "Only for the purposes listed." },
        hi: { title: "हम आपके डेटा का उपयोग कैसे करते हैं", body: "केवल सूचीबद्ध उद्देश्यों के लिए।" },
      },
    });
    const { noticeId: bilingual } = await publishNotice(t.db, own.org.organizationId, draft, t.clock.now());
    const request = await created({ noticeId: bilingual }, own);
    const hindi = await t.request({
      method: "GET",
      url: `/consent/${request.token}`,
      headers: { "accept-language": "hi-IN,hi;q=0.9,en;q=0.5" },
    });
    assert.equal(hindi.statusCode, 200, hindi.body);
    assert.match(hindi.body, /<html lang="hi"/);
    assert.match(hindi.body, /हम आपके डेटा का उपयोग कैसे करते हैं/);
    assert.match(hindi.body, /मैं सहमति देता/);
    assert.match(hindi.body, /href="\?lang=en"/);
    assert.match(hindi.body, /Kirana &lt;Store&gt; &amp; Sons/);
    assert.doesNotMatch(hindi.body, /<Store>/);
    const english = await page("GET", `${request.token}?lang=en`);
    assert.match(english.body, /<html lang="en"/);
    assert.match(english.body, /I consent/);
    const done = await page("POST", request.token, { answer: "confirm", version: "1", lang: "hi" });
    assert.equal(done.statusCode, 200, done.body);
    assert.match(done.body, /सहमति दर्ज की गई/);
  });

  test("a notice republished after the page was shown is shown again; consent goes to the version shown", async () => {
    const own = await seedOrganization(t);
    const first = await publishTestNotice(t, own, { key: "till" });
    const request = await created({ noticeId: first.noticeId }, own);
    const republished = await publishTestNotice(t, own, { key: "till", title: "Our updated notice" });
    assert.equal(republished.version, 2);
    const stale = await confirm(request.token, "1");
    assert.equal(stale.statusCode, 409, stale.body);
    assert.match(stale.body, /The notice changed/);
    assert.match(stale.body, /Our updated notice/);
    assert.match(stale.body, /name="version" value="2"/);
    assert.equal((await consentsOf(request.requestId)).length, 0);
    const done = await confirm(request.token, "2");
    assert.equal(done.statusCode, 200, done.body);
    const [consent] = await consentsOf(request.requestId);
    assert.equal(consent!.notice_version, 2);
    // The request keeps the version the receipt referred to.
    assert.equal((await row(request.requestId)).notice_version, 1);
  });

  test("72 hours unanswered: expired by the sweep, in the staff queue, the page says so; staff close it", async () => {
    // Requests of the tests before, already past their deadline, are out of the way first.
    await sweepExpiredPosRequests(t.db, t.clock.now());
    const request = await created();
    const unswept = await created();
    t.clock.advance(POS_REQUEST_TTL_MS);
    // At the deadline itself the request is still answerable.
    assert.equal(await sweepExpiredPosRequests(t.db, t.clock.now()), 0);
    assert.equal((await page("GET", request.token)).statusCode, 200);
    t.clock.advance(1);
    // Two instances sweeping at once expire each request once.
    const swept = await Promise.all([
      sweepExpiredPosRequests(t.db, t.clock.now()),
      sweepExpiredPosRequests(t.db, t.clock.now()),
    ]);
    assert.equal(swept[0] + swept[1], 2);
    assert.equal((await row(request.requestId)).status, "expired");
    assert.equal(await sweepExpiredPosRequests(t.db, t.clock.now()), 0);

    const expiredPage = await page("GET", request.token);
    assert.equal(expiredPage.statusCode, 410);
    assert.match(expiredPage.body, /This request has expired/);
    const lateConfirm = await confirm(request.token);
    assert.equal(lateConfirm.statusCode, 410);
    assert.equal((await consentsOf(request.requestId)).length, 0);
    assert.deepEqual(await auditTypes(request.requestId), ["offline_pos.created", "offline_pos.expired"]);

    const waiting = await queue();
    const listed = waiting.requests.find((item) => item.requestId === request.requestId);
    assert.ok(listed, "the expired request is in the default queue");
    assert.equal(listed.status, "expired");
    assert.ok(waiting.requests.every((item) => item.status === "expired"));
    // The queue never shows the phone number, its hash or the token.
    const text = JSON.stringify(waiting);
    assert.doesNotMatch(text, /phone(Hash|_hash)|token/i);
    assert.ok(!text.includes(request.token));

    const close = (role: "viewer" | "dpo", requestId: string, note: string, seeded = acme) =>
      staff(seeded, role, "POST", `/api/v1/staff/offline/pos/${requestId}/close`, { note });
    assertApiError(await close("viewer", request.requestId, "called"), 403, "FORBIDDEN");
    assertApiError(await close("dpo", request.requestId, "   "), 400, "VALIDATION_ERROR", { field: "note" });
    assertApiError(await close("dpo", request.requestId, "called", other), 404, "NOT_FOUND");
    const closed = await close("dpo", request.requestId, " Called the customer; no consent wanted. ");
    assert.equal(closed.statusCode, 200, closed.body);
    const closedBody = closed.json() as WireRequest;
    assert.equal(closedBody.status, "closed");
    assert.equal(closedBody.closeNote, "Called the customer; no consent wanted.");
    assert.match(closedBody.closedBy ?? "", /^stf_/);
    assertApiError(await close("dpo", request.requestId, "again"), 409, "CONFLICT");
    assert.ok(!(await queue()).requests.some((item) => item.requestId === request.requestId));
    assert.ok((await queue("?status=closed")).requests.some((item) => item.requestId === request.requestId));
    assert.deepEqual(await auditTypes(request.requestId), [
      "offline_pos.created",
      "offline_pos.expired",
      "offline_pos.closed",
    ]);
    const pending = await created();
    assertApiError(await close("dpo", pending.requestId, "too early"), 409, "CONFLICT");

    // `unswept` was expired by the same sweep; a request past its deadline that no sweep has seen
    // is expired by the clock when the page is opened.
    assert.equal((await row(unswept.requestId)).status, "expired");
    const fresh = await created();
    t.clock.advance(POS_REQUEST_TTL_MS + 1);
    assert.equal((await page("GET", fresh.token)).statusCode, 410);
    assert.equal((await confirm(fresh.token)).statusCode, 410);
    assert.equal((await row(fresh.requestId)).status, "expired");
    assert.equal((await consentsOf(fresh.requestId)).length, 0);
  });

  test("the staff queue pages by cursor and filters by status", async () => {
    const pending = await queue("?status=pending");
    assert.ok(pending.requests.every((item) => item.status === "pending"));
    const first = await queue("?status=expired&limit=1");
    assert.equal(first.requests.length, 1);
    assert.ok(first.nextCursor);
    const second = await queue(`?status=expired&limit=1&cursor=${encodeURIComponent(first.nextCursor)}`);
    assert.notEqual(second.requests[0]?.requestId, first.requests[0]?.requestId);
    assertApiError(
      await staff(
        acme,
        "viewer",
        "GET",
        `/api/v1/staff/offline/pos?status=closed&cursor=${first.nextCursor}`,
      ),
      400,
      "VALIDATION_ERROR",
      { field: "cursor" },
    );
  });

  test("the phone number is never stored or logged in the clear", async () => {
    const request = await created({ phone: "098765 43210" });
    await confirm(request.token);
    const [stored] = await t.db.query<{ text: string; phone_hash: string }>(
      "SELECT row_to_json(r)::text AS text, phone_hash FROM pos_consent_requests r WHERE request_id = $1",
      [request.requestId],
    );
    assert.doesNotMatch(stored!.text, PHONE_DIGITS);
    // The keyed hash of the normalised number: "098765 43210" and "+91 98765-43210" are one number.
    assert.equal(stored!.phone_hash, phoneHash(t.config.secretsKey, acme.org.organizationId, PHONE));
    await linkQueuedOf(t.db, acme.org.organizationId, t.clock.now());
    const audit = await t.db.query<{ payload: string }>(
      "SELECT payload FROM audit_entries WHERE organization_id = $1",
      [acme.org.organizationId],
    );
    assert.ok(audit.every((entry) => !PHONE_DIGITS.test(entry.payload)));
    const logs = t.logs.join("\n");
    assert.doesNotMatch(logs, PHONE_DIGITS, "no log line carries the number");
    assert.ok(!logs.includes(request.token), "no log line carries the token");
  });

  test("the route answers 429 with Retry-After once the key's budget is spent", async () => {
    const credential = { organizationId: other.org.organizationId, apiKeyId: other.apiKeyId };
    assert.throws(() => {
      for (let spent = 0; spent <= OFFLINE_ROUTE_BUDGET.limit; spent++)
        spendOfflineBudget(credential, "pos", t.clock.now());
    }, /Too many requests/);
    const before = await count("pos_consent_requests", other);
    const refused = assertApiError(await create(body({ noticeId: otherNotice }), other), 429, "RATE_LIMITED");
    assert.ok(refused);
    const again = await create(body({ noticeId: otherNotice }), other);
    assert.ok(Number(again.headers["retry-after"]) >= 1);
    assert.equal(await count("pos_consent_requests", other), before);
    // Another key's budget is its own.
    assert.equal((await create(body())).statusCode, 201);
    t.clock.advance(OFFLINE_ROUTE_BUDGET.windowMs);
    assert.equal((await create(body({ noticeId: otherNotice }), other)).statusCode, 201);
  });

  test("the page's answers are rate-limited per client address", async () => {
    const request = await created();
    const address = "10.77.0.1";
    let status = 0;
    for (let sent = 0; sent <= POS_PAGE_BUDGET.limit && status !== 429; sent++)
      status = (await page("POST", request.token, { answer: "decline", version: "1" }, address)).statusCode;
    assert.equal(status, 429);
    const limited = await page("POST", request.token, { answer: "decline", version: "1" }, address);
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers["retry-after"]) >= 1);
    // Another address is not held back.
    assert.equal((await page("POST", request.token, { answer: "decline", version: "1" })).statusCode, 200);
  });

  test("another organisation's notice and requests are 404; an unknown token is a 404 page", async () => {
    assertApiError(await create(body({ noticeId: otherNotice })), 404, "NOT_FOUND");
    const theirs = await created({ noticeId: otherNotice }, other);
    const mine = await queue("?status=pending");
    assert.ok(!mine.requests.some((item) => item.requestId === theirs.requestId));
    const unknown = await page("GET", "A".repeat(24));
    assert.equal(unknown.statusCode, 404);
    assert.match(String(unknown.headers["content-type"]), /^text\/html/);
    assert.equal((await page("GET", "not-a-token")).statusCode, 404);
  });

  test("with offline_async_consent off the routes and the page answer 404 and write nothing", async () => {
    const request = await created();
    await t.db.transaction((tx) =>
      setCapabilities(tx, acme.org.organizationId, { offline_async_consent: false }),
    );
    try {
      const before = await count("pos_consent_requests");
      assertApiError(await create(body()), 404, "NOT_FOUND");
      assert.equal(await count("pos_consent_requests"), before);
      assertApiError(await staff(acme, "viewer", "GET", "/api/v1/staff/offline/pos"), 404, "NOT_FOUND");
      assertApiError(
        await staff(acme, "dpo", "POST", `/api/v1/staff/offline/pos/${request.requestId}/close`, {
          note: "x",
        }),
        404,
        "NOT_FOUND",
      );
      assert.equal((await page("GET", request.token)).statusCode, 404);
      assert.equal((await confirm(request.token)).statusCode, 404);
      assert.equal((await consentsOf(request.requestId)).length, 0);
      assert.equal((await row(request.requestId)).status, "pending");
    } finally {
      await t.db.transaction((tx) =>
        setCapabilities(tx, acme.org.organizationId, { offline_async_consent: true }),
      );
    }
    assert.equal((await confirm(request.token)).statusCode, 200);
  });
});

describe("point-of-sale requests with GUARD_PUBLIC_URL", () => {
  test("the URL is on the configured public origin", async () => {
    const t = await startTestApp({ publicUrl: "https://guard.example.com" });
    try {
      const seeded = await seedOrganization(t);
      const { noticeId } = await publishTestNotice(t, seeded);
      const res = await t.request({
        method: "POST",
        url: "/api/v1/offline/pos",
        headers: bearer(seeded.apiKey),
        payload: { noticeId, purpose: "Account", dataTypes: ["email"], phone: "9876543210" },
      });
      assert.equal(res.statusCode, 201, res.body);
      const answer = res.json() as Created;
      assert.equal(answer.url, `https://guard.example.com/consent/${answer.token}`);
    } finally {
      await t.close();
    }
  });
});
