// Chromium (Debian's, through playwright-core; never a download), one fresh context per user, and
// the checks every dashboard page gets: axe-core (0 serious or critical violations) and a
// screenshot written for review (dashboard/test/browser/screenshots/, not committed).
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type Browser, type BrowserContextOptions, type Page } from "playwright-core";
import type { GuardUnderTest, Role } from "./guard.js";

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, "../../../..");
export const SCREENSHOTS = path.resolve(HERE, "../screenshots");
const AXE_SOURCE = fs.readFileSync(path.join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");

export const chromiumPath = process.env.GUARD_CHROMIUM || "/usr/bin/chromium";

/**
 * The `skip` option of the browser suites: a reason when Chromium is missing on a developer's
 * machine, but never on CI, where a missing browser must fail the run rather than pass it silently.
 */
export const browserSkip: string | false =
  fs.existsSync(chromiumPath) || process.env.CI
    ? false
    : `no Chromium at ${chromiumPath} (set GUARD_CHROMIUM)`;

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(chromiumPath))
    throw new Error(`no Chromium at ${chromiumPath}: install Debian's chromium or set GUARD_CHROMIUM`);
  return chromium.launch({ executablePath: chromiumPath });
}

export interface User {
  page: Page;
  /** Uncaught page errors and CSP violations: a test asserts there were none. */
  problems: string[];
  /**
   * Resolves once none of the page's API requests has been in flight for `quietMs`: for a step
   * that changes what those requests would answer (ending the session) and must not race them.
   */
  apiSettled(quietMs?: number): Promise<void>;
  close(): Promise<void>;
}

/** A fresh browser context (own cookies and storage) with one page; 1280×800 unless told. */
export async function newUser(browser: Browser, options: BrowserContextOptions = {}): Promise<User> {
  const context = await browser.newContext({
    locale: "en-IN",
    timezoneId: "Asia/Kolkata",
    viewport: { width: 1280, height: 800 },
    ...options,
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (error) => problems.push(`page error: ${String(error)}`));
  page.on("console", (message) => {
    // Chromium reports CSP violations on the console; the app logs nothing else as an error.
    if (
      message.type() === "error" &&
      !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())
    )
      problems.push(`console error: ${message.text()}`);
  });
  let inFlight = 0;
  const isApi = (url: string) => new URL(url).pathname.startsWith("/api/");
  page.on("request", (request) => void (isApi(request.url()) && inFlight++));
  page.on("requestfinished", (request) => void (isApi(request.url()) && inFlight--));
  page.on("requestfailed", (request) => void (isApi(request.url()) && inFlight--));
  const apiSettled = async (quietMs = 150) => {
    // The quiet period covers a request the page has sent but whose event has not arrived yet.
    let quietSince = Date.now();
    while (inFlight > 0 || Date.now() - quietSince < quietMs) {
      if (inFlight > 0) quietSince = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { page, problems, apiSettled, close: () => context.close() };
}

/** Signs in through the form as the seeded user of `role` (mouse); ends on the page it leads to. */
export async function signIn(page: Page, guard: GuardUnderTest, role: Role, appPath = "/"): Promise<void> {
  if (!page.url().includes("/dashboard/sign-in")) await page.goto(guard.url(appPath));
  await page.getByLabel("Organisation").fill(guard.seeded.org.slug);
  await page.getByLabel("Email").fill(guard.seeded.staff[role].email);
  await page.getByLabel("Password").fill(guard.seeded.staff[role].password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** Runs axe-core in the page; fails listing every serious or critical violation readably. */
export async function checkAccessibility(page: Page, label: string): Promise<void> {
  // Evaluated, not added as a <script>: the dashboard's CSP (rightly) blocks inline scripts.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> };
    };
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations;
  });
  const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  const report = bad
    .map(
      (v) =>
        `- [${v.impact}] ${v.id}: ${v.help} (${v.helpUrl})\n` +
        v.nodes
          .map(
            (n) =>
              `    at ${JSON.stringify(n.target)}${n.failureSummary ? `: ${n.failureSummary.replace(/\n/g, " ")}` : ""}`,
          )
          .join("\n"),
    )
    .join("\n");
  assert.equal(bad.length, 0, `axe-core found serious or critical violations on ${label}:\n${report}`);
}

/** Writes a full-page screenshot to dashboard/test/browser/screenshots/<name>.png for reviewers. */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  const file = path.join(SCREENSHOTS, `${name.replace(/[^a-z0-9-]+/gi, "-")}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}
