// The banner exactly as visitors see it: the hosted banner's own view (banner/src/ui/view.ts,
// its texts, styles and appearance), bundled into the dashboard rather than re-implemented, so a
// change to the banner shows here too. The view is mounted in a frame whose CSS `transform` makes
// the banner's `position: fixed` relative to the frame instead of the window. Its buttons record
// nothing: they only say which was clicked.
import { useEffect, useId, useRef, useState } from "react";
import { nativeName } from "../../../../banner/src/languages.js";
import type { BannerNotice, BannerSettings, Choices } from "../../../../banner/src/types.js";
import { BannerView } from "../../../../banner/src/ui/view.js";
import type { Schemas } from "../../api/client.js";
import "./banner-preview.css";

/** One language's notice texts; a draft may still lack some. */
export type PreviewTexts = Partial<Record<"title" | "body" | "withdrawal" | "rights" | "complaint", string>>;

export interface PreviewNotice {
  itemized: Schemas["NoticeItemizedPurpose"][];
  /** Language code -> texts, in the notice's language order. */
  content: Record<string, PreviewTexts>;
  languages: string[];
}

/** The notice in the shape the banner reads (a published `Notice`); missing texts stay empty. */
export function toBannerNotice(notice: PreviewNotice): BannerNotice {
  const content: BannerNotice["content"] = {};
  for (const language of notice.languages) {
    const texts = notice.content[language] ?? {};
    content[language] = { ...texts, title: texts.title ?? "", body: texts.body ?? "" };
  }
  return {
    _id: "preview",
    organizationId: "preview",
    version: 0,
    status: "draft",
    itemized: notice.itemized,
    content,
    languages: notice.languages,
  };
}

function describeChoices(choices: Choices): string {
  const on = Object.entries(choices)
    .filter(([, value]) => value)
    .map(([purpose]) => purpose);
  return on.length > 0 ? `Save choices clicked (on: ${on.join(", ")})` : "Save choices clicked (all off)";
}

export function BannerPreview({
  notice,
  settings,
  language,
  onLanguageChange,
  label = "Banner preview",
}: {
  notice: PreviewNotice;
  settings: BannerSettings;
  /** The language to show (controlled); the notice's first when not one of its languages. */
  language?: string;
  onLanguageChange?: (language: string) => void;
  label?: string;
}) {
  const frameRef = useRef<HTMLDivElement>(null);
  const [clicked, setClicked] = useState("");
  const [ownLanguage, setOwnLanguage] = useState<string | undefined>(undefined);
  const selectId = useId();
  const languages = notice.languages;
  const wanted = language ?? ownLanguage;
  const lang = wanted && languages.includes(wanted) ? wanted : (languages[0] ?? "en");
  const setLanguage = (code: string) => {
    setOwnLanguage(code);
    onLanguageChange?.(code);
  };

  // Rebuilt when what it shows changes, compared by value: callers may pass new objects each render,
  // and a rebuild on every render would close the preference centre a visitor just opened.
  const shown = JSON.stringify([notice, settings, lang]);
  const latest = useRef({ notice, settings });
  latest.current = { notice, settings };

  useEffect(() => {
    const frame = frameRef.current;
    const { notice, settings } = latest.current;
    if (!frame || notice.languages.length === 0) return;
    // A fresh view per change: the banner builds itself from notice + settings once, as on a page load.
    const say = (text: string) => async () => setClicked(text);
    const view = new BannerView({
      doc: document,
      mount: frame,
      notice: toBannerNotice(notice),
      settings,
      languages: notice.languages,
      lang,
      floatingButton: false,
      actions: {
        acceptAll: say("Accept all clicked"),
        rejectAll: say("Reject all clicked"),
        save: async (choices) => setClicked(describeChoices(choices)),
      },
      choices: () => undefined,
      decided: () => false,
      needsDecision: () => true,
    });
    view.showBanner(false);
    return () => view.host.remove();
    // `shown` stands for notice, settings and lang (read through `latest`).
  }, [shown]);

  if (languages.length === 0) {
    return <p className="banner-preview-empty">Add a language to the notice to preview the banner.</p>;
  }
  return (
    <section className="banner-preview" aria-label={label}>
      <div className="banner-preview-bar">
        <label htmlFor={selectId}>Preview language</label>
        <select id={selectId} value={lang} onChange={(event) => setLanguage(event.target.value)}>
          {languages.map((code) => (
            <option key={code} value={code} lang={code}>
              {nativeName(code)} ({code})
            </option>
          ))}
        </select>
        <span className="banner-preview-clicked" role="status" aria-live="polite">
          {clicked ? `${clicked} — a preview records nothing.` : ""}
        </span>
      </div>
      <div className="banner-preview-frame" ref={frameRef} data-testid="banner-preview-frame" />
    </section>
  );
}

/**
 * The contract's `BannerSettings` is an open object; Guard validated it against
 * `BannerSettingsInput` when it was saved, and the banner reads only the keys it knows (each
 * checked again before it reaches CSS), as the hosted banner does with the same object.
 */
export const asBannerSettings = (settings: Record<string, unknown> | undefined): BannerSettings =>
  (settings ?? {}) as BannerSettings;
