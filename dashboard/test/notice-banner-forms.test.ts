// The Notices editor's and Banner form's conversions to the contract's inputs (pure functions):
// what the user typed is what Guard receives, empty inputs are left out, and the rows keep their
// indexes so the API's `itemized[1].purpose` names the row on screen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { draftInput, emptyPurpose, formFrom } from "../src/pages/notices/draft-model.js";
import { formFrom as settingsFormFrom, settingsInput } from "../src/pages/banner/settings-model.js";

test("a new notice's empty draft opens with one purpose and English, and sends no purposes until one is typed", () => {
  const form = formFrom({ itemized: [], content: {}, languages: [] });
  assert.equal(form.itemized.length, 1);
  assert.deepEqual(form.languages, ["en"]);
  assert.deepEqual(draftInput(form), { content: { en: {} } });
});

test("purposes keep their order and indexes (a blank row in the middle is sent, for its error); empty texts are left out", () => {
  const form = formFrom({
    itemized: [
      { purpose: "Analytics", personalDataDescription: "Pages", dataTypes: ["device id"], tracking: true },
    ],
    content: { hi: { title: "शीर्षक" } },
    languages: ["hi"],
  });
  form.itemized.push({ ...emptyPurpose(), personalDataDescription: "Email" });
  form.content.hi!.body = "";
  assert.deepEqual(draftInput(form), {
    itemized: [
      { purpose: "Analytics", personalDataDescription: "Pages", tracking: true, dataTypes: ["device id"] },
      { purpose: "", personalDataDescription: "Email" },
    ],
    content: { hi: { title: "शीर्षक" } },
  });
});

test("banner settings round-trip, and only what was typed is sent", () => {
  const saved = {
    layout: "box",
    colors: { primary: "#b00020" },
    borderRadius: 4,
    showRejectAll: true,
    texts: { hi: { acceptAll: "स्वीकार" } },
  };
  assert.deepEqual(settingsInput(settingsFormFrom(saved)), saved);
  assert.deepEqual(settingsInput(settingsFormFrom(undefined)), {});
  const typed = settingsFormFrom(undefined);
  typed.colors.primary = "#12";
  typed.borderRadius = "4.5";
  assert.deepEqual(settingsInput(typed), { colors: { primary: "#12" }, borderRadius: 4.5 });
});
