// Google Consent Mode v2 (BANNER-SPEC "Consent Mode mapping"). The banner sets the defaults before
// any network so tags that load early see "denied", and sends an update after every decision.
import type { Choices } from "./types.js";

export const CONSENT_TYPES = [
  "ad_storage",
  "ad_user_data",
  "ad_personalization",
  "analytics_storage",
  "functionality_storage",
  "personalization_storage",
] as const;
export type ConsentType = (typeof CONSENT_TYPES)[number];
export type ConsentState = Record<string, "granted" | "denied">;

/** Purpose (any case) → the Consent Mode types it governs. */
export type ConsentModeMapping = Record<string, string[]>;

// Purpose names a fiduciary is likely to use, grouped by what Google's types mean.
const BUILT_IN: ReadonlyArray<[RegExp, ConsentType[]]> = [
  [/^(analytics|statistics|measurement)$/i, ["analytics_storage"]],
  [/^(marketing|advertising|ads|targeting)$/i, ["ad_storage", "ad_user_data", "ad_personalization"]],
  [
    /^(personalisation|personalization|functional|preferences)$/i,
    ["functionality_storage", "personalization_storage"],
  ],
];

/** Sent at once, before the configuration is known: nothing but security storage until a choice. */
export const CONSENT_DEFAULTS: Readonly<Record<string, string | number>> = {
  ad_storage: "denied",
  ad_user_data: "denied",
  ad_personalization: "denied",
  analytics_storage: "denied",
  functionality_storage: "denied",
  personalization_storage: "denied",
  security_storage: "granted",
  // Gives a stored decision (read from storage right after) time to arrive before tags fire.
  wait_for_update: 500,
};

/** The types a purpose maps to: the page's mapping (`data-consent-mode`) when given, else the built-in one. */
export function typesForPurpose(purpose: string, mapping?: ConsentModeMapping): string[] {
  if (mapping) {
    const key = Object.keys(mapping).find((name) => name.toLowerCase() === purpose.toLowerCase());
    return key === undefined ? [] : (mapping[key] ?? []);
  }
  return BUILT_IN.find(([pattern]) => pattern.test(purpose))?.[1] ?? [];
}

/**
 * The Consent Mode update for a decision: a type is granted when every purpose mapped to it is
 * consented, denied otherwise (including a type no purpose maps to: nothing asked for it).
 */
export function consentModeUpdate(choices: Choices, mapping?: ConsentModeMapping): ConsentState {
  const state: ConsentState = {};
  const known = new Set<string>(CONSENT_TYPES);
  for (const types of Object.values(mapping ?? {})) types.forEach((type) => known.add(type));
  const verdict = new Map<string, boolean>();
  for (const [purpose, on] of Object.entries(choices)) {
    for (const type of typesForPurpose(purpose, mapping))
      verdict.set(type, (verdict.get(type) ?? true) && on);
  }
  for (const type of known) state[type] = verdict.get(type) ? "granted" : "denied";
  return state;
}

/**
 * `data-consent-mode`: a JSON object, purpose → array of Consent Mode type names. Type names are
 * checked for shape only (Google adds types), so a typo in a purpose is the page's to see.
 */
export function parseConsentModeAttribute(
  text: string,
): { ok: true; mapping: ConsentModeMapping } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "not JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, problem: 'expected an object such as {"Analytics":["analytics_storage"]}' };
  }
  const mapping: ConsentModeMapping = {};
  for (const [purpose, types] of Object.entries(value)) {
    if (!Array.isArray(types) || !types.every((type) => typeof type === "string" && /^[a-z_]+$/.test(type))) {
      return { ok: false, problem: `${purpose}: expected an array of Consent Mode type names` };
    }
    mapping[purpose] = types as string[];
  }
  return { ok: true, mapping };
}

interface ConsentModeWindow {
  dataLayer?: unknown[];
}

/**
 * The tag-manager snippet's `gtag`: it must push an `arguments` object, not an array, because
 * gtag.js tells commands from plain data-layer events that way.
 */
export function makeGtag(win: ConsentModeWindow): (...args: unknown[]) => void {
  const layer = (win.dataLayer = win.dataLayer || []);
  return function gtag() {
    // eslint-disable-next-line prefer-rest-params
    layer.push(arguments);
  };
}
