// @guard/js in Chromium: a page on one loopback origin loads the SDK (bundled for browsers) and
// calls a stand-in Guard on another origin, so every request is a real cross-origin fetch with its
// CORS preflight. The stand-in grants the page's origin the way Guard's CORS does. It checks what a
// browser changes: fetch called on its global, custom headers behind a preflight, Web Crypto keys,
// retries after a 503, and GuardApiError fields read from a cross-origin answer.
// Needs Debian's Chromium (`apt-get install chromium`, or GUARD_CHROMIUM=<path>); skipped without it.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether any process of the group is left (an exited one not yet reaped counts, for at most a moment). */
function groupAlive(groupId: number): boolean {
  try {
    process.kill(-groupId, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Stops every process of a group: SIGTERM, then SIGKILL for what is left after 5 s, then waits (at
 * most 5 s more) until none is left. A killed process writes nothing more, so its files can go.
 */
async function stopProcessGroup(groupId: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-groupId, name);
    } catch {
      // the group is already gone
    }
  };
  const waitForGroup = async (ms: number) => {
    for (const deadline = Date.now() + ms; groupAlive(groupId) && Date.now() < deadline;) await sleep(50);
  };
  signal("SIGTERM");
  await waitForGroup(5_000);
  if (!groupAlive(groupId)) return;
  signal("SIGKILL");
  await waitForGroup(5_000);
}

const CHROMIUM = [process.env.GUARD_CHROMIUM, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (file): file is string => !!file && fs.existsSync(file),
);

const PAGE_SCRIPT = `
import { GuardClient, GuardApiError, hasConsent } from "/guard.js";
const out = {};
try {
  const guard = new GuardClient({ baseUrl: window.GUARD_BASE, sleep: (ms) => new Promise((r) => setTimeout(r, Math.min(ms, 50))) });
  out.org = await guard.getOrganization("acme");
  const consent = await guard.giveAnonymousConsent({
    organizationId: "org_0123456789", noticeId: "ntc_0123456789", purpose: "Analytics",
    dataTypes: ["device-id"], anonymousId: "anon-1",
  });
  out.consented = hasConsent([consent], "Analytics");
  guard.setAccessToken("tok_page");
  try {
    await guard.listDsrRequests({ limit: 5 });
  } catch (error) {
    out.error = error instanceof GuardApiError
      ? { name: error.name, status: error.status, code: error.code, requestId: error.requestId }
      : String(error);
  }
} catch (error) {
  out.unexpected = String(error && error.stack || error);
}
await fetch("/report", { method: "POST", body: JSON.stringify(out) });
`;

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
}

function listen(server: http.Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    );
  });
}

test(
  "runs in Chromium against a cross-origin Guard",
  // CI installs Chromium (.ci/run), so there a missing browser is a failure, not a skip.
  { skip: CHROMIUM || process.env.CI ? false : "no Chromium" },
  async () => {
    const entry = fileURLToPath(new URL("../src/index.ts", import.meta.url));
    const bundle = await build({
      entryPoints: [entry],
      bundle: true,
      format: "esm",
      platform: "browser",
      target: "es2022",
      write: false,
      logLevel: "silent",
    });

    // The stand-in Guard: grants exactly the page's origin, as the server's CORS does.
    const seen: Seen[] = [];
    let pageOrigin = "";
    let orgCalls = 0;
    const guard = http.createServer((req, res) => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers });
      if (req.headers.origin === pageOrigin) {
        res.setHeader("Access-Control-Allow-Origin", pageOrigin);
        res.setHeader("Vary", "Origin");
        res.setHeader("Access-Control-Expose-Headers", "X-Request-Id, Retry-After");
      }
      if (req.method === "OPTIONS") {
        res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, DELETE");
        res.setHeader(
          "Access-Control-Allow-Headers",
          "Authorization, Content-Type, Idempotency-Key, X-Guard-SDK, X-Guard-Retry-Count",
        );
        res.writeHead(204).end();
        return;
      }
      const json = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body));
      };
      if (req.url === "/api/v1/org/acme") {
        // The first attempt fails: the SDK must retry after its backoff.
        if (orgCalls++ === 0) return json(503, { code: "UNAVAILABLE", error: "warming up" });
        return json(200, { orgId: "org_0123456789", name: "Acme", slug: "acme" });
      }
      if (req.url === "/api/v1/consents/anonymous") {
        return json(201, { consentId: "cns_1", purpose: "Analytics", withdrawnAt: null });
      }
      if (req.url?.startsWith("/api/v1/dsr")) {
        return json(401, { code: "UNAUTHORIZED", error: "token expired" }, { "x-request-id": "req_browser" });
      }
      json(404, { code: "NOT_FOUND", error: "no route" });
    });
    const guardBase = await listen(guard);

    let report: (value: Record<string, unknown>) => void;
    const reported = new Promise<Record<string, unknown>>((resolve) => (report = resolve));
    const page = http.createServer((req, res) => {
      if (req.url === "/guard.js") {
        res.writeHead(200, { "content-type": "text/javascript" }).end(bundle.outputFiles[0]!.text);
      } else if (req.url === "/report") {
        let body = "";
        req.on("data", (chunk) => (body += chunk));
        req.on("end", () => {
          res.writeHead(204).end();
          report(JSON.parse(body) as Record<string, unknown>);
        });
      } else {
        res
          .writeHead(200, { "content-type": "text/html" })
          .end(
            `<!doctype html><script>window.GUARD_BASE = ${JSON.stringify(guardBase)};</script>` +
              `<script type="module">${PAGE_SCRIPT}</script>`,
          );
      }
    });
    pageOrigin = await listen(page);

    const profile = fs.mkdtempSync(path.join(os.tmpdir(), "guard-js-chromium-"));
    const browser = spawn(
      CHROMIUM!,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        `${pageOrigin}/`,
      ],
      // Its own process group, so its helpers (zygote, renderer, network service) can be stopped with it.
      { stdio: "ignore", detached: true },
    );
    try {
      const out = await Promise.race([
        reported,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error("no report from the page")), 30_000).unref(),
        ),
      ]);
      assert.deepEqual(out, {
        org: { orgId: "org_0123456789", name: "Acme", slug: "acme" },
        consented: true,
        error: { name: "GuardApiError", status: 401, code: "UNAUTHORIZED", requestId: "req_browser" },
      });
      const calls = seen.filter((r) => r.method !== "OPTIONS");
      assert.deepEqual(
        calls.map((r) => `${r.method} ${r.url} ${r.headers["x-guard-retry-count"]}`),
        [
          "GET /api/v1/org/acme 0",
          "GET /api/v1/org/acme 1",
          "POST /api/v1/consents/anonymous 0",
          "GET /api/v1/dsr?limit=5 0",
        ],
      );
      assert.ok(
        seen.some((r) => r.method === "OPTIONS"),
        "the browser sent a CORS preflight",
      );
      for (const r of calls) assert.match(String(r.headers["x-guard-sdk"]), /^@guard\/js\//);
      assert.match(String(calls[2]!.headers["idempotency-key"]), /^[0-9a-f-]{36}$/);
      assert.equal(calls[3]!.headers.authorization, "Bearer tok_page");
    } finally {
      // Chromium and its helpers write the profile until they have exited: stop the whole group
      // (SIGKILL after 5 s) before removing it.
      if (browser.pid !== undefined) await stopProcessGroup(browser.pid);
      guard.close();
      page.close();
      fs.rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    }
  },
);
