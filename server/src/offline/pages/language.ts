// Which language a principal page is shown in: the one the principal picked (`?lang=`, the links
// the notice block renders), else the best their browser asks for (Accept-Language), else the
// fallback (for a notice, its first language, the one it was written in first). Only a language
// the page can show is ever chosen.
import { NOTICE_LANGUAGE_LIST, type NoticeLanguageInfo } from "../../notices/languages.js";

const INFO = new Map<string, NoticeLanguageInfo>(NOTICE_LANGUAGE_LIST.map((info) => [info.code, info]));

/** The language's name for itself and its direction; unknown codes read as left-to-right. */
export function languageInfo(code: string): { code: string; nativeName: string; direction: "ltr" | "rtl" } {
  const info = INFO.get(code);
  return info
    ? { code, nativeName: info.nativeName, direction: info.direction }
    : { code, nativeName: code, direction: "ltr" };
}

/** Accept-Language entries, best first (q=0 dropped; ties keep header order). */
function acceptedLanguages(header: string | undefined): string[] {
  if (!header) return [];
  return header
    .split(",")
    .slice(0, 50)
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/i.exec(p)).find(Boolean);
      const weight = q ? Number(q[1]) : 1;
      return { tag: tag.trim().toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.tag !== "" && entry.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}

/**
 * The language to show, from `available` (a notice's languages, in its order): `requested` if
 * available, else the first Accept-Language entry whose tag or primary subtag (`hi-IN` → `hi`) is
 * available, else `fallback` when available, else `available[0]`.
 */
export function chooseLanguage(options: {
  requested?: string | undefined;
  acceptLanguage?: string | undefined;
  available: readonly string[];
  fallback?: string;
}): string {
  const { available } = options;
  if (available.length === 0) throw new Error("chooseLanguage needs at least one available language");
  const byLower = new Map(available.map((code) => [code.toLowerCase(), code]));
  const requested = options.requested?.trim().toLowerCase();
  if (requested && byLower.has(requested)) return byLower.get(requested)!;
  for (const tag of acceptedLanguages(options.acceptLanguage)) {
    const exact = byLower.get(tag) ?? byLower.get(tag.split("-")[0]!);
    if (exact) return exact;
  }
  if (options.fallback !== undefined && byLower.has(options.fallback.toLowerCase()))
    return byLower.get(options.fallback.toLowerCase())!;
  return available[0]!;
}

/**
 * A page's own words (buttons, headings) in `lang` when it has them, else English. Pages keep
 * their strings in a table keyed by language code; English is required.
 */
export function localized<T>(table: { en: T } & Partial<Record<string, T>>, lang: string): T {
  return table[lang] ?? table.en;
}
