// The pure parts of presentation: layout from settings, CSS custom properties, button texts, and
// the `guard:consent` event's detail.
import assert from "node:assert/strict";
import { test } from "node:test";
import { consentModeUpdate } from "../src/consent-mode.js";
import { consentDetail } from "../src/events.js";
import { uiTexts } from "../src/texts.js";
import { customProperties, placement } from "../src/ui/appearance.js";

test("placement: a bottom bar by default; box corners; modal centred", () => {
  assert.deepEqual(placement({}), { layout: "bar", classes: ["bar", "bottom"] });
  assert.deepEqual(placement({ position: "top" }), { layout: "bar", classes: ["bar", "top"] });
  assert.deepEqual(placement({ layout: "box" }), { layout: "box", classes: ["box", "bottom-right"] });
  assert.deepEqual(placement({ layout: "box", position: "bottom-left" }), {
    layout: "box",
    classes: ["box", "bottom-left"],
  });
  assert.deepEqual(placement({ layout: "modal", position: "top" }), { layout: "modal", classes: ["center"] });
  assert.deepEqual(placement({ position: "center" }), { layout: "modal", classes: ["center"] });
});

test("custom properties: hex colours, the font list and the radius; anything else is dropped", () => {
  assert.deepEqual(
    customProperties({
      colors: { background: "#101010", primary: "#ABCDEF", text: "red; background:url(x)" },
      fontFamily: '"Noto Sans", sans-serif',
      borderRadius: 12,
    }),
    {
      "--guard-bg": "#101010",
      "--guard-primary": "#ABCDEF",
      "--guard-font": '"Noto Sans", sans-serif',
      "--guard-radius": "12px",
    },
  );
  assert.deepEqual(customProperties({ fontFamily: "x;}", borderRadius: 99 }), {});
});

test("button texts: the fiduciary's over the built-in; Hindi built in; others fall back to English", () => {
  assert.equal(uiTexts("en", undefined).acceptAll, "Accept all");
  assert.equal(uiTexts("hi", undefined).rejectAll, "सभी अस्वीकार करें");
  assert.equal(uiTexts("ta", undefined).acceptAll, "Accept all");
  const own = uiTexts("ta", { texts: { ta: { acceptAll: "அனைத்தையும் ஏற்கவும்", rejectAll: " " } } });
  assert.equal(own.acceptAll, "அனைத்தையும் ஏற்கவும்");
  assert.equal(own.rejectAll, "Reject all");
  assert.equal(uiTexts("en", { texts: { en: { title: "Cookies" } } }).title, "Cookies");
  assert.equal(uiTexts("en", undefined).title, undefined);
});

test("accept and reject texts exist for every built-in language", () => {
  for (const lang of ["en", "hi"]) {
    const texts = uiTexts(lang, undefined);
    assert.ok(texts.acceptAll && texts.rejectAll && texts.privacyChoices && texts.error, lang);
  }
});

test("the event detail: the choice per purpose, and the Consent Mode types granted and denied", () => {
  const choice = { Analytics: true, Marketing: false };
  assert.deepEqual(
    consentDetail(
      { purposes: choice, noticeId: "ntc_1", noticeVersion: 2, anonymousId: "a" },
      consentModeUpdate(choice),
      "choice",
    ),
    {
      purposes: { Analytics: true, Marketing: false },
      granted: ["analytics_storage"],
      denied: [
        "ad_storage",
        "ad_user_data",
        "ad_personalization",
        "functionality_storage",
        "personalization_storage",
      ],
      noticeId: "ntc_1",
      noticeVersion: 2,
      anonymousId: "a",
      reason: "choice",
    },
  );
});
