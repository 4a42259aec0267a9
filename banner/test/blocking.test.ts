import assert from "node:assert/strict";
import { test } from "node:test";
import { tagAllowed, tagPurposes } from "../src/blocking.js";

test("a tag's purposes are space separated", () => {
  assert.deepEqual(tagPurposes(" Analytics  Marketing\n"), ["Analytics", "Marketing"]);
  assert.deepEqual(tagPurposes(null), []);
});

test("a tag runs only when every purpose it names is consented", () => {
  const choices = { Analytics: true, Marketing: false };
  assert.equal(tagAllowed("Analytics", choices), true);
  assert.equal(tagAllowed("Marketing", choices), false);
  assert.equal(tagAllowed("Analytics Marketing", choices), false);
  assert.equal(tagAllowed("Analytics Marketing", { Analytics: true, Marketing: true }), true);
});

test("purpose names match case-insensitively", () => {
  assert.equal(tagAllowed("analytics", { Analytics: true }), true);
});

test("no decision, no purpose or an unknown purpose: blocked", () => {
  assert.equal(tagAllowed("Analytics", {}), false);
  assert.equal(tagAllowed("", { Analytics: true }), false);
  assert.equal(tagAllowed(null, { Analytics: true }), false);
  assert.equal(tagAllowed("Ads", { Analytics: true }), false);
});
