// The banner's stylesheet, adopted by its shadow root as a constructable stylesheet: a host page
// whose CSP has no 'unsafe-inline' blocks <style> elements and style attributes, not CSSOM.
// Default colours meet WCAG AA (4.5:1 for text) in both themes; a fiduciary's colours arrive as
// custom properties on the host (settings.ts), which win over these defaults.

const DARK = `--guard-bg:#111827;--guard-text:#f9fafb;--guard-primary:#93c5fd;--guard-primary-text:#111827;--guard-secondary:#111827;--guard-secondary-text:#93c5fd;--guard-link:#93c5fd;--guard-border:#9ca3af;--guard-error:#fca5a5`;

export const CSS = `
:host{all:initial;--guard-bg:#fff;--guard-text:#1f2937;--guard-primary:#1d4ed8;--guard-primary-text:#fff;--guard-secondary:#fff;--guard-secondary-text:#1d4ed8;--guard-link:#1d4ed8;--guard-border:#6b7280;--guard-error:#b91c1c;--guard-font:system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans",sans-serif;--guard-radius:8px}
:host([data-theme=dark]){${DARK}}
@media (prefers-color-scheme:dark){:host([data-theme=auto]){${DARK}}}
*{box-sizing:border-box}
[hidden]{display:none!important}
.root{font-family:var(--guard-font);font-size:15px;line-height:1.5;color:var(--guard-text)}
.surface{position:fixed;z-index:2147483001;background:var(--guard-bg);color:var(--guard-text);border:1px solid var(--guard-border);border-radius:var(--guard-radius);box-shadow:0 4px 24px rgba(0,0,0,.25);padding:16px 20px;max-height:calc(100vh - 16px);overflow:auto;overscroll-behavior:contain}
.bar{left:0;right:0;border-radius:0;max-height:70vh}
.bar.bottom{bottom:0;border-width:1px 0 0}
.bar.top{top:0;border-width:0 0 1px}
.box{width:min(440px,calc(100vw - 16px));bottom:8px;right:8px}
.box.bottom-left{right:auto;left:8px}
.box.top{bottom:auto;top:8px}
.center{top:50%;left:50%;right:auto;bottom:auto;transform:translate(-50%,-50%);width:min(600px,calc(100vw - 16px))}
.backdrop{position:fixed;inset:0;z-index:2147483000;background:rgba(0,0,0,.5)}
.inner{max-width:1100px;margin:0 auto}
.head{display:flex;flex-wrap:wrap;align-items:center;justify-content:space-between;gap:8px;margin-bottom:8px}
h2{font-size:1.15em;line-height:1.3;margin:0;flex:1 1 200px}
h2:focus,h2:focus-visible{outline:none}
h3{font-size:1em;margin:12px 0 4px}
p{margin:0 0 8px;white-space:pre-line;overflow-wrap:anywhere}
a{color:var(--guard-link)}
ul{margin:0 0 8px;padding-inline-start:20px}
details{margin:8px 0}
summary{cursor:pointer;color:var(--guard-link);text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin-top:12px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:8px;flex:2 1 280px}
.btn{font:inherit;font-weight:600;line-height:1.3;min-height:44px;padding:8px 16px;border-radius:var(--guard-radius);border:2px solid var(--guard-primary);background:var(--guard-primary);color:var(--guard-primary-text);cursor:pointer;margin:0}
.btn.secondary{background:var(--guard-secondary);color:var(--guard-secondary-text);flex:1 1 160px}
.btn[aria-disabled=true]{cursor:progress;opacity:.8}
:focus-visible{outline:3px solid var(--guard-link);outline-offset:2px}
.btn:focus-visible{outline-color:var(--guard-text)}
select{font:inherit;color:var(--guard-text);background:var(--guard-bg);border:1px solid var(--guard-border);border-radius:4px;padding:4px 8px;min-height:36px}
.lang{display:flex;align-items:center;gap:6px;font-size:.9em}
.error{color:var(--guard-error);font-weight:600;margin:8px 0 0}
.error:empty{display:none}
.purpose{display:flex;gap:10px;align-items:flex-start;padding:10px 0;border-top:1px solid var(--guard-border)}
.purpose input{flex:none;width:20px;height:20px;margin:2px 0 0;accent-color:var(--guard-primary)}
.purpose label{cursor:pointer}
.purpose strong{display:block}
.note{display:block;font-size:.9em}
.float{position:fixed;z-index:2147483000;bottom:12px;left:12px;font:inherit;font-size:14px;font-weight:600;min-height:44px;padding:8px 14px;border-radius:999px;border:2px solid var(--guard-primary);background:var(--guard-secondary);color:var(--guard-secondary-text);box-shadow:0 2px 10px rgba(0,0,0,.25);cursor:pointer}
@media (prefers-reduced-motion:no-preference){.btn,.float{transition:filter .15s}.btn:hover,.float:hover{filter:brightness(1.1)}}
`;

/** Adopts the stylesheet; browsers without constructable stylesheets get a <style> (CSP may refuse it). */
export function adoptStyles(root: ShadowRoot): void {
  const doc = root.ownerDocument;
  if (
    "adoptedStyleSheets" in root &&
    typeof CSSStyleSheet === "function" &&
    "replaceSync" in CSSStyleSheet.prototype
  ) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(CSS);
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = doc.createElement("style");
    style.textContent = CSS;
    root.append(style);
  }
}
