import assert from "node:assert/strict";
import { test } from "node:test";
import { NOTICE_LANGUAGE_LIST } from "../../server/src/notices/languages.js";
import { directionOf, NATIVE_NAMES, pickLanguage, primarySubtag } from "../src/languages.js";

test("the built-in table is the contract's 23 notice languages, with the server's names and directions", () => {
  assert.deepEqual(Object.keys(NATIVE_NAMES).sort(), NOTICE_LANGUAGE_LIST.map((l) => l.code).sort());
  for (const language of NOTICE_LANGUAGE_LIST) {
    assert.equal(NATIVE_NAMES[language.code], language.nativeName, language.code);
    assert.equal(directionOf(language.code), language.direction, language.code);
  }
});

test("primary subtag: region and script dropped, lower-cased", () => {
  assert.equal(primarySubtag("hi-IN"), "hi");
  assert.equal(primarySubtag("EN_gb"), "en");
  assert.equal(primarySubtag("kok"), "kok");
  assert.equal(primarySubtag("sd-Arab-IN"), "sd");
});

test("a hi-IN browser gets Hindi when the notice has it", () => {
  assert.equal(pickLanguage({ available: ["en", "hi"], browser: ["hi-IN", "en-US"] }), "hi");
});

test("the first browser language the notice has wins, in the browser's order", () => {
  assert.equal(pickLanguage({ available: ["en", "ta", "hi"], browser: ["fr-FR", "ta-IN", "hi"] }), "ta");
  assert.equal(pickLanguage({ available: ["en", "hi"], browser: ["en-IN", "hi-IN"] }), "en");
});

test("data-lang wins over the browser, also as a full tag, but only for a language the notice has", () => {
  assert.equal(pickLanguage({ available: ["en", "hi"], forced: "hi", browser: ["en-US"] }), "hi");
  assert.equal(pickLanguage({ available: ["en", "hi"], forced: "HI-in", browser: ["en-US"] }), "hi");
  assert.equal(pickLanguage({ available: ["en", "hi"], forced: "ta", browser: ["hi-IN"] }), "hi");
});

test("no browser match: the banner's default language when the notice has it, else the notice's first", () => {
  assert.equal(pickLanguage({ available: ["en", "hi"], browser: ["fr-FR"], defaultLanguage: "hi" }), "hi");
  assert.equal(pickLanguage({ available: ["hi", "en"], browser: ["fr-FR"], defaultLanguage: "ta" }), "hi");
  assert.equal(pickLanguage({ available: ["mr", "en"] }), "mr");
});

test("Urdu, Kashmiri and Sindhi are right to left; Hindi and English are not", () => {
  assert.deepEqual(["ur", "ks", "sd", "hi", "en"].map(directionOf), ["rtl", "rtl", "rtl", "ltr", "ltr"]);
});
