// The notice's languages: which one to show first, their names for the switcher, and direction.
// The names come from the server's own list (server/src/notices/languages.ts, plain data with no
// imports), bundled in rather than fetched, so the switcher costs no request.
import { NOTICE_LANGUAGE_LIST } from "../../server/src/notices/languages.js";

/** Each notice language's name for itself (CLDR), as a picker shows it. */
export const NATIVE_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  NOTICE_LANGUAGE_LIST.map((language) => [language.code, language.nativeName]),
);

// Kashmiri, Sindhi and Urdu notices are written in Perso-Arabic script.
const RIGHT_TO_LEFT: readonly string[] = NOTICE_LANGUAGE_LIST.filter((l) => l.direction === "rtl").map(
  (l) => l.code,
);

export const nativeName = (code: string): string => NATIVE_NAMES[code] ?? code;

export const directionOf = (code: string): "ltr" | "rtl" => (RIGHT_TO_LEFT.includes(code) ? "rtl" : "ltr");

/** `hi-IN` → `hi`; `kok` stays `kok`. Lower-cased. */
export const primarySubtag = (tag: string): string => tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";

export interface LanguageInput {
  /** The notice's languages, in the organisation's order. */
  available: readonly string[];
  /** `data-lang`. */
  forced?: string | undefined;
  /** `navigator.languages`, most preferred first. */
  browser?: readonly string[] | undefined;
  /** `bannerSettings.defaultLanguage`. */
  defaultLanguage?: string | undefined;
}

/**
 * The language to show first: `data-lang`, else the first browser language whose primary subtag
 * the notice has, else the banner's default language, else the notice's first. Each only when the
 * notice is written in it: the notice text is never shown in a language it does not have.
 */
export function pickLanguage({ available, forced, browser, defaultLanguage }: LanguageInput): string {
  const has = (code: string | undefined): code is string => code !== undefined && available.includes(code);
  const wanted = forced === undefined ? undefined : primarySubtag(forced);
  if (has(wanted)) return wanted;
  for (const tag of browser ?? []) {
    const code = primarySubtag(tag);
    if (has(code)) return code;
  }
  if (has(defaultLanguage)) return defaultLanguage;
  return available[0] ?? "en";
}
