// `npm run bench:dashboard`: what the DPO dashboard costs its users (issue 24, "Tests and figures").
// Starts Guard on PGlite in this process with the demo organisation and a month of consents,
// recorded through the public API with the clock set to each day, plus a few DSRs and Consent Gate
// decisions, then drives Debian's Chromium (playwright-core, never a download) over loopback:
//   (a) JS + CSS of the first page, signing in and landing on the Overview: bytes on the wire
//       (Chromium's encodedDataLength: gzipped by Guard, headers included), the response bodies
//       gzipped here with zlib (target <= 250 kB; independent of how Guard sends them), and the files of
//       dashboard/dist those URLs name, gzipped from disk, as a cross-check;
//   (b) time from navigation to the Overview being interactive (chart and SLA tiles rendered),
//       signed in, cold cache (a fresh browser context each run), median of --runs.
// Prints a table; asserts nothing.
//   node --import tsx bench/dashboard.mjs [--runs 5] [--days 30] [--per-day 12]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import zlib from "node:zlib";
import { chromium } from "playwright-core";
import { testConfig } from "../server/src/config.ts";
import { seedDemo, DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { startServer } from "../server/src/server.ts";
import { buildIfStale } from "../scripts/build-if-stale.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DIST = path.join(ROOT, "dashboard/dist");
const CHROMIUM = process.env.GUARD_CHROMIUM || "/usr/bin/chromium";
const TARGET_GZIP_BYTES = 250 * 1000;
const DAY = 86_400_000;

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    days: { type: "string", default: "30" },
    "per-day": { type: "string", default: "12" },
  },
});
const runs = Number(values.runs);
const seedDays = Number(values.days);
const perDay = Number(values["per-day"]);

/** A clock the seeding moves to past days; the real time otherwise (sessions, the overview's "today"). */
const clock = {
  fixed: undefined,
  now() {
    return this.fixed ?? Date.now();
  },
};

