// /dashboard: the built single-page app served from memory, every client-side route answered with
// index.html, hashed assets cached for a year, a strict CSP, nothing outside the build reachable.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { DASHBOARD_CSP, loadDashboard, type DashboardBuild } from "../../src/web/dashboard.js";
import { startTestApp } from "../support/harness.js";

const INDEX =
  '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';
const SCRIPT = "console.log('dashboard');\n";
const STYLE = "body{margin:0}\n";

/** A dist folder as Vite writes it, plus a secret beside it that must never be served. */
function fakeDist(): { dir: string; build: DashboardBuild; cleanup(): void } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "guard-dashboard-"));
  const dir = path.join(root, "dist");
  fs.mkdirSync(path.join(dir, "assets"), { recursive: true });
  fs.writeFileSync(path.join(dir, "index.html"), INDEX);
  fs.writeFileSync(path.join(dir, "assets/index-AbC123.js"), SCRIPT);
  fs.writeFileSync(path.join(dir, "assets/index-Def456.css"), STYLE);
  fs.writeFileSync(path.join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  fs.writeFileSync(path.join(root, "secret.txt"), "do not serve");
  const build = loadDashboard(dir);
  assert.ok(build, "the fake dist loads");
  return { dir, build, cleanup: () => fs.rmSync(root, { recursive: true, force: true }) };
}

function assertSecure(res: { headers: Record<string, unknown> }) {
  assert.equal(res.headers["content-security-policy"], DASHBOARD_CSP);
  assert.equal(res.headers["x-content-type-options"], "nosniff");
}

test("the CSP is the strict one: self only, no inline, no framing", () => {
  for (const directive of [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ]) {
    assert.ok(DASHBOARD_CSP.split("; ").includes(directive), directive);
  }
  assert.doesNotMatch(DASHBOARD_CSP, /unsafe|\*/);
});

test("index.html for /dashboard and every client-side route, revalidated on each load", async () => {
  const dist = fakeDist();
  const t = await startTestApp({}, { dashboard: dist.build });
  try {
    for (const url of [
      "/dashboard",
      "/dashboard/",
      "/dashboard/rights/dsr/abc",
      "/dashboard/sign-in?next=%2Fdashboard%2Fexport",
    ]) {
      const res = await t.request({ method: "GET", url });
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers["content-type"]), /^text\/html; charset=utf-8/, url);
      assert.equal(res.headers["cache-control"], "no-cache", url);
      assertSecure(res);
    }
  } finally {
    await t.close();
    dist.cleanup();
  }
});

test("hashed assets: their content type and a one-year immutable cache; other files no-cache", async () => {
  const dist = fakeDist();
  const t = await startTestApp({}, { dashboard: dist.build });
  try {
    const js = await t.request({ method: "GET", url: "/dashboard/assets/index-AbC123.js" });
    assert.equal(js.statusCode, 200);
    assert.equal(js.body, SCRIPT);
    assert.equal(js.headers["content-type"], "text/javascript; charset=utf-8");
    assert.equal(js.headers["cache-control"], "public, max-age=31536000, immutable");
    assertSecure(js);

    const css = await t.request({ method: "GET", url: "/dashboard/assets/index-Def456.css" });
    assert.equal(css.statusCode, 200);
    assert.equal(css.body, STYLE);
    assert.equal(css.headers["content-type"], "text/css; charset=utf-8");
    assert.equal(css.headers["cache-control"], "public, max-age=31536000, immutable");

    const svg = await t.request({ method: "GET", url: "/dashboard/favicon.svg" });
    assert.equal(svg.statusCode, 200);
    assert.equal(svg.headers["content-type"], "image/svg+xml");
    assert.equal(svg.headers["cache-control"], "no-cache");

    // An asset name the build does not have (an old build's) is a 404, never index.html as script.
    const gone = await t.request({ method: "GET", url: "/dashboard/assets/index-Old999.js" });
    assert.equal(gone.statusCode, 404);
    assert.equal(gone.json().code, "NOT_FOUND");
  } finally {
    await t.close();
    dist.cleanup();
  }
});

