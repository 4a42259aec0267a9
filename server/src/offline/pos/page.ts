// The customer's page of a point-of-sale request, /consent/{token} (the link or QR code the receipt
// prints): the notice in its languages, the purpose and data types asked for, and two buttons that
// post back to the same URL. Plain server-rendered HTML through the offline pages' frame
// (../pages/pages.ts: no JavaScript, strict CSP, no Referer, no cache, form bodies, failure pages).
//   GET  /consent/{token}  pending: the notice and the buttons; answered: the recorded answer;
//                          past its 72 hours: 410; unknown token: 404
//   POST /consent/{token}  answer=confirm|decline (and version, the notice version shown)
// Nothing is recorded by a GET (a link preview must not answer). The request itself is single-use:
// once answered, any later POST (a double tap, a refresh, a replayed form) shows the recorded
// answer and records nothing, so no nonce is needed. POSTs spend a per-address budget.
import type { FastifyRequest } from "fastify";
import { findOrganizationById } from "../../accounts/store.js";
import type { Database, Queryable } from "../../db/database.js";
import { RateLimiter } from "../../http/rate-limit.js";
import { findPublishedNotice, type NoticeVersion } from "../../notices/notices.js";
import { escapeHtml, renderLayout } from "../pages/html.js";
import { chooseLanguage, languageInfo, localized } from "../pages/language.js";
import { renderNoticeBlock } from "../pages/notice-block.js";
import {
  failurePage,
  formFields,
  queryParam,
  type PageResult,
  type PrincipalPageModule,
} from "../pages/pages.js";
import {
  answerPosRequest,
  findPosRequestByToken,
  isPastDeadline,
  posDeps,
  withdrawalTokenOf,
  type PosDeps,
} from "./requests.js";
import type { PosRequest } from "./store.js";

interface Words {
  title: string;
  intro: (organization: string) => string;
  expiresAt: string;
  confirm: string;
  decline: string;
  noticeChanged: string;
  confirmedTitle: string;
  confirmed: (organization: string, purpose: string) => string;
  withdrawalCode: string;
  keepCode: string;
  withdrawNow: string;
  answeredAt: string;
  codeNoLongerShown: string;
  declinedTitle: string;
  declined: string;
  expiredTitle: string;
  expired: string;
  unavailableTitle: string;
  unavailable: string;
}

const WORDS: { en: Words; hi: Words } = {
  en: {
    title: "Your consent is requested",
    intro: (organization) =>
      `${organization} asks for your consent, as requested at the counter. Read the notice, then confirm or decline. Nothing is recorded until you choose.`,
    expiresAt: "You can answer until",
    confirm: "I consent",
    decline: "I do not consent",
    noticeChanged: "The notice changed since this page was opened. Please read it again before you answer.",
    confirmedTitle: "Consent recorded",
    confirmed: (organization, purpose) => `You consented to ${organization} using your data for: ${purpose}.`,
    withdrawalCode: "Your withdrawal code",
    keepCode:
      "Keep this code. With it you can withdraw your consent at any time, as easily as you gave it, on the withdrawal page.",
    withdrawNow: "Withdraw this consent",
    answeredAt: "Answered",
    codeNoLongerShown: "To withdraw this consent, use the withdrawal code you were shown when you confirmed.",
    declinedTitle: "You did not consent",
    declined: "Your answer is recorded: you did not consent. Nothing more is needed.",
    expiredTitle: "This request has expired",
    expired:
      "This request could be answered for 72 hours and that time is over. Nothing was recorded. If you wish to consent, ask at the counter again.",
    unavailableTitle: "No longer available",
    unavailable:
      "The notice this request was for is no longer offered, so consent cannot be given. Nothing was recorded.",
  },
  hi: {
    title: "आपकी सहमति माँगी गई है",
    intro: (organization) =>
      `काउंटर पर किए गए अनुरोध के अनुसार ${organization} आपकी सहमति माँग रहा है। सूचना पढ़ें, फिर सहमति दें या मना करें। आपके चुनने तक कुछ भी दर्ज नहीं होता।`,
    expiresAt: "आप इस समय तक उत्तर दे सकते हैं",
    confirm: "मैं सहमति देता/देती हूँ",
    decline: "मैं सहमति नहीं देता/देती",
    noticeChanged: "यह पेज खोलने के बाद सूचना बदल गई है। उत्तर देने से पहले कृपया इसे फिर से पढ़ें।",
    confirmedTitle: "सहमति दर्ज की गई",
    confirmed: (organization, purpose) =>
      `आपने ${organization} को अपने डेटा का उपयोग इसके लिए करने की सहमति दी: ${purpose}।`,
    withdrawalCode: "आपका वापसी कोड",
    keepCode:
      "यह कोड सँभालकर रखें। इससे आप वापसी पेज पर कभी भी अपनी सहमति उतनी ही आसानी से वापस ले सकते हैं जितनी आसानी से आपने दी थी।",
    withdrawNow: "यह सहमति वापस लें",
    answeredAt: "उत्तर दिया गया",
    codeNoLongerShown: "यह सहमति वापस लेने के लिए वह वापसी कोड इस्तेमाल करें जो सहमति देते समय आपको दिखाया गया था।",
    declinedTitle: "आपने सहमति नहीं दी",
    declined: "आपका उत्तर दर्ज है: आपने सहमति नहीं दी। आगे कुछ करने की आवश्यकता नहीं है।",
    expiredTitle: "इस अनुरोध की समय-सीमा समाप्त हो गई है",
    expired:
      "इस अनुरोध का उत्तर 72 घंटे तक दिया जा सकता था और वह समय बीत चुका है। कुछ भी दर्ज नहीं हुआ। यदि आप सहमति देना चाहते हैं, तो काउंटर पर फिर से पूछें।",
    unavailableTitle: "अब उपलब्ध नहीं",
    unavailable:
      "जिस सूचना के लिए यह अनुरोध था वह अब उपलब्ध नहीं है, इसलिए सहमति नहीं दी जा सकती। कुछ भी दर्ज नहीं हुआ।",
  },
};

