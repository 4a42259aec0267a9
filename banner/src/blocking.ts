// Tag blocking (BANNER-SPEC "Tag blocking"). The page marks a script `type="text/plain"` (so the
// browser never runs it) or an iframe with `data-src` (so it never loads), plus
// `data-guard-purpose`. The banner releases each tag once every purpose it names is consented,
// in document order, and watches for tags added later.
import type { Choices } from "./types.js";

export const PURPOSE_ATTRIBUTE = "data-guard-purpose";
export const RELEASED_ATTRIBUTE = "data-guard-released";
const SELECTOR = `script[${PURPOSE_ATTRIBUTE}], iframe[${PURPOSE_ATTRIBUTE}]`;

/** The purposes a tag names (space-separated); all are required. */
export const tagPurposes = (attribute: string | null): string[] =>
  (attribute ?? "").split(/\s+/).filter((purpose) => purpose !== "");

/**
 * Whether a tag naming `attribute` may run. Purpose names match case-insensitively (the page's
 * markup and the notice are written by different people); a tag naming no purpose, or one the
 * choices do not know, stays blocked: the visitor was never asked about it.
 */
export function tagAllowed(attribute: string | null, choices: Choices): boolean {
  const purposes = tagPurposes(attribute);
  if (purposes.length === 0) return false;
  const granted = new Set(
    Object.keys(choices)
      .filter((purpose) => choices[purpose] === true)
      .map((purpose) => purpose.toLowerCase()),
  );
  return purposes.every((purpose) => granted.has(purpose.toLowerCase()));
}

/** A script still held back: the page's `type="text/plain"` form, not yet released. */
const isBlockedScript = (el: Element): el is HTMLScriptElement =>
  el instanceof HTMLScriptElement &&
  (el.getAttribute("type") ?? "").toLowerCase() === "text/plain" &&
  !el.hasAttribute(RELEASED_ATTRIBUTE);

/** Releases and re-blocks tagged scripts and iframes as the choices change. */
export class TagBlocker {
  private choices: Choices = {};
  private observer: MutationObserver | undefined;
  /** Scripts run one after another, so each sees what the ones before it in the page defined. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly doc: Document) {}

  /** Applies `choices` to every tagged element now in the document, and to those added later. */
  apply(choices: Choices): void {
    this.choices = { ...choices };
    this.doc.querySelectorAll(SELECTOR).forEach((el) => this.handle(el));
  }

  /** Starts watching for tags the page adds after the banner ran (parser or script inserted). */
  watch(): void {
    if (this.observer || typeof MutationObserver !== "function") return;
    this.observer = new MutationObserver((records) => {
      for (const record of records) {
        record.addedNodes.forEach((node) => {
          if (!(node instanceof Element)) return;
          if (node.matches(SELECTOR)) this.handle(node);
          node.querySelectorAll(SELECTOR).forEach((el) => this.handle(el));
        });
      }
    });
    this.observer.observe(this.doc.documentElement, { childList: true, subtree: true });
  }

  /**
   * Resolves once an inline script's text is complete. The parser may insert a script element
   * before all of its text has arrived, so one seen while the document is still loading waits for
   * the parsed document; an external script's `src` comes with its start tag.
   */
  private parsed(el: HTMLScriptElement): Promise<void> {
    if (el.hasAttribute("src") || this.doc.readyState !== "loading") return Promise.resolve();
    return new Promise((resolve) =>
      this.doc.addEventListener("DOMContentLoaded", () => resolve(), { once: true }),
    );
  }

  private handle(el: Element): void {
    const allowed = tagAllowed(el.getAttribute(PURPOSE_ATTRIBUTE), this.choices);
    if (el instanceof HTMLIFrameElement) {
      const source = el.getAttribute("data-src");
      if (!source) return;
      if (allowed && !el.hasAttribute(RELEASED_ATTRIBUTE)) {
        el.setAttribute(RELEASED_ATTRIBUTE, "");
        el.src = source;
      } else if (!allowed && el.hasAttribute(RELEASED_ATTRIBUTE)) {
        // Withdrawal: unload the frame (a script that ran cannot be unrun; the event tells the page).
        el.removeAttribute(RELEASED_ATTRIBUTE);
        el.src = "about:blank";
      }
    } else if (allowed && isBlockedScript(el)) {
      // Marked at once, so a rescan or the observer does not queue it twice.
      el.setAttribute(RELEASED_ATTRIBUTE, "");
      this.queue = this.queue.then(() => this.parsed(el)).then(() => releaseScript(el));
    }
  }
}

/**
 * Runs a held-back script by replacing it with a live copy: every attribute but `type`
 * (`data-guard-type` becomes the type, e.g. `module`), its source or text, and its nonce. The nonce
 * is copied as a property because browsers hide the attribute's value, and without it an inline
 * tag is refused under a nonce-based CSP. Resolves when the next tag may run: at once for inline
 * and `async` scripts, after load (or failure) for an external one, as the parser would have done.
 */
function releaseScript(original: HTMLScriptElement): Promise<void> {
  const doc = original.ownerDocument;
  const script = doc.createElement("script");
  for (const { name, value } of Array.from(original.attributes)) {
    if (name !== "type" && name !== "nonce" && name !== "data-guard-type") script.setAttribute(name, value);
  }
  const type = original.getAttribute("data-guard-type");
  if (type) script.type = type;
  if (original.nonce) script.nonce = original.nonce;
  const external = original.hasAttribute("src");
  if (!external) script.text = original.text;
  const done = new Promise<void>((resolve) => {
    if (!external || original.hasAttribute("async")) return resolve();
    script.async = false;
    script.addEventListener("load", () => resolve());
    script.addEventListener("error", () => resolve());
  });
  if (original.isConnected) original.replaceWith(script);
  return done;
}
