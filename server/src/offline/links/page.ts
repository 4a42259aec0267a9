// The principal's page of a QR consent link, /offline-consent/{token}: the notice's current
// published version for the link's purpose and data types, in the notice's languages, with two
// buttons that post back to the same URL. Plain server-rendered HTML through the offline pages'
// frame (../pages/pages.ts: no JavaScript, strict CSP, no Referer, no cache, form bodies, failure
// pages).
//   GET  /offline-consent/{token}  the notice and the buttons, with a fresh single-use nonce
//   POST /offline-consent/{token}  decision=accept|decline, nonce, version (shown), lang (shown)
// Unknown token, or the `offline_consent_bridge` capability off: 404. Disabled link, or a notice no
// longer published (or no longer itemising the purpose): 410. Nothing is recorded by a GET (a link
// preview must not answer). A post whose nonce was used already shows the first outcome again (a
// double tap or a refresh never makes a second consent); one whose notice version is no longer the
// published one shows the new version to read instead of recording. POSTs spend a per-address
// budget counted in this instance's memory.
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../app.js";
import { findOrganizationById } from "../../accounts/organizations.js";
import { RateLimiter } from "../../http/rate-limit.js";
import { findPublishedNotice, type NoticeVersion } from "../../notices/notices.js";
import {
  chooseLanguage,
  escapeHtml,
  failurePage,
  formFields,
  languageInfo,
  localized,
  queryParam,
  renderLayout,
  renderNoticeBlock,
  type PageResult,
  type PrincipalPageModule,
} from "../pages/index.js";
import {
  answerLink,
  findAnswer,
  findLinkByToken,
  isNonceShaped,
  linkDeps,
  newRedemptionNonce,
  type LinkOutcome,
} from "./links.js";
import type { LinkRecord } from "./store.js";

/** Where a link's page lives; the create route builds the link's URL from it. */
export const LINK_PAGE_PATH = "/offline-consent";

/** Answers per client address and minute: far above a person, a stop for a script flooding a link. */
export const LINK_PAGE_POST_BUDGET = { limit: 30, windowMs: 60_000 } as const;

interface Words {
  intro: (organization: string) => string;
  agree: string;
  disagree: string;
  noticeChanged: string;
  acceptedTitle: string;
  accepted: (organization: string, purpose: string) => string;
  withdrawalCode: string;
  keepCode: string;
  withdrawHow: string;
  withdrawLink: string;
  declinedTitle: string;
  declined: (organization: string) => string;
  alreadyRecorded: string;
}

const WORDS: { en: Words; hi: Words } = {
  en: {
    intro: (organization) => `${organization} asks for your consent. Please read this notice.`,
    agree: "I agree",
    disagree: "I do not agree",
    noticeChanged: "This notice was updated while you were reading it. Please read the current version.",
    acceptedTitle: "Your consent is recorded",
    accepted: (organization, purpose) => `You agreed that ${organization} may use your data for: ${purpose}.`,
    withdrawalCode: "Your withdrawal code",
    keepCode:
      "Keep this code (write it down or take a screenshot). It is shown only here. You need it to withdraw your consent.",
    withdrawHow: "You can withdraw your consent at any time, as easily as you gave it:",
    withdrawLink: "withdraw with this code",
    declinedTitle: "Your answer is recorded",
    declined: (organization) =>
      `You did not agree. ${organization} has no consent from you for this. You can scan the code again if you change your mind.`,
    alreadyRecorded: "This answer had already been recorded; nothing new was recorded.",
  },
  hi: {
    intro: (organization) => `${organization} आपकी सहमति माँग रहा है। कृपया यह सूचना पढ़ें।`,
    agree: "मैं सहमत हूँ",
    disagree: "मैं सहमत नहीं हूँ",
    noticeChanged: "आपके पढ़ते समय यह सूचना बदल गई। कृपया नया संस्करण पढ़ें।",
    acceptedTitle: "आपकी सहमति दर्ज हो गई है",
    accepted: (organization, purpose) =>
      `आपने सहमति दी कि ${organization} आपके डेटा का उपयोग इसके लिए कर सकता है: ${purpose}।`,
    withdrawalCode: "आपका सहमति वापसी कोड",
    keepCode:
      "यह कोड सँभालकर रखें (लिख लें या स्क्रीनशॉट ले लें)। यह केवल यहीं दिखाया जाता है। सहमति वापस लेने के लिए इसकी ज़रूरत होगी।",
    withdrawHow: "आप जब चाहें, उतनी ही आसानी से अपनी सहमति वापस ले सकते हैं:",
    withdrawLink: "इस कोड से सहमति वापस लें",
    declinedTitle: "आपका उत्तर दर्ज हो गया है",
    declined: (organization) =>
      `आपने सहमति नहीं दी। ${organization} के पास इसके लिए आपकी सहमति नहीं है। मन बदलने पर आप कोड फिर से स्कैन कर सकते हैं।`,
    alreadyRecorded: "यह उत्तर पहले ही दर्ज हो चुका था; कुछ नया दर्ज नहीं हुआ।",
  },
};

interface Resolved {
  link: LinkRecord;
  notice: NoticeVersion;
  organization: string;
}

const tokenOf = (request: FastifyRequest): string => (request.params as { token?: string }).token ?? "";