/**
 * Answers per client address and minute. Generous, since customers behind one carrier NAT share an
 * address; a stop for a script hammering the page (the token itself is out of reach of guessing).
 */
export const POS_PAGE_BUDGET = { limit: 30, windowMs: 60_000 } as const;

/** A time as a customer in India reads it. */
function shownTime(epochMs: number, lang: string): string {
  // Fields rather than dateStyle/timeStyle: those cannot be combined with timeZoneName.
  return new Intl.DateTimeFormat(lang === "hi" ? "hi-IN" : "en-IN", {
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZone: "Asia/Kolkata",
    timeZoneName: "short",
  }).format(epochMs);
}

function page(lang: string, title: string, body: string, status = 200): PageResult {
  return { status, html: renderLayout({ lang, dir: languageInfo(lang).direction, title, body }) };
}

function messagePage(lang: string, title: string, message: string, status: number): PageResult {
  return page(
    lang,
    title,
    `<h1>${escapeHtml(title)}</h1>\n<p class="text">${escapeHtml(message)}</p>`,
    status,
  );
}

/** The version a page may show: the organisation's notice, published, itemising the purpose. */
async function publishedFor(db: Queryable, request: PosRequest): Promise<NoticeVersion | undefined> {
  const notice = await findPublishedNotice(db, request.noticeId);
  if (!notice || notice.organizationId !== request.organizationId) return undefined;
  return notice.itemized.some((item) => item.purpose === request.purpose) ? notice : undefined;
}

