// The banner settings form and its conversion to the contract's BannerSettingsInput. Empty inputs
// are left out (every key is optional, and the saved object replaces the previous one whole);
// what the user typed is sent as typed, so Guard's validation names the field that is wrong.
import type { Schemas } from "../../api/client.js";

export type SettingsInput = Schemas["BannerSettingsInput"];

export const COLOR_KEYS = [
  "background",
  "text",
  "primary",
  "primaryText",
  "secondary",
  "secondaryText",
  "link",
  "border",
] as const;
export type ColorKey = (typeof COLOR_KEYS)[number];

export const COLOR_LABELS: Record<ColorKey, string> = {
  background: "Background colour",
  text: "Text colour",
  primary: "Primary colour",
  primaryText: "Primary text colour",
  secondary: "Secondary colour",
  secondaryText: "Secondary text colour",
  link: "Link colour",
  border: "Border colour",
};

export const TEXT_KEYS = [
  "title",
  "description",
  "acceptAll",
  "rejectAll",
  "preferences",
  "save",
  "privacyPolicyLinkText",
] as const;
export type TextKey = (typeof TEXT_KEYS)[number];

export const TEXT_LABELS: Record<TextKey, string> = {
  title: "Title (replaces the notice title in the banner)",
  description: "Description (replaces the notice body in the banner)",
  acceptAll: "Accept all button",
  rejectAll: "Reject all button",
  preferences: "Choose purposes button",
  save: "Save choices button",
  privacyPolicyLinkText: "Privacy policy link text",
};

type Toggle = "" | "yes" | "no";

export interface SettingsForm {
  layout: string;
  position: string;
  theme: string;
  colors: Record<ColorKey, string>;
  fontFamily: string;
  /** As typed: a number input's text. */
  borderRadius: string;
  logoUrl: string;
  privacyPolicyUrl: string;
  defaultLanguage: string;
  showRejectAll: Toggle;
  showPreferences: Toggle;
  textLanguages: string[];
  texts: Record<string, Record<TextKey, string>>;
}

const str = (value: unknown): string => (typeof value === "string" ? value : "");
const toggle = (value: unknown): Toggle => (value === true ? "yes" : value === false ? "no" : "");

export const emptyTexts = (): Record<TextKey, string> =>
  Object.fromEntries(TEXT_KEYS.map((k) => [k, ""])) as Record<TextKey, string>;

export function formFrom(settings: Record<string, unknown> | undefined): SettingsForm {
  const s = settings ?? {};
  const colors = (s.colors ?? {}) as Record<string, unknown>;
  const texts = (s.texts ?? {}) as Record<string, Record<string, unknown>>;
  const textLanguages = Object.keys(texts);
  return {
    layout: str(s.layout),
    position: str(s.position),
    theme: str(s.theme),
    colors: Object.fromEntries(COLOR_KEYS.map((k) => [k, str(colors[k])])) as Record<ColorKey, string>,
    fontFamily: str(s.fontFamily),
    borderRadius: typeof s.borderRadius === "number" ? String(s.borderRadius) : "",
    logoUrl: str(s.logoUrl),
    privacyPolicyUrl: str(s.privacyPolicyUrl),
    defaultLanguage: str(s.defaultLanguage),
    showRejectAll: toggle(s.showRejectAll),
    showPreferences: toggle(s.showPreferences),
    textLanguages,
    texts: Object.fromEntries(
      textLanguages.map((lang) => [
        lang,
        Object.fromEntries(TEXT_KEYS.map((k) => [k, str(texts[lang]?.[k])])) as Record<TextKey, string>,
      ]),
    ),
  };
}

export function settingsInput(form: SettingsForm): SettingsInput {
  const out: Record<string, unknown> = {};
  const put = (key: string, value: string) => {
    if (value !== "") out[key] = value;
  };
  put("layout", form.layout);
  put("position", form.position);
  put("theme", form.theme);
  const colors = Object.fromEntries(
    COLOR_KEYS.filter((k) => form.colors[k] !== "").map((k) => [k, form.colors[k]]),
  );
  if (Object.keys(colors).length > 0) out.colors = colors;
  put("fontFamily", form.fontFamily);
  // A number input's text: a non-number goes as typed so Guard names the field.
  if (form.borderRadius.trim() !== "") {
    const radius = Number(form.borderRadius);
    out.borderRadius = Number.isFinite(radius) ? radius : form.borderRadius;
  }
  put("logoUrl", form.logoUrl);
  put("privacyPolicyUrl", form.privacyPolicyUrl);
  put("defaultLanguage", form.defaultLanguage);
  if (form.showRejectAll !== "") out.showRejectAll = form.showRejectAll === "yes";
  if (form.showPreferences !== "") out.showPreferences = form.showPreferences === "yes";
  const texts: Record<string, Record<string, string>> = {};
  for (const lang of form.textLanguages) {
    const own = form.texts[lang] ?? emptyTexts();
    texts[lang] = Object.fromEntries(TEXT_KEYS.filter((k) => own[k] !== "").map((k) => [k, own[k]]));
  }
  if (form.textLanguages.length > 0) out.texts = texts;
  return out as SettingsInput;
}

/** The API's field name for a form key (`bannerSettings.colors.primary`). */
export const settingField = (...path: string[]) => ["bannerSettings", ...path].join(".");

export function settingFieldNames(form: SettingsForm): string[] {
  return [
    ...["layout", "position", "theme", "fontFamily", "borderRadius", "logoUrl", "privacyPolicyUrl"].map((k) =>
      settingField(k),
    ),
    ...["defaultLanguage", "showRejectAll", "showPreferences"].map((k) => settingField(k)),
    ...COLOR_KEYS.map((k) => settingField("colors", k)),
    ...form.textLanguages.flatMap((lang) => TEXT_KEYS.map((k) => settingField("texts", lang, k))),
  ];
}
