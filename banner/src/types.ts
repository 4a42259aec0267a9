// Shapes the banner reads, on top of @guard/js's contract types.
import type { Notice } from "../../sdks/js/src/index.js";

/** A published notice (with its `key` and each purpose's `dataTypes`, contract 2.12.0). */
export type BannerNotice = Notice;

export type LanguageContent = NonNullable<Notice["content"][string]>;

/** One language's banner texts (contract `BannerTexts`); all optional. */
export interface BannerTexts {
  title?: string;
  description?: string;
  acceptAll?: string;
  rejectAll?: string;
  preferences?: string;
  save?: string;
  privacyPolicyLinkText?: string;
}

/** The keys of the contract's `BannerSettingsInput` the banner uses; the server validated them. */
export interface BannerSettings {
  position?: "bottom" | "top" | "bottom-left" | "bottom-right" | "center";
  layout?: "bar" | "box" | "modal";
  theme?: "light" | "dark" | "auto";
  colors?: Partial<
    Record<
      "background" | "text" | "primary" | "primaryText" | "secondary" | "secondaryText" | "link" | "border",
      string
    >
  >;
  fontFamily?: string;
  borderRadius?: number;
  privacyPolicyUrl?: string;
  defaultLanguage?: string;
  texts?: Record<string, BannerTexts>;
}

/** A purpose → on/off choice. */
export type Choices = Record<string, boolean>;

/** What the banner keeps in first-party storage (BANNER-SPEC "Storage"). */
export interface StoredDecision {
  v: 1;
  anonymousId: string;
  noticeId: string;
  noticeVersion: number;
  purposes: Choices;
  consentIds: Record<string, string>;
  decidedAt: number;
}

/** The `guard:consent` event's detail. */
export interface ConsentEventDetail {
  purposes: Choices;
  /** Consent Mode types granted by this decision (e.g. `analytics_storage`). */
  granted: string[];
  /** Consent Mode types denied by it. */
  denied: string[];
  noticeId: string;
  noticeVersion: number;
  anonymousId: string;
  reason: "stored" | "choice";
}
