import assert from "node:assert/strict";
import { test } from "node:test";
import { baseUrlFromSrc, parseScriptOptions } from "../src/script-tag.js";

const attributes =
  (values: Record<string, string>) =>
  (name: string): string | null =>
    values[name] ?? null;

test("base URL: the script's URL up to /banner/v1/, keeping a proxy prefix", () => {
  assert.equal(baseUrlFromSrc("https://guard.example.com/banner/v1/guard.js"), "https://guard.example.com");
  assert.equal(
    baseUrlFromSrc("https://example.com/tools/guard/banner/v1/guard.3f9a01b2c3d4e5f6.js"),
    "https://example.com/tools/guard",
  );
  assert.equal(baseUrlFromSrc("http://127.0.0.1:8080/banner/v1/guard.js?x=1"), "http://127.0.0.1:8080");
  // A prefix may itself contain "banner": only the final /banner/v1/ is Guard's.
  assert.equal(
    baseUrlFromSrc("https://example.com/banner/guard/banner/v1/guard.js"),
    "https://example.com/banner/guard",
  );
  assert.equal(baseUrlFromSrc("https://cdn.example.com/guard.js"), undefined);
  assert.equal(baseUrlFromSrc("not a url"), undefined);
  assert.equal(baseUrlFromSrc("data:text/javascript,/banner/v1/"), undefined);
});

test("the install line's attributes", () => {
  const parsed = parseScriptOptions(
    "https://guard.example.com/banner/v1/guard.js",
    attributes({
      "data-org": " demo ",
      "data-notice": "ntc_1",
      "data-lang": "HI",
      "data-preferences-button": "False",
      "data-consent-mode": '{"Analytics":["analytics_storage"]}',
    }),
  );
  assert.deepEqual(parsed, {
    ok: true,
    options: {
      baseUrl: "https://guard.example.com",
      org: "demo",
      noticeId: "ntc_1",
      lang: "hi",
      preferencesButton: false,
      consentMode: { Analytics: ["analytics_storage"] },
    },
  });
});

test("defaults: default notice, browser language, floating button shown, built-in mapping", () => {
  const parsed = parseScriptOptions(
    "https://g.example/banner/v1/guard.js",
    attributes({ "data-org": "demo" }),
  );
  assert.ok(parsed.ok);
  assert.equal(parsed.options.noticeId, undefined);
  assert.equal(parsed.options.lang, undefined);
  assert.equal(parsed.options.preferencesButton, true);
  assert.equal(parsed.options.consentMode, undefined);
  const empty = parseScriptOptions(
    "https://g.example/banner/v1/guard.js",
    attributes({ "data-org": "demo", "data-notice": "  ", "data-preferences-button": "" }),
  );
  assert.ok(empty.ok);
  assert.equal(empty.options.noticeId, undefined);
  assert.equal(empty.options.preferencesButton, true);
});

test("a missing data-org, a foreign src or a bad data-consent-mode is one problem sentence", () => {
  const noOrg = parseScriptOptions("https://g.example/banner/v1/guard.js", attributes({}));
  assert.deepEqual(noOrg.ok, false);
  assert.match(!noOrg.ok ? noOrg.problem : "", /data-org/);
  const foreign = parseScriptOptions("https://cdn.example/guard.js", attributes({ "data-org": "demo" }));
  assert.match(!foreign.ok ? foreign.problem : "", /\/banner\/v1\/guard\.js/);
  const noSrc = parseScriptOptions(undefined, attributes({ "data-org": "demo" }));
  assert.equal(noSrc.ok, false);
  const badMode = parseScriptOptions(
    "https://g.example/banner/v1/guard.js",
    attributes({ "data-org": "demo", "data-consent-mode": "{oops" }),
  );
  assert.match(!badMode.ok ? badMode.problem : "", /^data-consent-mode: /);
});
