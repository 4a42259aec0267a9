// Building nodes. Notice text is data from the fiduciary: it only ever goes in through
// `textContent`, never as markup, so nothing in a notice can run in the page.

type Attributes = Record<string, string | boolean | undefined>;
type Child = Node | string | false | null | undefined;

/** `h("button", { "data-action": "save" }, "Save")`: an element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = doc.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) el.setAttribute(name, "");
    else if (typeof value === "string") el.setAttribute(name, value);
  }
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue;
    el.append(typeof child === "string" ? doc.createTextNode(child) : child);
  }
  return el;
}

const FOCUSABLE = "button, [href], input, select, textarea, summary, [tabindex]:not([tabindex='-1'])";

/**
 * Inside a closed <details> (other than its summary): Chromium keeps such content laid out (it is
 * only content-hidden), so a layout check alone would count it, but Tab skips it.
 */
function inClosedDetails(el: Element): boolean {
  const details = el.closest("details:not([open])");
  return details !== null && !(el.tagName === "SUMMARY" && el.parentElement === details);
}

/** The elements Tab visits inside `container`, in order (hidden and disabled ones excluded). */
export function focusables(container: Element): HTMLElement[] {
  return Array.from(container.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => !el.hasAttribute("disabled") && el.getClientRects().length > 0 && !inClosedDetails(el),
  );
}

/**
 * Keeps Tab and Shift+Tab inside a modal dialog. The active element is read from the shadow root:
 * from outside it, `document.activeElement` is only the host.
 */
export function trapFocus(dialog: HTMLElement, root: ShadowRoot): void {
  dialog.addEventListener("keydown", (event) => {
    if (event.key !== "Tab") return;
    const items = focusables(dialog);
    const first = items[0];
    const last = items[items.length - 1];
    if (!first || !last) return;
    const active = root.activeElement;
    if (event.shiftKey && (active === first || !dialog.contains(active))) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (active === last || !dialog.contains(active))) {
      event.preventDefault();
      first.focus();
    }
  });
}