export const linkPages: PrincipalPageModule = (ctx: AppContext) => {
  const { db, clock, capabilities } = ctx;
  const deps = linkDeps(ctx.config);
  const budgets = new RateLimiter();

  /** The link, its notice's published version and its organisation's name; or the page saying why not. */
  async function resolve(request: FastifyRequest): Promise<Resolved | PageResult> {
    const link = await findLinkByToken(db, tokenOf(request));
    // While the bridge is off a link is as absent as an unknown one.
    if (!link || !(await capabilities.enabled(db, link.organizationId, "offline_consent_bridge")))
      return failurePage(request, 404);
    if (link.disabledAt !== null) return failurePage(request, 410);
    const notice = await findPublishedNotice(db, link.noticeId);
    if (
      !notice ||
      notice.organizationId !== link.organizationId ||
      !notice.itemized.some((item) => item.purpose === link.purpose) ||
      notice.languages.length === 0
    )
      return failurePage(request, 410);
    const organization = (await findOrganizationById(db, link.organizationId))?.name ?? "";
    return { link, notice, organization };
  }

  function languageOf(request: FastifyRequest, notice: NoticeVersion, posted?: string): string {
    return chooseLanguage({
      requested: posted ?? queryParam(request, "lang"),
      acceptLanguage: request.headers["accept-language"],
      available: notice.languages,
      fallback: notice.languages[0],
    });
  }

  function noticePage(resolved: Resolved, lang: string, note?: string): PageResult {
    const { link, notice, organization } = resolved;
    const words = localized(WORDS, lang);
    const title = notice.content[lang]?.title ?? organization;
    const body = [
      note ? `<p class="box">${escapeHtml(note)}</p>` : "",
      `<p>${escapeHtml(words.intro(organization))}</p>`,
      renderNoticeBlock({ notice, purpose: link.purpose, lang, dataTypes: link.dataTypes }),
      // No action attribute: the form posts to this page's own URL, wherever Guard is mounted.
      '<form method="post">',
      `<input type="hidden" name="nonce" value="${newRedemptionNonce()}">`,
      `<input type="hidden" name="version" value="${notice.version}">`,
      `<input type="hidden" name="lang" value="${escapeHtml(lang)}">`,
      '<div class="actions">',
      `<button type="submit" name="decision" value="accept" class="primary">${escapeHtml(words.agree)}</button>`,
      `<button type="submit" name="decision" value="decline">${escapeHtml(words.disagree)}</button>`,
      "</div>",
      "</form>",
    ].join("\n");
    return { html: renderLayout({ lang, dir: languageInfo(lang).direction, title, body }) };
  }

  function outcomePage(resolved: Resolved, outcome: LinkOutcome): PageResult {
    const { link, organization } = resolved;
    const lang = resolved.notice.languages.includes(outcome.response.locale)
      ? outcome.response.locale
      : resolved.notice.languages[0]!;
    const words = localized(WORDS, lang);
    const parts: string[] = [];
    if (!outcome.recorded) parts.push(`<p class="muted">${escapeHtml(words.alreadyRecorded)}</p>`);
    let title: string;
    if (outcome.response.decision === "accepted") {
      title = words.acceptedTitle;
      parts.push(`<h1>${escapeHtml(title)}</h1>`);
      parts.push(`<p>${escapeHtml(words.accepted(organization, link.purpose))}</p>`);
      if (outcome.withdrawalToken !== null) {
        parts.push('<section class="box">');
        parts.push(`<h2>${escapeHtml(words.withdrawalCode)}</h2>`);
        parts.push(`<p class="secret">${escapeHtml(outcome.withdrawalToken)}</p>`);
        parts.push(`<p>${escapeHtml(words.keepCode)}</p>`);
        // Relative to /offline-consent/{token}: the withdrawal page of the same deployment.
        parts.push(
          `<p>${escapeHtml(words.withdrawHow)} <a href="../withdraw">${escapeHtml(words.withdrawLink)}</a></p>`,
        );
        parts.push("</section>");
      }
    } else {
      title = words.declinedTitle;
      parts.push(`<h1>${escapeHtml(title)}</h1>`);
      parts.push(`<p>${escapeHtml(words.declined(organization))}</p>`);
    }
    return { html: renderLayout({ lang, dir: languageInfo(lang).direction, title, body: parts.join("\n") }) };
  }

  return [
    {
      method: "GET",
      url: `${LINK_PAGE_PATH}/:token`,
      handler: async (request) => {
        const resolved = await resolve(request);
        if (!("link" in resolved)) return resolved;
        return noticePage(resolved, languageOf(request, resolved.notice));
      },
    },
    {
      method: "POST",
      url: `${LINK_PAGE_PATH}/:token`,
      handler: async (request) => {
        // Counted before any lookup, so probing tokens spends the budget too.
        budgets.hit(
          { key: `offline-link-page:${request.ip}`, organizationId: "", ...LINK_PAGE_POST_BUDGET },
          clock.now(),
        );
        const resolved = await resolve(request);
        if (!("link" in resolved)) return resolved;
        const fields = formFields(request);
        const decision =
          fields.decision === "accept" ? "accepted" : fields.decision === "decline" ? "declined" : undefined;
        const nonce = fields.nonce ?? "";
        if (!decision || !isNonceShaped(nonce)) return failurePage(request, 400);
        const earlier = await findAnswer(db, deps, resolved.link, nonce);
        if (earlier) return outcomePage(resolved, earlier);
        const lang = languageOf(request, resolved.notice, fields.lang);
        // Consent is given to what was read: a version published since the page was rendered is
        // shown to be read instead of recorded against.
        if (fields.version !== String(resolved.notice.version))
          return noticePage(resolved, lang, localized(WORDS, lang).noticeChanged);
        const outcome = await answerLink(
          db,
          deps,
          { link: resolved.link, nonce, decision, noticeVersion: resolved.notice.version, locale: lang },
          clock.now(),
        );
        return outcomePage(resolved, outcome);
      },
    },
  ];
};
