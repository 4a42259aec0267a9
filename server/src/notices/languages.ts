// Languages a notice may be published in: English and the 22 languages of the Eighth Schedule to
// the Constitution of India (DPDP Act s.5(3) lets the principal read the notice in any of them).
// Codes are ISO 639-1 where one exists, else ISO 639-2/3 (brx, doi, kok, mai, mni, sat). The same
// list is the contract's `NoticeLanguageCode` enum and is served by GET /api/v1/notice-languages;
// a test keeps the three in step.

export interface NoticeLanguageInfo {
  code: NoticeLanguage;
  /** English name. */
  name: string;
  /** The language's name for itself (CLDR), for a language picker. */
  nativeName: string;
  /** Script direction: Kashmiri, Sindhi and Urdu are usually written in Perso-Arabic script. */
  direction: "ltr" | "rtl";
  /** False only for English, which s.5(3) names alongside the Schedule. */
  eighthSchedule: boolean;
}

const NOTICE_LANGUAGES = {
  en: "English",
  as: "Assamese",
  bn: "Bengali",
  brx: "Bodo",
  doi: "Dogri",
  gu: "Gujarati",
  hi: "Hindi",
  kn: "Kannada",
  ks: "Kashmiri",
  kok: "Konkani",
  mai: "Maithili",
  ml: "Malayalam",
  mni: "Manipuri",
  mr: "Marathi",
  ne: "Nepali",
  or: "Odia",
  pa: "Punjabi",
  sa: "Sanskrit",
  sat: "Santali",
  sd: "Sindhi",
  ta: "Tamil",
  te: "Telugu",
  ur: "Urdu",
} as const;

export type NoticeLanguage = keyof typeof NOTICE_LANGUAGES;

const NATIVE_NAMES: Record<NoticeLanguage, string> = {
  en: "English",
  as: "অসমীয়া",
  bn: "বাংলা",
  brx: "बर’",
  doi: "डोगरी",
  gu: "ગુજરાતી",
  hi: "हिन्दी",
  kn: "ಕನ್ನಡ",
  ks: "کٲشُر",
  kok: "कोंकणी",
  mai: "मैथिली",
  ml: "മലയാളം",
  mni: "মৈতৈলোন্",
  mr: "मराठी",
  ne: "नेपाली",
  or: "ଓଡ଼ିଆ",
  pa: "ਪੰਜਾਬੀ",
  sa: "संस्कृत भाषा",
  sat: "ᱥᱟᱱᱛᱟᱲᱤ",
  sd: "سنڌي",
  ta: "தமிழ்",
  te: "తెలుగు",
  ur: "اردو",
};

const RIGHT_TO_LEFT: ReadonlySet<NoticeLanguage> = new Set(["ks", "sd", "ur"]);

export const NOTICE_LANGUAGE_CODES = Object.keys(NOTICE_LANGUAGES) as NoticeLanguage[];

/** English first, then the Eighth Schedule in its own (alphabetical) order. */
export const NOTICE_LANGUAGE_LIST: readonly NoticeLanguageInfo[] = NOTICE_LANGUAGE_CODES.map((code) => ({
  code,
  name: NOTICE_LANGUAGES[code],
  nativeName: NATIVE_NAMES[code],
  direction: RIGHT_TO_LEFT.has(code) ? "rtl" : "ltr",
  eighthSchedule: code !== "en",
}));

export function isNoticeLanguage(code: string): code is NoticeLanguage {
  return Object.hasOwn(NOTICE_LANGUAGES, code);
}
