// The hosted banner script as Guard serves it: the plain URL revalidated often, the hashed URL
// immutable for a year with bytes matching the snippet's SRI hash, loadable from any page, 304 on
// a matching ETag, an unknown hash 404; and the staff install snippet that names them.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { bannerScriptFrom, loadBannerScript } from "../../src/banner/script.js";
import { assertApiError } from "../support/api-error.js";
import {
  seedOrganization,
  signIn,
  startTestApp,
  TEST_BANNER_SCRIPT,
  type TestApp,
} from "../support/harness.js";

describe("the hosted banner script", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("GET /banner/v1/guard.js: the script, cached five minutes, loadable cross-origin", async () => {
    const res = await t.request({
      method: "GET",
      url: "/banner/v1/guard.js",
      headers: { origin: "https://shop.test" },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.body, TEST_BANNER_SCRIPT.body.toString());
    assert.equal(res.headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal(res.headers["cache-control"], "public, max-age=300");
    assert.equal(res.headers["access-control-allow-origin"], "*");
    assert.equal(res.headers["cross-origin-resource-policy"], "cross-origin");
    assert.equal(res.headers["x-content-type-options"], "nosniff");
    const again = await t.request({
      method: "GET",
      url: "/banner/v1/guard.js",
      headers: { "if-none-match": String(res.headers.etag) },
    });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, "");
  });

  test("the hashed name is immutable for a year and its bytes match the SRI hash", async () => {
    const res = await t.request({ method: "GET", url: `/banner/v1/${TEST_BANNER_SCRIPT.hashedName}` });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers["cache-control"], "public, max-age=31536000, immutable");
    const sri = `sha384-${createHash("sha384").update(res.rawPayload).digest("base64")}`;
    assert.equal(sri, TEST_BANNER_SCRIPT.integrity);
    assert.match(TEST_BANNER_SCRIPT.hashedName, /^guard\.[0-9a-f]{16}\.js$/);
    assertApiError(
      await t.request({ method: "GET", url: "/banner/v1/guard.0123456789abcdef.js" }),
      404,
      "NOT_FOUND",
    );
  });

  test("the staff snippet: the hashed URL, its integrity, crossorigin, async and the organisation's slug", async () => {
    const seeded = await seedOrganization(t);
    const viewer = await signIn(t, seeded, "viewer");
    const res = await t.request({
      method: "GET",
      url: "/api/v1/staff/integrations/banner",
      headers: { ...viewer.headers, host: "guard.example.test:8443" },
    });
    assert.equal(res.statusCode, 200, res.body);
    const scriptUrl = `http://guard.example.test:8443/banner/v1/${TEST_BANNER_SCRIPT.hashedName}`;
    assert.deepEqual(res.json(), {
      snippet: `<script src="${scriptUrl}" integrity="${TEST_BANNER_SCRIPT.integrity}" crossorigin="anonymous" data-org="${seeded.org.slug}" async></script>`,
      scriptUrl,
      integrity: TEST_BANNER_SCRIPT.integrity,
      bannerVersion: "0.0.0-test",
    });
    assertApiError(
      await t.request({ method: "GET", url: "/api/v1/staff/integrations/banner" }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("GUARD_PUBLIC_URL names the base the snippet points at", async () => {
    const behindProxy = await startTestApp({ publicUrl: "https://consent.example.com/guard" });
    try {
      const seeded = await seedOrganization(behindProxy);
      const admin = await signIn(behindProxy, seeded, "admin");
      const res = await behindProxy.request({
        method: "GET",
        url: "/api/v1/staff/integrations/banner",
        headers: admin.headers,
      });
      assert.equal(
        res.json().scriptUrl,
        `https://consent.example.com/guard/banner/v1/${TEST_BANNER_SCRIPT.hashedName}`,
      );
    } finally {
      await behindProxy.close();
    }
  });

  test("a build without the banner serves no script and no snippet (404)", async () => {
    const bare = await startTestApp({}, { bannerScript: null });
    try {
      assertApiError(await bare.request({ method: "GET", url: "/banner/v1/guard.js" }), 404, "NOT_FOUND");
      const seeded = await seedOrganization(bare);
      const admin = await signIn(bare, seeded, "admin");
      assertApiError(
        await bare.request({
          method: "GET",
          url: "/api/v1/staff/integrations/banner",
          headers: admin.headers,
        }),
        404,
        "NOT_FOUND",
      );
    } finally {
      await bare.close();
    }
  });

  test("loadBannerScript reads the build and its manifest version, and computes the hashes itself", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-banner-"));
    try {
      assert.equal(loadBannerScript(dir), undefined);
      fs.writeFileSync(path.join(dir, "guard.js"), "console.log(1)");
      fs.writeFileSync(
        path.join(dir, "manifest.json"),
        JSON.stringify({ version: "1.2.3", integrity: "sha384-stale" }),
      );
      assert.deepEqual(loadBannerScript(dir), bannerScriptFrom(Buffer.from("console.log(1)"), "1.2.3"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
