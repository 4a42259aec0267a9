// One banner on one page: holds the visitor's decision and applies it everywhere it matters
// (Consent Mode, tagged tags, the `guard:consent` event, storage), loads the configuration and
// drives the UI. main.ts creates it; api.ts exposes it as `window.Guard`.
import { GuardApiError, GuardClient } from "../../sdks/js/src/index.js";
import { TagBlocker } from "./blocking.js";
import { loadConfig, noticeLanguages, type LoadedConfig } from "./config.js";
import { CONSENT_DEFAULTS, consentModeUpdate, makeGtag } from "./consent-mode.js";
import { consentDetail, dispatchConsent } from "./events.js";
import { pickLanguage } from "./languages.js";
import { allPurposes, recordDecision } from "./recording.js";
import type { ScriptOptions } from "./script-tag.js";
import { DecisionStore, mintAnonymousId, needsDecision } from "./storage.js";
import type { Choices, ConsentEventDetail, StoredDecision } from "./types.js";
import { BannerView } from "./ui/view.js";

export class Controller {
  decision: StoredDecision | null = null;
  anonymousId: string;
  config: LoadedConfig | undefined;
  readonly ready: Promise<{ shown: boolean }>;
  private view: BannerView | undefined;
  private readonly store: DecisionStore;
  private readonly gtag: (...args: unknown[]) => void;
  private readonly blocker: TagBlocker;
  private readonly client: GuardClient;

  constructor(
    private readonly win: Window,
    private readonly options: ScriptOptions,
  ) {
    const doc = win.document;
    this.store = new DecisionStore(win, options.org);
    this.client = new GuardClient({ baseUrl: options.baseUrl });
    // Consent Mode defaults go out before anything else, so a tag manager on the page starts denied.
    this.gtag = makeGtag(win as unknown as { dataLayer?: unknown[] });
    this.gtag("consent", "default", { ...CONSENT_DEFAULTS });
    // A returning visitor's decision applies at once, without waiting for the network.
    const orgId = this.store.knownOrgId();
    this.decision = orgId === undefined ? null : this.store.load(orgId);
    this.anonymousId = this.decision?.anonymousId ?? this.store.knownAnonymousId(orgId) ?? mintAnonymousId();
    this.blocker = new TagBlocker(doc);
    this.blocker.watch();
    if (this.decision) this.apply(this.decision, "stored");
    // `Guard.ready` never rejects: a page awaiting it must not break because the banner did.
    this.ready = this.load().catch((error: unknown) => {
      warnOnce(`Guard: the banner failed to start (${String(error)}) — no banner shown`);
      return { shown: false };
    });
  }

  private async load(): Promise<{ shown: boolean }> {
    const { win, options } = this;
    const host = win.location.hostname;
    try {
      this.config = await loadConfig(this.client, options.org, options.noticeId, host);
    } catch (error) {
      warnOnce(failureMessage(error, host, options));
      return { shown: false };
    }
    if (!this.config) {
      warnOnce(`Guard: organisation "${options.org}" has no published notice to show — no banner shown`);
      return { shown: false };
    }
    const { organizationId, notice, settings } = this.config;
    // The slug may now name another organisation than the one remembered: read its own decision.
    if (this.decision && this.store.knownOrgId() !== organizationId) {
      this.decision = this.store.load(organizationId);
      if (this.decision) this.anonymousId = this.decision.anonymousId;
    }
    performance.mark("guard:config-ready");
    // An async script in <head> can get here before the parser has reached <body>.
    if (!win.document.body) {
      await new Promise((resolve) =>
        win.document.addEventListener("DOMContentLoaded", resolve, { once: true }),
      );
    }
    const languages = noticeLanguages(notice);
    this.view = new BannerView({
      doc: win.document,
      notice,
      settings,
      languages,
      lang: pickLanguage({
        available: languages,
        forced: options.lang,
        browser: win.navigator.languages,
        defaultLanguage: settings.defaultLanguage,
      }),
      floatingButton: options.preferencesButton,
      actions: {
        acceptAll: () => this.acceptAll(),
        rejectAll: () => this.rejectAll(),
        save: (choices) => this.decide(choices),
      },
      choices: () => this.decision?.purposes,
      decided: () => this.decision !== null,
      needsDecision: () => needsDecision(this.decision, notice),
    });
    const shown = needsDecision(this.decision, notice);
    if (shown) {
      this.view.showBanner(true);
      // Visible = in the DOM and painted: the frame after the one that laid it out.
      requestAnimationFrame(() => performance.mark("guard:banner-visible"));
    } else {
      this.view.hide();
    }
    return { shown };
  }

