// The banner's own words (buttons, labels), as distinct from the notice, which is the fiduciary's
// text in every language it publishes. Built in for English and Hindi; a fiduciary overrides or
// adds languages with `bannerSettings.texts`; any other language falls back to English buttons.
import type { BannerSettings } from "./types.js";

export interface UiTexts {
  /** Overrides the notice title in the banner when set. */
  title?: string | undefined;
  /** Overrides the notice body in the banner when set. */
  description?: string | undefined;
  acceptAll: string;
  rejectAll: string;
  preferences: string;
  save: string;
  close: string;
  privacyPolicyLinkText: string;
  privacyChoices: string;
  language: string;
  more: string;
  purposes: string;
  withdrawal: string;
  rights: string;
  complaint: string;
  tracking: string;
  error: string;
}

const EN: UiTexts = {
  acceptAll: "Accept all",
  rejectAll: "Reject all",
  preferences: "Choose purposes",
  save: "Save choices",
  close: "Close",
  privacyPolicyLinkText: "Privacy policy",
  privacyChoices: "Privacy choices",
  language: "Language",
  more: "More about your rights",
  purposes: "Purposes and the personal data each uses",
  withdrawal: "Withdrawing consent",
  rights: "Your rights",
  complaint: "Complaints",
  tracking: "Tracking or targeted advertising",
  error: "Your choice could not be saved. Check your connection and try again.",
};

const HI: UiTexts = {
  acceptAll: "सभी स्वीकार करें",
  rejectAll: "सभी अस्वीकार करें",
  preferences: "उद्देश्य चुनें",
  save: "विकल्प सहेजें",
  close: "बंद करें",
  privacyPolicyLinkText: "गोपनीयता नीति",
  privacyChoices: "गोपनीयता विकल्प",
  language: "भाषा",
  more: "आपके अधिकारों के बारे में और",
  purposes: "उद्देश्य और प्रत्येक द्वारा उपयोग किया जाने वाला व्यक्तिगत डेटा",
  withdrawal: "सहमति वापस लेना",
  rights: "आपके अधिकार",
  complaint: "शिकायतें",
  tracking: "ट्रैकिंग या लक्षित विज्ञापन",
  error: "आपका विकल्प सहेजा नहीं जा सका। अपना कनेक्शन जाँचें और फिर से प्रयास करें।",
};

const BUILT_IN: Record<string, UiTexts> = { en: EN, hi: HI };

/** The texts for `lang`: the fiduciary's `bannerSettings.texts[lang]` over the built-in ones. */
export function uiTexts(lang: string, settings: BannerSettings | undefined): UiTexts {
  const own = settings?.texts?.[lang] ?? {};
  const texts: UiTexts = { ...(BUILT_IN[lang] ?? EN) };
  for (const key of Object.keys(own) as Array<keyof typeof own>) {
    const value = own[key];
    if (typeof value === "string" && value.trim() !== "") texts[key] = value;
  }
  return texts;
}