export const posPages: PrincipalPageModule = ({ config, db, clock, capabilities }) => {
  const deps: PosDeps = posDeps(config);
  const limiter = new RateLimiter();

  /** The language of a page without the notice: `?lang=` or the form's, else the browser's. */
  const wordsLanguage = (request: FastifyRequest, requested?: string) =>
    chooseLanguage({
      requested: requested ?? queryParam(request, "lang"),
      acceptLanguage: request.headers["accept-language"],
      available: Object.keys(WORDS),
    });

  async function organizationName(db: Database, organizationId: string): Promise<string> {
    return (await findOrganizationById(db, organizationId))?.name ?? "";
  }

  /** The notice and the two buttons. */
  async function pendingPage(
    request: FastifyRequest,
    token: string,
    pos: PosRequest,
    options: { requested?: string; noticeChanged?: boolean } = {},
  ): Promise<PageResult> {
    const notice = await publishedFor(db, pos);
    if (!notice) {
      const lang = wordsLanguage(request, options.requested);
      const words = localized(WORDS, lang);
      return messagePage(lang, words.unavailableTitle, words.unavailable, 410);
    }
    const lang = chooseLanguage({
      requested: options.requested ?? queryParam(request, "lang"),
      acceptLanguage: request.headers["accept-language"],
      available: notice.languages,
      fallback: notice.languages[0],
    });
    const words = localized(WORDS, lang);
    const body = [
      options.noticeChanged ? `<p class="box" role="alert">${escapeHtml(words.noticeChanged)}</p>` : "",
      `<p>${escapeHtml(words.intro(await organizationName(db, pos.organizationId)))}</p>`,
      renderNoticeBlock({ notice, purpose: pos.purpose, lang, dataTypes: pos.dataTypes }),
      `<p class="muted">${escapeHtml(words.expiresAt)} ${escapeHtml(shownTime(pos.expiresAt, lang))}</p>`,
      `<form method="post" action="/consent/${escapeHtml(token)}">`,
      `<input type="hidden" name="version" value="${escapeHtml(notice.version)}">`,
      `<input type="hidden" name="lang" value="${escapeHtml(lang)}">`,
      '<div class="actions">',
      `<button type="submit" name="answer" value="confirm" class="primary">${escapeHtml(words.confirm)}</button>`,
      `<button type="submit" name="answer" value="decline">${escapeHtml(words.decline)}</button>`,
      "</div>",
      "</form>",
    ].join("\n");
    return page(lang, words.title, body, options.noticeChanged ? 409 : 200);
  }

  /** What the customer answered, as recorded; the withdrawal code again while the 72 hours run. */
  async function answeredPage(
    lang: string,
    pos: PosRequest,
    withdrawalToken: string | undefined,
    now: number,
  ): Promise<PageResult> {
    const words = localized(WORDS, lang);
    const answered = `<p class="muted">${escapeHtml(words.answeredAt)} ${escapeHtml(shownTime(pos.answeredAt ?? now, lang))}</p>`;
    if (pos.status === "declined") {
      return page(
        lang,
        words.declinedTitle,
        [
          `<h1>${escapeHtml(words.declinedTitle)}</h1>`,
          `<p>${escapeHtml(words.declined)}</p>`,
          answered,
        ].join("\n"),
      );
    }
    // A customer whose confirmation page was lost (a dropped connection on a cheap phone) gets the
    // code again from the receipt's link, but only while the request's 72 hours run: a receipt
    // thrown away later must not hand its code to whoever picks it up.
    const code = withdrawalToken ?? (isPastDeadline(pos, now) ? undefined : withdrawalTokenOf(deps, pos));
    const organization = await organizationName(db, pos.organizationId);
    const body = [
      `<h1>${escapeHtml(words.confirmedTitle)}</h1>`,
      `<p>${escapeHtml(words.confirmed(organization, pos.purpose))}</p>`,
      answered,
      code === undefined
        ? `<p class="box">${escapeHtml(words.codeNoLongerShown)}</p>`
        : [
            '<section class="box">',
            `<h2>${escapeHtml(words.withdrawalCode)}</h2>`,
            `<p class="secret">${escapeHtml(code)}</p>`,
            `<p>${escapeHtml(words.keepCode)}</p>`,
            `<p><a href="/withdraw/${escapeHtml(code)}">${escapeHtml(words.withdrawNow)}</a></p>`,
            "</section>",
          ].join("\n"),
    ].join("\n");
    return page(lang, words.confirmedTitle, body);
  }

  function expiredPage(request: FastifyRequest, requested?: string): PageResult {
    const lang = wordsLanguage(request, requested);
    const words = localized(WORDS, lang);
    return messagePage(lang, words.expiredTitle, words.expired, 410);
  }

  /** The request of the token, unless unknown or its organisation switched the capability off. */
  async function requestOf(token: string, tx: Queryable = db): Promise<PosRequest | undefined> {
    const pos = await findPosRequestByToken(tx, token);
    if (!pos) return undefined;
    const enabled = capabilities.enabled(db, pos.organizationId, "offline_async_consent");
    return (typeof enabled === "boolean" ? enabled : await enabled) ? pos : undefined;
  }

  const pathToken = (request: FastifyRequest) => (request.params as { token: string }).token;

  async function show(request: FastifyRequest): Promise<PageResult> {
    const token = pathToken(request);
    const pos = await requestOf(token);
    if (!pos) return failurePage(request, 404);
    const now = clock.now();
    // The clock decides, not the sweep: past the deadline a pending request is expired.
    if (
      pos.status === "expired" ||
      pos.status === "closed" ||
      (pos.status === "pending" && isPastDeadline(pos, now))
    )
      return expiredPage(request);
    if (pos.status === "pending") return pendingPage(request, token, pos);
    return answeredPage(wordsLanguage(request), pos, undefined, now);
  }

  async function answer(request: FastifyRequest): Promise<PageResult> {
    limiter.hit({ key: `pos-page:${request.ip}`, organizationId: "", ...POS_PAGE_BUDGET }, clock.now());
    const token = pathToken(request);
    const fields = formFields(request);
    const choice = fields.answer;
    if (choice !== "confirm" && choice !== "decline") return failurePage(request, 400);
    const shown = /^[1-9][0-9]{0,8}$/.test(fields.version ?? "") ? Number(fields.version) : undefined;
    if (!(await requestOf(token))) return failurePage(request, 404);
    const now = clock.now();
    const result = await db.transaction((tx) =>
      answerPosRequest(
        tx,
        deps,
        { token, answer: choice, shownVersion: shown, published: (pos) => publishedFor(tx, pos) },
        now,
      ),
    );
    const lang = wordsLanguage(request, fields.lang);
    switch (result.outcome) {
      case "not_found":
        return failurePage(request, 404);
      case "expired":
        return expiredPage(request, fields.lang);
      case "notice_unavailable": {
        const words = localized(WORDS, lang);
        return messagePage(lang, words.unavailableTitle, words.unavailable, 410);
      }
      case "notice_changed":
        return pendingPage(request, token, result.request, { requested: fields.lang, noticeChanged: true });
      case "confirmed":
        return answeredPage(lang, result.request, result.withdrawalToken, now);
      case "declined":
      case "already_answered":
        return answeredPage(lang, result.request, undefined, now);
    }
  }

  return [
    { method: "GET", url: "/consent/:token", handler: show },
    { method: "POST", url: "/consent/:token", handler: answer },
  ];
};
