// One visitor's browser: a fresh context (its own storage), the page, and what the page said on the
// console. The selectors are BANNER-SPEC.md's DOM contract; Playwright's CSS locators pierce the
// banner's open shadow root.
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core";

export const SEL = {
  host: "#guard-consent",
  banner: '[data-guard="banner"]',
  preferences: '[data-guard="preferences"]',
  acceptAll: '[data-guard="banner"] button[data-action="accept-all"]',
  rejectAll: '[data-guard="banner"] button[data-action="reject-all"]',
  customize: '[data-guard="banner"] button[data-action="customize"]',
  floating: 'button[data-action="open-preferences"]',
  language: '[data-guard="banner"] select[data-action="language"]',
  toggle: (purpose: string) => `[data-guard="preferences"] input[type="checkbox"][data-purpose="${purpose}"]`,
  inPreferences: (action: string) => `[data-guard="preferences"] button[data-action="${action}"]`,
} as const;

export interface ConsoleEntry {
  type: string;
  text: string;
}

export interface Visitor {
  context: BrowserContext;
  page: Page;
  console: ConsoleEntry[];
  pageErrors: string[];
  close(): Promise<void>;
}

export async function newVisitor(browser: Browser, options: BrowserContextOptions = {}): Promise<Visitor> {
  const context = await browser.newContext({ locale: "en-US", ...options });
  const page = await context.newPage();
  const entries: ConsoleEntry[] = [];
  const pageErrors: string[] = [];
  page.on("console", (message) => entries.push({ type: message.type(), text: message.text() }));
  page.on("pageerror", (error) => pageErrors.push(String(error)));
  return { context, page, console: entries, pageErrors, close: () => context.close() };
}

/** Loads `url` and waits for `Guard.ready`; returns what it resolved to. */
export async function load(page: Page, url: string): Promise<{ shown: boolean }> {
  await page.goto(url);
  return ready(page);
}

export async function ready(page: Page): Promise<{ shown: boolean }> {
  await page.waitForFunction(() => "Guard" in window, undefined, { timeout: 10_000 });
  return page.evaluate(
    () => (window as unknown as { Guard: { ready: Promise<{ shown: boolean }> } }).Guard.ready,
  );
}

export interface PageState {
  analyticsRuns: number;
  violations: { directive: string; blocked: string; sample: string }[];
  events: GuardConsentDetail[];
  /** `window.dataLayer`, each `arguments` entry as an array. */
  dataLayer: unknown[];
  stored: StoredDecision | null;
  hostState: string | null;
}

export interface GuardConsentDetail {
  purposes: Record<string, boolean>;
  granted: string[];
  denied: string[];
  noticeId: string;
  noticeVersion: number;
  anonymousId: string;
  reason: "stored" | "choice";
}

export interface StoredDecision {
  v: number;
  anonymousId: string;
  noticeId: string;
  noticeVersion: number;
  purposes: Record<string, boolean>;
  consentIds: Record<string, string>;
  decidedAt: number;
}

export function state(page: Page): Promise<PageState> {
  return page.evaluate(() => {
    const w = window as unknown as {
      __analyticsRuns?: number;
      __guardTest?: { violations: PageState["violations"]; events: GuardConsentDetail[] };
      dataLayer?: unknown[];
      Guard?: { getConsent(): StoredDecision | null };
    };
    const host = document.getElementById("guard-consent");
    const root = host?.shadowRoot?.firstElementChild ?? null;
    return {
      analyticsRuns: w.__analyticsRuns ?? 0,
      violations: w.__guardTest?.violations ?? [],
      events: w.__guardTest?.events ?? [],
      dataLayer: (w.dataLayer ?? []).map((entry) =>
        entry && typeof (entry as { length?: unknown }).length === "number"
          ? Array.from(entry as ArrayLike<unknown>)
          : entry,
      ),
      stored: w.Guard?.getConsent() ?? null,
      hostState: host?.getAttribute("data-state") ?? root?.getAttribute("data-state") ?? null,
    };
  });
}
