// The install line's attributes (BANNER-SPEC "Install"). Pure: main.ts hands in an attribute reader
// for `document.currentScript`, so the parsing is tested without a DOM.
import { parseConsentModeAttribute, type ConsentModeMapping } from "./consent-mode.js";

export interface ScriptOptions {
  /** Guard's base URL: the script's own URL up to `/banner/v1/` (keeps a reverse-proxy prefix). */
  baseUrl: string;
  /** `data-org`: the organisation's slug. */
  org: string;
  /** `data-notice`: a notice id, else the organisation's default notice. */
  noticeId: string | undefined;
  /** `data-lang`: a forced language code. */
  lang: string | undefined;
  /** `data-preferences-button="false"` hides the floating button. */
  preferencesButton: boolean;
  /** `data-consent-mode`: replaces the built-in purpose → Consent Mode mapping. */
  consentMode: ConsentModeMapping | undefined;
}

export type ScriptOptionsResult = { ok: true; options: ScriptOptions } | { ok: false; problem: string };

const BANNER_PATH = "/banner/v1/";

/**
 * Guard's base URL from the script's `src`: everything before `/banner/v1/`, so
 * `https://example.com/guard/banner/v1/guard.js` gives `https://example.com/guard`. A src without
 * that path (a copy served from elsewhere) cannot say where Guard is: undefined.
 */
export function baseUrlFromSrc(src: string): string | undefined {
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  const at = url.pathname.lastIndexOf(BANNER_PATH);
  if (at < 0) return undefined;
  return url.origin + url.pathname.slice(0, at);
}

const nonEmpty = (value: string | null): string | undefined => {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
};

/** Reads the attributes; a problem is one sentence for the single console warning. */
export function parseScriptOptions(
  src: string | undefined,
  attribute: (name: string) => string | null,
): ScriptOptionsResult {
  const baseUrl = src === undefined ? undefined : baseUrlFromSrc(src);
  if (baseUrl === undefined) {
    return {
      ok: false,
      problem: `the script must be loaded from Guard's ${BANNER_PATH}guard.js (got ${src ?? "no src"})`,
    };
  }
  const org = nonEmpty(attribute("data-org"));
  if (org === undefined)
    return { ok: false, problem: "the script tag has no data-org (the organisation slug)" };
  const consentModeText = nonEmpty(attribute("data-consent-mode"));
  let consentMode: ConsentModeMapping | undefined;
  if (consentModeText !== undefined) {
    const parsed = parseConsentModeAttribute(consentModeText);
    if (!parsed.ok) return { ok: false, problem: `data-consent-mode: ${parsed.problem}` };
    consentMode = parsed.mapping;
  }
  return {
    ok: true,
    options: {
      baseUrl,
      org,
      noticeId: nonEmpty(attribute("data-notice")),
      lang: nonEmpty(attribute("data-lang"))?.toLowerCase(),
      preferencesButton: nonEmpty(attribute("data-preferences-button"))?.toLowerCase() !== "false",
      consentMode,
    },
  };
}
