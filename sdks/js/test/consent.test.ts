// hasConsent: the family's pure helper (conformance/README.md "Pure helpers").
import assert from "node:assert/strict";
import { test } from "node:test";
import { hasConsent } from "../src/index.js";

test("hasConsent is true only for an exact purpose with no withdrawal", () => {
  const consents = [
    { purpose: "Marketing", withdrawnAt: null },
    { purpose: "Analytics", withdrawnAt: 1_700_000_001_000 },
    { purpose: "Support" },
  ];
  assert.equal(hasConsent(consents, "Marketing"), true);
  assert.equal(hasConsent(consents, "Support"), true, "absent withdrawnAt counts as active");
  assert.equal(hasConsent(consents, "Analytics"), false);
  assert.equal(hasConsent(consents, "marketing"), false, "case-sensitive");
  assert.equal(hasConsent(consents, "Market"), false);
  assert.equal(hasConsent([], "Marketing"), false);
});

test("one active record wins over a withdrawn one for the same purpose", () => {
  const consents = [
    { purpose: "Marketing", withdrawnAt: 1 },
    { purpose: "Marketing", withdrawnAt: null },
  ];
  assert.equal(hasConsent(consents, "Marketing"), true);
});
