// The banner's entry point: read the install line, start the controller, publish window.Guard.
// Runs once per page; a second copy of the script (pasted twice) does nothing.
import { createApi } from "./api.js";
import { Controller, warnOnce } from "./controller.js";
import { parseScriptOptions } from "./script-tag.js";

declare global {
  interface Window {
    Guard?: unknown;
  }
}

function boot(win: Window): void {
  performance.mark("guard:script-start");
  if (win.Guard !== undefined) return;
  const doc = win.document;
  // `currentScript` is set while a classic script (async included) first runs; the fallback finds
  // the install line when another loader injected it.
  const current = doc.currentScript;
  const script =
    current instanceof HTMLScriptElement
      ? current
      : doc.querySelector<HTMLScriptElement>('script[data-org][src*="/banner/v1/"]');
  const parsed = parseScriptOptions(script?.src || undefined, (name) => script?.getAttribute(name) ?? null);
  if (!parsed.ok) {
    warnOnce(`Guard: ${parsed.problem} — no banner shown`);
    return;
  }
  const controller = new Controller(win, parsed.options);
  Object.defineProperty(win, "Guard", { value: createApi(controller), enumerable: true });
}

try {
  boot(window);
} catch (error) {
  // The banner must never break the page it runs on.
  warnOnce(`Guard: the banner failed to start (${String(error)}) — no banner shown`);
}
