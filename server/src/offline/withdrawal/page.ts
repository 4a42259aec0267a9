// The principal's withdrawal page (DPDP s.6(4)): withdrawing must be as easy as consenting was, on
// the phone they have, without an account. This file renders it: plain HTML without JavaScript,
// in the offline pages' layout (../pages/), in English or Hindi. Its routes (routes.ts, through the
// pages' frame: security headers, Referrer-Policy no-referrer, form bodies, failure pages):
//   GET  /withdraw           a form to type the token from a printed slip
//   POST /withdraw           token typed: what it withdraws and a confirm button; with confirm=yes,
//                            the withdrawal
//   GET  /withdraw/{token}   (a QR code's link) what the token withdraws and a confirm button
//   POST /withdraw/{token}   the withdrawal
// Nothing is withdrawn by a GET: a link preview or a prefetch must not withdraw a consent. Each
// confirm button posts back to its own page's URL; on the typed path the token travels in the
// form body, so a typed token never enters a URL. No single-use nonce is needed: withdrawing is
// idempotent, so a double tap or a refresh shows the consents as withdrawn.
import {
  chooseLanguage,
  escapeHtml,
  languageInfo,
  localized,
  renderLayout,
  type PageResult,
} from "../pages/index.js";
import type { TokenPreview, TokenWithdrawal } from "./withdraw.js";

interface Words {
  title: string;
  typeToken: string;
  tokenLabel: string;
  continue: string;
  unknownToken: string;
  intro: (organization: string) => string;
  givenAt: string;
  alreadyWithdrawnAt: string;
  confirm: string;
  nothingLeft: string;
  doneTitle: string;
  done: (organization: string) => string;
  wasAlready: string;
}

const WORDS: { en: Words; hi: Words } = {
  en: {
    title: "Withdraw your consent",
    typeToken: "Type the withdrawal code printed on your slip or read out to you on the call.",
    tokenLabel: "Withdrawal code",
    continue: "Continue",
    unknownToken: "No consent matches this code. Check that it was typed exactly as printed.",
    intro: (organization) => `With this code you withdraw the consent you gave ${organization}:`,
    givenAt: "given",
    alreadyWithdrawnAt: "already withdrawn",
    confirm: "Withdraw consent",
    nothingLeft: "Every consent this code stands for is already withdrawn. There is nothing more to do.",
    doneTitle: "Consent withdrawn",
    done: (organization) =>
      `Your consent is withdrawn. ${organization} must stop processing your data for these purposes.`,
    wasAlready: "was already withdrawn",
  },
  hi: {
    title: "अपनी सहमति वापस लें",
    typeToken: "अपनी पर्ची पर छपा या कॉल पर पढ़कर सुनाया गया वापसी कोड लिखें।",
    tokenLabel: "वापसी कोड",
    continue: "आगे बढ़ें",
    unknownToken: "इस कोड से कोई सहमति नहीं मिली। जाँच लें कि कोड ठीक वैसा ही लिखा गया है जैसा छपा है।",
    intro: (organization) => `इस कोड से आप ${organization} को दी गई सहमति वापस लेते हैं:`,
    givenAt: "दी गई",
    alreadyWithdrawnAt: "पहले ही वापस ली गई",
    confirm: "सहमति वापस लें",
    nothingLeft: "इस कोड की हर सहमति पहले ही वापस ली जा चुकी है। आगे कुछ करने की आवश्यकता नहीं है।",
    doneTitle: "सहमति वापस ली गई",
    done: (organization) =>
      `आपकी सहमति वापस ले ली गई है। ${organization} को इन उद्देश्यों के लिए आपके डेटा का उपयोग बंद करना होगा।`,
    wasAlready: "पहले ही वापस ली जा चुकी थी",
  },
};

/** The page's language: `?lang=`, else the browser's, among those the page has words for. */
export function pageLanguage(request: {
  lang: string | undefined;
  acceptLanguage: string | undefined;
}): string {
  return chooseLanguage({
    requested: request.lang,
    acceptLanguage: request.acceptLanguage,
    available: Object.keys(WORDS),
  });
}

/** A time as a principal in India reads it: India Standard Time (UTC+05:30, no daylight saving). */
function shownTime(epochMs: number, lang: string): string {
  const formatted = new Intl.DateTimeFormat(lang === "hi" ? "hi-IN" : "en-IN", {
    dateStyle: "medium",
    timeStyle: "short",
    timeZone: "Asia/Kolkata",
  }).format(epochMs);
  return `${formatted} IST`;
}

