// The HTML of the principal-facing pages (a QR link, a POS receipt's link, a withdrawal): one small
// layout, readable on a cheap phone over a slow connection, with no JavaScript and no external
// resource (the CSP in headers.ts allows neither). Everything interpolated into it passes
// escapeHtml; callers build their own fragments with the same function.
import { createHash } from "node:crypto";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an HTML text node or a quoted attribute value. */
export function escapeHtml(text: string | number): string {
  return String(text).replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

/**
 * The one stylesheet, inline (no extra request) and allowed by its hash rather than
 * 'unsafe-inline'. Pages style themselves with these classes only.
 */
export const PAGE_STYLE = [
  "body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1a1a1a;background:#fff}",
  "main{max-width:40rem;margin:0 auto;padding:1rem}",
  "h1{font-size:1.35rem;line-height:1.3;margin:.5rem 0 1rem}",
  "h2{font-size:1.1rem;margin:1.25rem 0 .5rem}",
  ".text{white-space:pre-line;overflow-wrap:anywhere}",
  ".langs{font-size:.95rem;margin:0 0 1rem}",
  ".langs a{display:inline-block;margin:0 .75rem .25rem 0}",
  ".box{border:1px solid #bbb;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}",
  ".secret{font:1.1rem/1.4 monospace;word-break:break-all;background:#f3f3f3;padding:.5rem;user-select:all}",
  ".actions{display:flex;flex-wrap:wrap;gap:.75rem;margin:1.5rem 0}",
  "button{font:inherit;font-size:1.05rem;padding:.75rem 1.25rem;border-radius:6px;border:1px solid #444;background:#fff;color:#1a1a1a;min-width:9rem}",
  "button.primary{background:#0b5394;border-color:#0b5394;color:#fff}",
  "input[type=text]{font:inherit;width:100%;box-sizing:border-box;padding:.6rem;border:1px solid #444;border-radius:6px}",
  "label{display:block;margin:.75rem 0 .25rem;font-weight:600}",
  ".muted{color:#555;font-size:.9rem}",
].join("");

/** The CSP source that allows PAGE_STYLE and nothing else inline. */
export const PAGE_STYLE_HASH = `'sha256-${createHash("sha256").update(PAGE_STYLE).digest("base64")}'`;

export interface LayoutOptions {
  /** BCP 47 language of the page (a notice language code). */
  lang: string;
  /** Script direction of that language (Urdu, Kashmiri and Sindhi are right to left). */
  dir?: "ltr" | "rtl";
  /** The document title, plain text (escaped here). */
  title: string;
  /** The page's content, already-escaped HTML (placed inside <main>). */
  body: string;
}

/** A whole HTML document: lang and dir, viewport, the inline stylesheet, no script. */
export function renderLayout(options: LayoutOptions): string {
  return [
    "<!doctype html>",
    `<html lang="${escapeHtml(options.lang)}" dir="${options.dir ?? "ltr"}">`,
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<meta name="robots" content="noindex,nofollow">',
    `<title>${escapeHtml(options.title)}</title>`,
    `<style>${PAGE_STYLE}</style>`,
    "</head>",
    "<body><main>",
    options.body,
    "</main></body>",
    "</html>",
  ].join("\n");
}

/** A page that only says something (not found, expired, try later): a heading and a sentence. */
export function renderMessagePage(options: {
  lang: string;
  dir?: "ltr" | "rtl";
  title: string;
  message: string;
}): string {
  return renderLayout({
    lang: options.lang,
    dir: options.dir,
    title: options.title,
    body: `<h1>${escapeHtml(options.title)}</h1>\n<p class="text">${escapeHtml(options.message)}</p>`,
  });
}
