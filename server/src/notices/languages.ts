// Languages a notice may be published in: English and the 22 languages of the Eighth Schedule to
// the Constitution of India (DPDP Act s.5(3) lets the principal read the notice in any of them).
// Codes are ISO 639-1 where one exists, else ISO 639-2/3.
export const NOTICE_LANGUAGES = {
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

export function isNoticeLanguage(code: string): code is NoticeLanguage {
  return Object.hasOwn(NOTICE_LANGUAGES, code);
}
