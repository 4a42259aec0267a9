// The notice as a principal page shows it (DPDP s.5: what is collected and why, how to withdraw,
// how to exercise rights and complain; s.5(3): in the language they choose): one published
// version's text in one language, the purpose being asked for with its personal data, and links to
// the same page in the notice's other languages. The text is the notice's own, escaped; its line
// breaks are kept (CSS pre-line) rather than interpreted as markup.
import type { NoticeItemizedPurpose, NoticeLanguageContent } from "../../notices/notices.js";
import { escapeHtml } from "./html.js";
import { languageInfo, localized } from "./language.js";

/** What the block reads of a notice version (NoticeVersion from notices/notices.ts fits). */
export interface NoticeForPage {
  version: number;
  languages: readonly string[];
  content: Record<string, Partial<NoticeLanguageContent>>;
  itemized: readonly NoticeItemizedPurpose[];
}

const HEADINGS = {
  en: {
    purpose: "What we ask your consent for",
    data: "Personal data",
    withdrawal: "Withdrawing your consent",
    rights: "Your rights",
    complaint: "Complaints",
    languages: "Read this in",
    version: "Notice version",
  },
  hi: {
    purpose: "हम किस लिए आपकी सहमति माँग रहे हैं",
    data: "व्यक्तिगत डेटा",
    withdrawal: "अपनी सहमति वापस लेना",
    rights: "आपके अधिकार",
    complaint: "शिकायतें",
    languages: "इसे इस भाषा में पढ़ें",
    version: "सूचना संस्करण",
  },
};

/**
 * The notice block for `purpose` in `lang` (which must be one of the notice's languages; pick it
 * with chooseLanguage). `dataTypes` are the data types being asked for (a link's or request's own);
 * when absent, the itemised purpose's. `languageHref` makes each other language's link (default
 * `?lang=<code>`, the same page). Throws when the version does not itemise the purpose: callers
 * check that before rendering.
 */
export function renderNoticeBlock(options: {
  notice: NoticeForPage;
  purpose: string;
  lang: string;
  dataTypes?: readonly string[];
  languageHref?: (code: string) => string;
}): string {
  const { notice, lang } = options;
  const item = notice.itemized.find((entry) => entry.purpose === options.purpose);
  if (!item) throw new Error(`notice version ${notice.version} does not itemise ${options.purpose}`);
  const text = notice.content[lang] ?? {};
  const words = localized(HEADINGS, lang);
  const href = options.languageHref ?? ((code: string) => `?lang=${encodeURIComponent(code)}`);
  const dataTypes = options.dataTypes ?? item.dataTypes ?? [];
  const parts: string[] = [];

  const others = notice.languages.filter((code) => code !== lang);
  if (others.length > 0) {
    const links = others.map((code) => {
      const info = languageInfo(code);
      return `<a href="${escapeHtml(href(code))}" hreflang="${escapeHtml(code)}" lang="${escapeHtml(code)}" dir="${info.direction}">${escapeHtml(info.nativeName)}</a>`;
    });
    parts.push(`<nav class="langs" aria-label="${escapeHtml(words.languages)}">${links.join(" ")}</nav>`);
  }
  if (text.title) parts.push(`<h1>${escapeHtml(text.title)}</h1>`);
  if (text.body) parts.push(`<div class="text">${escapeHtml(text.body)}</div>`);

  parts.push('<section class="box">');
  parts.push(`<h2>${escapeHtml(words.purpose)}</h2>`);
  parts.push(`<p><strong>${escapeHtml(item.purpose)}</strong></p>`);
  parts.push(`<p class="text">${escapeHtml(item.personalDataDescription)}</p>`);
  if (dataTypes.length > 0) {
    parts.push(`<p>${escapeHtml(words.data)}: ${dataTypes.map((type) => escapeHtml(type)).join(", ")}</p>`);
  }
  parts.push("</section>");

  for (const field of ["withdrawal", "rights", "complaint"] as const) {
    const section = text[field];
    if (section)
      parts.push(`<h2>${escapeHtml(words[field])}</h2>\n<div class="text">${escapeHtml(section)}</div>`);
  }
  parts.push(`<p class="muted">${escapeHtml(words.version)} ${escapeHtml(notice.version)}</p>`);
  return parts.join("\n");
}