test("text files go out gzipped to clients that accept gzip, and as they are to others", async () => {
  const dist = fakeDist();
  // A script big enough to be worth compressing (tiny files are sent as they are).
  const big = `${"export const line = 'the dashboard';\n".repeat(200)}`;
  fs.writeFileSync(path.join(dist.dir, "assets/big-Gz1.js"), big);
  const build = loadDashboard(dist.dir);
  assert.ok(build);
  const t = await startTestApp({}, { dashboard: build });
  try {
    const url = "/dashboard/assets/big-Gz1.js";
    const gz = await t.request({ method: "GET", url, headers: { "accept-encoding": "br, gzip;q=0.8" } });
    assert.equal(gz.statusCode, 200);
    assert.equal(gz.headers["content-encoding"], "gzip");
    assert.equal(gz.headers["vary"], "accept-encoding");
    assert.ok(gz.rawPayload.length < big.length / 5, `${gz.rawPayload.length} bytes`);
    assert.equal(gunzipSync(gz.rawPayload).toString(), big);

    for (const accept of [undefined, "identity", "gzip;q=0", "br"]) {
      const plain = await t.request({
        method: "GET",
        url,
        headers: accept === undefined ? {} : { "accept-encoding": accept },
      });
      assert.equal(plain.headers["content-encoding"], undefined, String(accept));
      assert.equal(plain.body, big, String(accept));
    }
  } finally {
    await t.close();
    dist.cleanup();
  }
});

test("no path outside the build is reachable: traversal gets index.html or 404, never the file", async () => {
  const dist = fakeDist();
  const t = await startTestApp({}, { dashboard: dist.build });
  try {
    for (const url of [
      "/dashboard/../secret.txt",
      "/dashboard/%2e%2e/secret.txt",
      "/dashboard/..%2fsecret.txt",
      "/dashboard/assets/..%2f..%2fsecret.txt",
      "/dashboard/assets/%2e%2e/%2e%2e/secret.txt",
      "/dashboard/%2e%2e%2f%2e%2e%2fpackage.json",
      "/dashboard/assets/../../../../etc/passwd",
    ]) {
      const res = await t.request({ method: "GET", url });
      assert.doesNotMatch(res.body, /do not serve|root:|"name"/, url);
      assert.ok(
        res.statusCode === 200 ? res.body === INDEX : res.statusCode === 404,
        `${url}: ${res.statusCode}`,
      );
    }
  } finally {
    await t.close();
    dist.cleanup();
  }
});

test("a file added to dist after start is not served: only what was there at load time", async () => {
  const dist = fakeDist();
  const t = await startTestApp({}, { dashboard: dist.build });
  try {
    fs.writeFileSync(path.join(dist.dir, "assets/late-Zz.js"), "late");
    const res = await t.request({ method: "GET", url: "/dashboard/assets/late-Zz.js" });
    assert.equal(res.statusCode, 404);
  } finally {
    await t.close();
    dist.cleanup();
  }
});

test("not built: loadDashboard says so and /dashboard is a 404", async () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), "guard-dashboard-empty-"));
  try {
    assert.equal(loadDashboard(empty), undefined);
    assert.equal(loadDashboard(path.join(empty, "missing")), undefined);
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
  }
  const t = await startTestApp({}, { dashboard: null });
  try {
    for (const url of ["/dashboard", "/dashboard/overview", "/dashboard/assets/index-AbC123.js"]) {
      const res = await t.request({ method: "GET", url });
      assert.equal(res.statusCode, 404, url);
    }
    assert.equal(t.app.hasRoute({ method: "GET", url: "/dashboard" }), false);
  } finally {
    await t.close();
  }
});

test("the API is unaffected: /api/v1 answers as before with the dashboard served", async () => {
  const dist = fakeDist();
  const t = await startTestApp({}, { dashboard: dist.build });
  try {
    const res = await t.request({ method: "GET", url: "/api/v1/staff/session" });
    assert.equal(res.statusCode, 401);
    assert.equal(res.json().code, "UNAUTHORIZED");
  } finally {
    await t.close();
    dist.cleanup();
  }
});