  private apply(decision: StoredDecision, reason: ConsentEventDetail["reason"]): void {
    const update = consentModeUpdate(decision.purposes, this.options.consentMode);
    this.gtag("consent", "update", { ...update });
    this.blocker.apply(decision.purposes);
    const doc = this.win.document;
    const detail = consentDetail(decision, update, reason);
    // An async script can run before the page's own (deferred) scripts have added their listener:
    // the load-time event waits for the parsed document, the tags and Consent Mode above do not.
    if (reason === "stored" && doc.readyState === "loading") {
      doc.addEventListener("DOMContentLoaded", () => dispatchConsent(doc, detail), { once: true });
    } else {
      dispatchConsent(doc, detail);
    }
  }

  private async loaded(): Promise<LoadedConfig> {
    await this.ready;
    if (!this.config) throw new Error("Guard: the banner has no configuration for this page");
    return this.config;
  }

  async decide(choices: Choices): Promise<void> {
    const config = await this.loaded();
    const decision = await recordDecision({
      client: this.client,
      organizationId: config.organizationId,
      notice: config.notice,
      anonymousId: this.anonymousId,
      stored: this.decision,
      choices: { ...allPurposes(config.notice, false), ...pickKnown(choices, config) },
      now: Date.now(),
    });
    this.decision = decision;
    this.store.save(config.organizationId, decision);
    this.apply(decision, "choice");
    this.view?.hide();
  }

  async acceptAll(): Promise<void> {
    return this.decide(allPurposes((await this.loaded()).notice, true));
  }

  async rejectAll(): Promise<void> {
    return this.decide(allPurposes((await this.loaded()).notice, false));
  }

  /** `Guard.setConsent`: the given purposes change, the others keep their current choice. */
  async setConsent(changes: Choices): Promise<void> {
    const config = await this.loaded();
    return this.decide({
      ...(this.decision?.noticeId === config.notice._id ? this.decision.purposes : {}),
      ...changes,
    });
  }

  openPreferences(): void {
    this.view?.openPreferences();
  }

  closePreferences(): void {
    if (this.config) this.view?.closePreferences(needsDecision(this.decision, this.config.notice));
  }
}

/** Only the notice's purposes, only booleans: anything else in a page's call is ignored. */
function pickKnown(choices: Choices, config: LoadedConfig): Choices {
  const known: Choices = {};
  for (const { purpose } of config.notice.itemized) {
    if (typeof choices[purpose] === "boolean") known[purpose] = choices[purpose]!;
  }
  return known;
}

let warned = false;

/** The one console line a misconfigured page gets (BANNER-SPEC "Loading sequence" 3). */
export function warnOnce(message: string): void {
  if (warned) return;
  warned = true;
  console.warn(message);
}

export function failureMessage(error: unknown, host: string, options: ScriptOptions): string {
  if (error instanceof GuardApiError && error.status === 404) {
    return `Guard: ${host} is not a registered domain of organisation "${options.org}" (or there is no such organisation) — no banner shown`;
  }
  if (error instanceof GuardApiError) {
    return `Guard: the banner configuration could not be loaded (${error.status} ${error.code}) — no banner shown`;
  }
  // Without a CORS grant the browser hides the answer: it looks like an unreachable server.
  return `Guard: ${host} is not a registered domain of organisation "${options.org}", or Guard at ${options.baseUrl} cannot be reached — no banner shown`;
}