async function call(baseUrl, method, route, body, headers = {}) {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { ...(body ? { "content-type": "application/json" } : {}), ...headers },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** The demo organisation with `perDay` consents a day over `seedDays` days (one in six withdrawn), 3 DSRs, gate decisions. */
async function seed(server) {
  const demo = await seedDemo(server.db, Date.now());
  if (!demo) throw new Error("the bench data directory already had the demo organisation");
  const auth = { authorization: `Bearer ${demo.apiKey}` };
  const consentIds = [];
  const start = Date.now() - (seedDays - 1) * DAY;
  for (let d = 0; d < seedDays; d++) {
    for (let i = 0; i < perDay; i++) {
      clock.fixed = start + d * DAY + i * 1000;
      const externalId = `bench-${d}-${i}`;
      const email = `${externalId}@bench.example`;
      const item = DEMO_NOTICE.itemized[(d + i) % DEMO_NOTICE.itemized.length];
      await call(server.url, "POST", "/api/v1/auth/broker-token", { externalId, email }, auth);
      const { consentId } = await call(
        server.url,
        "POST",
        "/cm/v1/consent",
        { email, noticeId: demo.noticeId, purpose: item.purpose, dataTypes: item.dataTypes },
        auth,
      );
      consentIds.push(consentId);
      if (i % 6 === 5) await call(server.url, "DELETE", `/cm/v1/consent/${consentId}`, undefined, auth);
    }
  }
  clock.fixed = undefined;
  for (let i = 0; i < 3; i++) {
    const { accessToken } = await call(
      server.url,
      "POST",
      "/api/v1/auth/broker-token",
      { externalId: `bench-dsr-${i}` },
      auth,
    );
    await call(
      server.url,
      "POST",
      "/api/v1/dsr",
      { organizationId: demo.organizationId, type: "summary" },
      { authorization: `Bearer ${accessToken}` },
    );
  }
  for (const consentId of consentIds.slice(-20))
    await call(server.url, "POST", "/api/v1/consent/verify", { consentId }, auth);
  return { demo, consents: consentIds.length };
}

const gzip = (buffer) => zlib.gzipSync(buffer, { level: 6 }).length;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const kB = (bytes) => (bytes / 1000).toFixed(1);

/** The Overview is interactive: its chart and the DSR tiles are on screen. */
async function overviewReady(page) {
  await page.getByTestId("consent-chart").waitFor();
  await page.getByTestId("overview-dsr").getByRole("link").first().waitFor();
}

/** Signs in through the form on a cold context, landing on the Overview; the JS and CSS it loaded. */
async function firstPage(browser, baseUrl, demo) {
  const context = await browser.newContext({ locale: "en-IN", timezoneId: "Asia/Kolkata" });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const requests = new Map();
  cdp.on("Network.responseReceived", ({ requestId, type, response }) => {
    if (type === "Script" || type === "Stylesheet") requests.set(requestId, { url: response.url, type });
  });
  const wire = new Map();
  cdp.on("Network.loadingFinished", ({ requestId, encodedDataLength }) => {
    if (requests.has(requestId)) wire.set(requestId, encodedDataLength);
  });
  const bodies = new Map();
  page.on("response", async (response) => {
    const type = response.request().resourceType();
    if (type === "script" || type === "stylesheet") bodies.set(response.url(), await response.body());
  });
  await page.goto(`${baseUrl}/dashboard/`);
  await page.getByLabel("Organisation").fill("demo");
  await page.getByLabel("Email").fill(demo.adminEmail);
  await page.getByLabel("Password").fill(demo.adminPassword);
  await page.getByRole("button", { name: "Sign in" }).click();
  await overviewReady(page);
  await page.waitForLoadState("networkidle");
  const storage = await context.storageState();
  await context.close();
  const files = [...requests.entries()].map(([id, r]) => {
    const body = bodies.get(r.url);
    const distFile = path.join(DIST, new URL(r.url).pathname.replace(/^\/dashboard\//, ""));
    return {
      name: path.basename(new URL(r.url).pathname),
      type: r.type,
      wire: wire.get(id) ?? 0,
      raw: body?.length ?? 0,
      gzip: body ? gzip(body) : 0,
      distGzip: fs.existsSync(distFile) ? gzip(fs.readFileSync(distFile)) : NaN,
    };
  });
  return { files, storage };
}

/** Navigation to the Overview being interactive, signed in, on a cold cache; milliseconds. */
async function timeToInteractive(browser, baseUrl, storage) {
  const context = await browser.newContext({
    locale: "en-IN",
    timezoneId: "Asia/Kolkata",
    storageState: storage,
  });
  const page = await context.newPage();
  const started = performance.now();
  await page.goto(`${baseUrl}/dashboard/`, { waitUntil: "commit" });
  await overviewReady(page);
  const ms = performance.now() - started;
  await context.close();
  return ms;
}

await buildIfStale("dashboard");
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-dashboard-"));
let server;
let browser;
try {
  server = await startServer(testConfig({ dataDir, logLevel: "warn", port: 0, host: "127.0.0.1" }), {
    clock,
  });
  const seedStarted = performance.now();
  const { demo, consents } = await seed(server);
  const seedSeconds = (performance.now() - seedStarted) / 1000;
  browser = await chromium.launch({ executablePath: CHROMIUM });
  const { files, storage } = await firstPage(browser, server.url, demo);
  // One warm-up so the server's first-request costs (route compilation, query plans) are not timed.
  await timeToInteractive(browser, server.url, storage);
  const times = [];
  for (let r = 0; r < runs; r++) times.push(await timeToInteractive(browser, server.url, storage));

  const sum = (key) => files.reduce((s, f) => s + f[key], 0);
  const allDist = fs
    .readdirSync(path.join(DIST, "assets"))
    .filter((f) => /\.(js|css)$/.test(f))
    .reduce((s, f) => s + gzip(fs.readFileSync(path.join(DIST, "assets", f))), 0);

  console.log(
    `\ndashboard, first page (sign-in, then Overview), ${consents} consents over ${seedDays} days (seeded in ${seedSeconds.toFixed(1)} s)\n`,
  );
  console.log("| file | type | on the wire B | raw B | gzip B | gzip from dist B |");
  console.log("|---|---|---:|---:|---:|---:|");
  for (const f of files.sort((a, b) => b.gzip - a.gzip))
    console.log(`| ${f.name} | ${f.type} | ${f.wire} | ${f.raw} | ${f.gzip} | ${f.distGzip} |`);
  console.log(
    `| **total (${files.length} files)** | | ${sum("wire")} | ${sum("raw")} | **${sum("gzip")}** | ${sum("distGzip")} |`,
  );
  console.log("");
  console.log("| figure | value |");
  console.log("|---|---:|");
  console.log(
    `| JS+CSS of the first page, gzipped (target <= ${kB(TARGET_GZIP_BYTES)} kB) | ${kB(sum("gzip"))} kB |`,
  );
  console.log(`| same, gzipped from dashboard/dist (cross-check) | ${kB(sum("distGzip"))} kB |`);
  console.log(`| same, on the wire as Guard sends them (gzip, with headers) | ${kB(sum("wire"))} kB |`);
  console.log(`| every JS+CSS file of the build, gzipped | ${kB(allDist)} kB |`);
  console.log(
    `| navigation to Overview interactive, cold cache, median of ${runs} | ${median(times).toFixed(0)} ms |`,
  );
  console.log(`| ... each run | ${times.map((t) => t.toFixed(0)).join(", ")} ms |`);
  console.log(sum("gzip") <= TARGET_GZIP_BYTES ? "\nwithin the 250 kB target" : "\nOVER the 250 kB target");
} finally {
  await browser?.close();
  await server?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
