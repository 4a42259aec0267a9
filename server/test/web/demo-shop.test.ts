// /demo/shop: served only when asked for (guard serve --seed-demo), with a strict CSP, loading the
// banner with the demo organisation's slug and an analytics tag the banner holds back.
import assert from "node:assert/strict";
import { test } from "node:test";
import { startTestApp } from "../support/harness.js";

test("the demo shop page and its assets, under a CSP without unsafe-inline or unsafe-eval", async () => {
  const t = await startTestApp({}, { demoShop: true });
  try {
    const page = await t.request({ method: "GET", url: "/demo/shop" });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /script-src 'self'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(page.body, /<script src="\/banner\/v1\/guard\.js" data-org="demo" async><\/script>/);
    assert.match(
      page.body,
      /<script type="text\/plain" data-guard-purpose="Analytics" src="\/demo\/shop\/analytics\.js">/,
    );
    // No inline script or style: the CSP would block it.
    assert.doesNotMatch(page.body, /<script(?![^>]*\bsrc=)[^>]*>/);
    assert.doesNotMatch(page.body, /<style|style="/);
    for (const asset of ["/demo/shop/shop.css", "/demo/shop/page.js", "/demo/shop/analytics.js"]) {
      const res = await t.request({ method: "GET", url: asset });
      assert.equal(res.statusCode, 200, asset);
      assert.ok(res.body.length > 0, asset);
    }
  } finally {
    await t.close();
  }
});

test("without --seed-demo there is no demo page", async () => {
  const t = await startTestApp();
  try {
    const res = await t.request({ method: "GET", url: "/demo/shop" });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
  }
});
