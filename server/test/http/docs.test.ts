// The API reference at /docs: branded Guard, opening on the operations, and working over plain
// HTTP on any host name (a Content-Security-Policy with upgrade-insecure-requests left it blank
// everywhere but localhost). The browser part drives Debian's Chromium against a host name that is
// not localhost.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { chromium } from "playwright-core";
import { referenceDocument, withoutUpgradeInsecureRequests } from "../../src/http/docs.js";
import { startTestApp, type TestApp } from "../support/harness.js";

const chromiumPath = process.env.GUARD_CHROMIUM || "/usr/bin/chromium";
// Never skipped on CI, where a missing browser must fail the run.
const browserSkip = fs.existsSync(chromiumPath) || process.env.CI ? false : `no Chromium at ${chromiumPath}`;

describe("API reference", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("its pages carry no upgrade-insecure-requests, and its document opens on the operations", async () => {
    const page = await t.request({ method: "GET", url: "/docs/" });
    assert.equal(page.statusCode, 200);
    const csp = String(page.headers["content-security-policy"]);
    assert.match(csp, /default-src 'self'/);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/);

    const shown = (await t.request({ method: "GET", url: "/docs/json" })).json<{
      info: { description: string };
      paths: Record<string, unknown>;
    }>();
    const full = (await t.request({ method: "GET", url: "/api/v1/openapi.json" })).json<{
      info: { description: string };
      paths: Record<string, unknown>;
    }>();
    assert.match(full.info.description, /## Changes in/);
    assert.doesNotMatch(shown.info.description, /## /, "no sections before the operations");
    assert.ok(shown.info.description.startsWith(full.info.description.split("\n## ")[0]!.trim()));
    assert.match(shown.info.description, /\/api\/v1\/openapi\.json/);
    assert.deepEqual(Object.keys(shown.paths), Object.keys(full.paths), "every operation is shown");
  });

  test("the helpers drop only the directive, and keep a description without sections whole", () => {
    assert.equal(
      withoutUpgradeInsecureRequests("default-src 'self'; upgrade-insecure-requests; img-src data:;"),
      "default-src 'self'; img-src data:",
    );
    const doc = referenceDocument({ info: { title: "T", description: "Intro only." }, paths: {} });
    assert.match((doc.info as { description: string }).description, /^Intro only\.\n\n/);
  });

  test(
    "renders in Chromium over plain HTTP on a host name that is not localhost",
    { skip: browserSkip },
    async () => {
      const address = await t.app.listen({ host: "127.0.0.1", port: 0 });
      const port = new URL(address).port;
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        args: ["--host-resolver-rules=MAP guard.test 127.0.0.1"],
      });
      try {
        const page = await browser.newPage();
        const blocked: string[] = [];
        page.on("requestfailed", (request) => blocked.push(request.url()));
        await page.goto(`http://guard.test:${port}/docs/`);
        await page.waitForSelector(".opblock", { timeout: 30_000 });
        assert.equal(await page.title(), "Guard API reference");
        const logo = await page.getAttribute(".topbar img", "src");
        assert.match(logo ?? "", /^data:image\/svg\+xml/, "Guard's logo, not Swagger's");
        // Swagger UI renders only the operations near the viewport: scroll through the whole page,
        // collecting each operation as it is shown, and expect every one the document lists.
        const shown = new Set<string>();
        for (let top = 0; ;) {
          const ids = await page.locator(".opblock").evaluateAll((blocks) => blocks.map((b) => b.id));
          for (const id of ids) shown.add(id);
          const { height, viewport } = await page.evaluate(() => ({
            height: document.documentElement.scrollHeight,
            viewport: window.innerHeight,
          }));
          if (top + viewport >= height) break;
          top += viewport;
          await page.evaluate((y) => window.scrollTo(0, y), top);
          await page.waitForTimeout(150);
        }
        const served = (await t.request({ method: "GET", url: "/docs/json" })).json<{
          paths: Record<string, Record<string, { tags?: string[] }>>;
        }>();
        // One block per operation and tag: an operation under two tags is listed under each.
        const listed = Object.values(served.paths)
          .flatMap((operations) => Object.values(operations))
          .reduce((sum, operation) => sum + (operation.tags?.length ?? 0), 0);
        assert.ok(listed > 50, `the document lists ${listed} operations`);
        assert.equal(shown.size, listed, "every operation is listed on the page");
        await page.evaluate(() => window.scrollTo(0, 0));
        assert.equal((await page.locator(".info").innerText()).includes("Changes in"), false);
        assert.deepEqual(blocked, [], "nothing the page loads is blocked or upgraded");
      } finally {
        await browser.close();
      }
    },
  );
});
