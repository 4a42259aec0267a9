// The hosted banner's figures (issue 23): what a fiduciary's visitors download and how soon they
// see the banner. Prints a table; asserts nothing.
//   node --import tsx bench/banner.mjs [--runs 20]
//
// - banner: `banner/dist/guard.js` (built first), gzipped at level 9. Target ≤ 15 kB.
// - @guard/js public subset: `sdks/js/src/index.ts` bundled by esbuild exporting only GuardClient,
//   hasConsent and the error classes, minified, gzipped. Target ≤ 5 kB.
// - time to banner, on loopback: a real Guard (PGlite in a temp dir) and a page on another loopback
//   origin carrying the snippet, loaded `--runs` times in Chromium, each time in a fresh browser
//   context (empty cache and storage, so the banner shows). From the banner's performance marks:
//   `guard:banner-visible − guard:config-ready` (rendering; target ≤ 100 ms) and
//   `guard:banner-visible − guard:script-start` (the whole wait, network included). Medians.
//   Chromium is Debian's (`GUARD_CHROMIUM`, default /usr/bin/chromium); without it this part is skipped.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import { build } from "esbuild";
import { chromium } from "playwright-core";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { registerDomain } from "../server/src/banner/banner-config.ts";
import { testConfig } from "../server/src/config.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";
import { startServer } from "../server/src/server.ts";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const { values } = parseArgs({ options: { runs: { type: "string", default: "20" } } });
const runs = Number(values.runs);
const chromiumPath = process.env.GUARD_CHROMIUM || "/usr/bin/chromium";

const gzipBytes = (bytes) => zlib.gzipSync(bytes, { level: 9 }).length;
const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB (${bytes} B)`;
const ms = (value) => (value === undefined ? "—" : `${value.toFixed(1)} ms`);
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

// ---- sizes ------------------------------------------------------------------------------------------

const built = spawnSync(process.execPath, [path.join(ROOT, "banner/scripts/build.mjs")], {
  cwd: ROOT,
  encoding: "utf8",
});
if (built.status !== 0) {
  console.error(`banner build failed:\n${built.stdout}${built.stderr}`);
  process.exit(1);
}
const bannerBytes = fs.readFileSync(path.join(ROOT, "banner/dist/guard.js"));

const subset = await build({
  stdin: {
    contents: `export { GuardClient, hasConsent, GuardError, GuardApiError, GuardConnectionError,
      GuardTimeoutError, GuardAbortError, GuardMissingCredentialError } from "./sdks/js/src/index.ts";`,
    resolveDir: ROOT,
    loader: "ts",
  },
  bundle: true,
  minify: true,
  format: "esm",
  platform: "browser",
  target: "es2019",
  write: false,
  logLevel: "silent",
});
const subsetBytes = subset.outputFiles[0].contents;

// ---- time to banner ---------------------------------------------------------------------------------

async function timeToBanner() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-banner-"));
  const server = await startServer(testConfig({ dataDir, logLevel: "warn", port: 0, host: "127.0.0.1" }));
  const guardOrigin = server.url.replace("localhost", "127.0.0.1");
  const site = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Bench shop</title>
<script src="${guardOrigin}/banner/v1/guard.js" data-org="bench" async></script></head>
<body><h1>Bench shop</h1></body></html>`);
  });
  let browser;
  try {
    const now = Date.now();
    const org = await createOrganization(server.db, { slug: "bench", name: "Bench" }, now);
    await publishNotice(server.db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
    await registerDomain(server.db, org.organizationId, "127.0.0.1", now);
    await new Promise((resolve) => site.listen(0, "127.0.0.1", resolve));
    const pageUrl = `http://127.0.0.1:${site.address().port}/`;
    browser = await chromium.launch({ executablePath: chromiumPath });
    const samples = { afterConfig: [], fromScript: [] };
    // One unmeasured load first: it warms the server's code paths, not the browser's cache.
    for (let i = 0; i <= runs; i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.waitForFunction(
        () => globalThis.performance.getEntriesByName("guard:banner-visible").length > 0,
        undefined,
        {
          timeout: 10_000,
        },
      );
      const marks = await page.evaluate(() =>
        Object.fromEntries(
          ["guard:script-start", "guard:config-ready", "guard:banner-visible"].map((name) => [
            name,
            globalThis.performance.getEntriesByName(name)[0]?.startTime,
          ]),
        ),
      );
      await context.close();
      if (i === 0) continue;
      samples.afterConfig.push(marks["guard:banner-visible"] - marks["guard:config-ready"]);
      samples.fromScript.push(marks["guard:banner-visible"] - marks["guard:script-start"]);
    }
    return { afterConfig: median(samples.afterConfig), fromScript: median(samples.fromScript) };
  } finally {
    await browser?.close();
    site.closeAllConnections();
    await new Promise((resolve) => site.close(resolve));
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const timing = fs.existsSync(chromiumPath) ? await timeToBanner() : undefined;

// ---- report -----------------------------------------------------------------------------------------

const rows = [
  ["figure", "value", "target"],
  ["banner guard.js, gzipped", kB(gzipBytes(bannerBytes)), "≤ 15 kB"],
  ["@guard/js public subset, gzipped", kB(gzipBytes(subsetBytes)), "≤ 5 kB"],
  [`banner visible − config ready (median of ${runs})`, ms(timing?.afterConfig), "≤ 100 ms"],
  [`banner visible − script start (median of ${runs})`, ms(timing?.fromScript), "—"],
];
const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
console.log("\nHosted banner (issue 23)");
for (const row of rows)
  console.log(
    row
      .map((cell, column) => cell.padEnd(widths[column]))
      .join("  ")
      .trimEnd(),
  );
if (!timing) console.log(`(time to banner skipped: no Chromium at ${chromiumPath}; set GUARD_CHROMIUM)`);
