// The notice itself in the chosen language: the itemised purposes with their data and the DPDP
// Rule 3 texts (withdrawal, rights, complaint), plus the privacy-policy link. Shared by the banner
// (behind "More") and the preference centre.
import type { UiTexts } from "../texts.js";
import type { BannerNotice, BannerSettings, LanguageContent } from "../types.js";
import { h } from "./dom.js";

export function contentFor(notice: BannerNotice, lang: string): LanguageContent {
  return notice.content[lang] ?? Object.values(notice.content)[0] ?? { title: "", body: "" };
}

export function ruleThreeTexts(
  doc: Document,
  content: LanguageContent,
  texts: UiTexts,
  settings: BannerSettings,
): Node[] {
  const section = (heading: string, text: string | undefined) =>
    text ? [h(doc, "h3", {}, heading), h(doc, "p", {}, text)] : [];
  const nodes: Node[] = [
    ...section(texts.withdrawal, content.withdrawal),
    ...section(texts.rights, content.rights),
    ...section(texts.complaint, content.complaint),
  ];
  if (settings.privacyPolicyUrl && /^https:\/\//i.test(settings.privacyPolicyUrl)) {
    nodes.push(
      h(
        doc,
        "p",
        {},
        h(
          doc,
          "a",
          { href: settings.privacyPolicyUrl, target: "_blank", rel: "noopener noreferrer" },
          texts.privacyPolicyLinkText,
        ),
      ),
    );
  }
  return nodes;
}

export function purposeList(doc: Document, notice: BannerNotice, texts: UiTexts): Node[] {
  return [
    h(doc, "h3", {}, texts.purposes),
    h(
      doc,
      "ul",
      {},
      ...notice.itemized.map((item) =>
        h(doc, "li", {}, h(doc, "strong", {}, item.purpose), ": ", item.personalDataDescription),
      ),
    ),
  ];
}