function page(lang: string, title: string, body: string, status = 200): PageResult {
  return { status, html: renderLayout({ lang, dir: languageInfo(lang).direction, title, body }) };
}

/** A code as typed from a slip: surrounding and inner spaces dropped. */
export const typedToken = (value: string | undefined): string => (value ?? "").replace(/\s+/g, "");

/** The form to type a code; with `problem` (an unknown code), a 404 that says so above it. */
export function tokenFormPage(lang: string, problem?: string): PageResult {
  const words = localized(WORDS, lang);
  const body = [
    `<h1>${escapeHtml(words.title)}</h1>`,
    problem ? `<p class="box" role="alert">${escapeHtml(problem)}</p>` : "",
    `<p>${escapeHtml(words.typeToken)}</p>`,
    '<form method="post" action="/withdraw">',
    `<label for="token">${escapeHtml(words.tokenLabel)}</label>`,
    '<input type="text" id="token" name="token" autocomplete="off" autocapitalize="off" spellcheck="false" required>',
    `<div class="actions"><button type="submit" class="primary">${escapeHtml(words.continue)}</button></div>`,
    "</form>",
  ].join("\n");
  return page(lang, words.title, body, problem ? 404 : 200);
}

/**
 * What the token withdraws and the confirm button, which posts back to the page it is on: the
 * token's own URL (`path`), or the typed form's, with the token in the body (`typed`).
 */
export function confirmationPage(
  lang: string,
  token: string,
  preview: TokenPreview,
  via: "path" | "typed",
): PageResult {
  const words = localized(WORDS, lang);
  const items = preview.consents.map((consent) => {
    const state =
      consent.withdrawnAt === null
        ? `${words.givenAt} ${shownTime(consent.givenAt, lang)}`
        : `${words.alreadyWithdrawnAt} ${shownTime(consent.withdrawnAt, lang)}`;
    return `<li><strong>${escapeHtml(consent.purpose)}</strong> <span class="muted">(${escapeHtml(state)})</span></li>`;
  });
  const active = preview.consents.some((consent) => consent.withdrawnAt === null);
  const body = [
    `<h1>${escapeHtml(words.title)}</h1>`,
    `<p>${escapeHtml(words.intro(preview.organizationName))}</p>`,
    `<ul>${items.join("")}</ul>`,
    active
      ? [
          via === "path"
            ? `<form method="post" action="/withdraw/${escapeHtml(encodeURIComponent(token))}">`
            : [
                '<form method="post" action="/withdraw">',
                `<input type="hidden" name="token" value="${escapeHtml(token)}">`,
                '<input type="hidden" name="confirm" value="yes">',
              ].join("\n"),
          `<div class="actions"><button type="submit" class="primary">${escapeHtml(words.confirm)}</button></div>`,
          "</form>",
        ].join("\n")
      : `<p class="box">${escapeHtml(words.nothingLeft)}</p>`,
  ].join("\n");
  return page(lang, words.title, body);
}

/** The words for an unknown code, in `lang`. */
export const unknownTokenText = (lang: string): string => localized(WORDS, lang).unknownToken;

/** The outcome: what was withdrawn now, and what was already (`preview` read after the withdrawal). */
export function outcomePage(
  lang: string,
  result: TokenWithdrawal,
  preview: TokenPreview | undefined,
): PageResult {
  const words = localized(WORDS, lang);
  const purposeOf = new Map(preview?.consents.map((consent) => [consent.consentId, consent.purpose]));
  const items = [
    ...result.withdrawn.map((consent) => `<li><strong>${escapeHtml(consent.purpose)}</strong></li>`),
    ...result.alreadyWithdrawn.map(
      (consentId) =>
        `<li><strong>${escapeHtml(purposeOf.get(consentId) ?? "")}</strong> <span class="muted">(${escapeHtml(words.wasAlready)})</span></li>`,
    ),
  ];
  const body = [
    `<h1>${escapeHtml(words.doneTitle)}</h1>`,
    `<p>${escapeHtml(words.done(preview?.organizationName ?? ""))}</p>`,
    `<ul>${items.join("")}</ul>`,
  ].join("\n");
  return page(lang, words.doneTitle, body);
}
