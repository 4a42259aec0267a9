import assert from "node:assert/strict";
import { test } from "node:test";
import {
  CONSENT_DEFAULTS,
  consentModeUpdate,
  makeGtag,
  parseConsentModeAttribute,
  typesForPurpose,
} from "../src/consent-mode.js";

test("defaults: everything denied but security storage, with a wait for the update", () => {
  assert.deepEqual(CONSENT_DEFAULTS, {
    ad_storage: "denied",
    ad_user_data: "denied",
    ad_personalization: "denied",
    analytics_storage: "denied",
    functionality_storage: "denied",
    personalization_storage: "denied",
    security_storage: "granted",
    wait_for_update: 500,
  });
});

test("built-in mapping matches purpose names case-insensitively and whole", () => {
  assert.deepEqual(typesForPurpose("Analytics"), ["analytics_storage"]);
  assert.deepEqual(typesForPurpose("STATISTICS"), ["analytics_storage"]);
  assert.deepEqual(typesForPurpose("Advertising"), ["ad_storage", "ad_user_data", "ad_personalization"]);
  assert.deepEqual(typesForPurpose("personalisation"), ["functionality_storage", "personalization_storage"]);
  assert.deepEqual(typesForPurpose("Account"), []);
  assert.deepEqual(typesForPurpose("Analytics and marketing"), []);
});

test("accepting analytics grants analytics_storage only", () => {
  const update = consentModeUpdate({ Analytics: true, Marketing: false, Account: true });
  assert.equal(update.analytics_storage, "granted");
  assert.equal(update.ad_storage, "denied");
  assert.equal(update.ad_user_data, "denied");
  assert.equal(update.ad_personalization, "denied");
  assert.equal(update.functionality_storage, "denied");
  assert.equal(update.personalization_storage, "denied");
});

test("a type is granted only when every purpose mapped to it is consented", () => {
  assert.equal(consentModeUpdate({ Analytics: true, Statistics: false }).analytics_storage, "denied");
  assert.equal(consentModeUpdate({ Analytics: true, Statistics: true }).analytics_storage, "granted");
});

test("withdrawing turns granted types back to denied", () => {
  assert.equal(consentModeUpdate({ Marketing: true }).ad_storage, "granted");
  assert.equal(consentModeUpdate({ Marketing: false }).ad_storage, "denied");
});

test("data-consent-mode replaces the built-in mapping, purposes matched case-insensitively", () => {
  const mapping = { account: ["functionality_storage"], Analytics: ["analytics_storage", "ad_storage"] };
  const update = consentModeUpdate({ Account: true, Analytics: true, Marketing: true }, mapping);
  assert.equal(update.functionality_storage, "granted");
  assert.equal(update.analytics_storage, "granted");
  assert.equal(update.ad_storage, "granted");
  // Marketing is not in the page's mapping, so it grants nothing.
  assert.equal(update.ad_user_data, "denied");
  assert.deepEqual(typesForPurpose("marketing", mapping), []);
});

test("data-consent-mode parser: a purpose → type-names object, or a problem", () => {
  assert.deepEqual(parseConsentModeAttribute('{"Analytics":["analytics_storage"]}'), {
    ok: true,
    mapping: { Analytics: ["analytics_storage"] },
  });
  for (const bad of [
    "",
    "{",
    "[]",
    "null",
    '"x"',
    '{"A":"analytics_storage"}',
    '{"A":[1]}',
    '{"A":["Bad Type"]}',
  ]) {
    const parsed = parseConsentModeAttribute(bad);
    assert.equal(parsed.ok, false, bad);
  }
});

test("gtag pushes an arguments object, as gtag.js requires, onto an existing dataLayer", () => {
  const earlier = { event: "page" };
  const win: { dataLayer?: unknown[] } = { dataLayer: [earlier] };
  const gtag = makeGtag(win);
  gtag("consent", "default", { ad_storage: "denied" });
  assert.equal(win.dataLayer!.length, 2);
  const pushed = win.dataLayer![1] as IArguments;
  assert.equal(Object.prototype.toString.call(pushed), "[object Arguments]");
  assert.deepEqual(Array.from(pushed), ["consent", "default", { ad_storage: "denied" }]);
  const fresh: { dataLayer?: unknown[] } = {};
  makeGtag(fresh)("consent", "update", {});
  assert.equal(fresh.dataLayer!.length, 1);
});
