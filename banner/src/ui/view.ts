// The banner's UI in a shadow root (BANNER-SPEC "UI"): the banner, the preference centre and the
// floating button, one of three states on the host's `data-state`. The selectors and attributes
// here are what the browser tests and fiduciaries' own scripts rely on; keep them as the spec says.
import { directionOf, nativeName } from "../languages.js";
import { uiTexts, type UiTexts } from "../texts.js";
import type { BannerNotice, BannerSettings, Choices } from "../types.js";
import { applyAppearance, placement } from "./appearance.js";
import { h, trapFocus } from "./dom.js";
import { contentFor, purposeList, ruleThreeTexts } from "./notice-text.js";
import { adoptStyles } from "./styles.js";

export type ViewState = "banner" | "preferences" | "hidden";

export interface ViewActions {
  acceptAll(): Promise<void>;
  rejectAll(): Promise<void>;
  save(choices: Choices): Promise<void>;
}

export interface ViewOptions {
  doc: Document;
  notice: BannerNotice;
  settings: BannerSettings;
  languages: string[];
  lang: string;
  /** `data-preferences-button` was not "false". */
  floatingButton: boolean;
  actions: ViewActions;
  /** The visitor's current choices (for the checkboxes), or undefined before any decision. */
  choices(): Choices | undefined;
  /** Whether the visitor has decided (the floating button appears only then). */
  decided(): boolean;
  /** Whether the banner must still ask (closing the preference centre then returns to it). */
  needsDecision(): boolean;
  /**
   * Where the host element goes; default `doc.body`. The dashboard's preview mounts it in a frame
   * whose `transform` makes the banner's fixed positioning relative to that frame, not the window.
   */
  mount?: HTMLElement;
}

export class BannerView {
  readonly host: HTMLElement;
  private readonly root: ShadowRoot;
  private readonly container: HTMLElement;
  private state: ViewState = "hidden";
  private lang: string;
  private texts: UiTexts;
  private busy = false;
  /** Where focus goes back to when the preference centre closes. */
  private opener: HTMLElement | null = null;
  /** The surface on screen (banner or preference centre), if any. */
  private surface: HTMLElement | undefined;

  constructor(private readonly options: ViewOptions) {
    const { doc } = options;
    this.lang = options.lang;
    this.texts = uiTexts(this.lang, options.settings);
    this.host = h(doc, "div", { id: "guard-consent", "data-state": "hidden" });
    this.root = this.host.attachShadow({ mode: "open" });
    adoptStyles(this.root);
    applyAppearance(this.host, options.settings);
    this.container = h(doc, "div", { class: "root" });
    this.root.append(this.container);
    (options.mount ?? doc.body).append(this.host);
  }

  /** Shows the banner; the first time, focus moves to its title so Tab reaches its buttons next. */
  showBanner(takeFocus: boolean): void {
    this.setState("banner");
    if (takeFocus) this.focusTitle();
  }

  openPreferences(): void {
    if (this.state === "preferences") return;
    const active = this.root.activeElement ?? this.options.doc.activeElement;
    this.opener = active instanceof HTMLElement && active !== this.options.doc.body ? active : null;
    this.setState("preferences");
    this.syncCheckboxes();
    this.focusTitle();
  }

  /** Back to the banner while a decision is still needed, else hidden; focus returns to the opener. */
  closePreferences(needsDecision: boolean): void {
    if (this.state !== "preferences") return;
    const opener = this.opener;
    this.opener = null;
    this.setState(needsDecision ? "banner" : "hidden");
    // The banner's own buttons are rebuilt with each state: find the opener's successor by action.
    const action = opener?.getAttribute("data-action");
    const target =
      opener && opener.isConnected
        ? opener
        : action
          ? this.container.querySelector<HTMLElement>(`[data-action="${action}"]`)
          : null;
    if (target) target.focus();
    else if (needsDecision) this.focusTitle();
  }

  /** After a decision: nothing on screen but the floating button (when enabled). */
  hide(): void {
    const hadFocus = this.root.activeElement !== null;
    this.setState("hidden");
    if (hadFocus) this.container.querySelector<HTMLElement>('[data-action="open-preferences"]')?.focus();
  }

  /**
   * Builds what `state` shows, and only that: a surface that is not on screen is not in the DOM,
   * so each selector of the DOM contract matches one element at a time.
   */
  private setState(state: ViewState): void {
    const { doc, settings } = this.options;
    const content = contentFor(this.options.notice, this.lang);
    this.state = state;
    this.host.setAttribute("data-state", state);
    this.container.setAttribute("lang", this.lang);
    this.container.setAttribute("dir", directionOf(this.lang));
    this.surface =
      state === "banner"
        ? this.renderBanner(content)
        : state === "preferences"
          ? this.renderPreferences(content)
          : undefined;
    const modal = state === "preferences" || (state === "banner" && placement(settings).layout === "modal");
    const nodes: Node[] = [];
    if (modal) nodes.push(h(doc, "div", { class: "backdrop" }));
    if (this.surface) nodes.push(this.surface);
    if (state === "hidden" && this.options.floatingButton && this.options.decided()) {
      const floating = h(
        doc,
        "button",
        { type: "button", class: "float", "data-action": "open-preferences" },
        this.texts.privacyChoices,
      );
      floating.addEventListener("click", () => this.openPreferences());
      nodes.push(floating);
    }
    this.container.replaceChildren(...nodes);
  }

  private focusTitle(): void {
    this.surface?.querySelector<HTMLElement>("h2")?.focus();
  }

  private showError(message: string): void {
    this.container.querySelectorAll(".error").forEach((el) => (el.textContent = message));
  }

  private button(action: string, label: string, secondary = false): HTMLButtonElement {
    const button = h(
      this.options.doc,
      "button",
      { type: "button", class: secondary ? "btn secondary" : "btn", "data-action": action },
      label,
    );
    return button;
  }

  /** Accept and reject: the same element, class and grid cell size, side by side. */
  private choicePair(): HTMLElement {
    const accept = this.button("accept-all", this.texts.acceptAll);
    const reject = this.button("reject-all", this.texts.rejectAll);
    accept.addEventListener("click", () => this.run(() => this.options.actions.acceptAll()));
    reject.addEventListener("click", () => this.run(() => this.options.actions.rejectAll()));
    return h(this.options.doc, "div", { class: "pair" }, accept, reject);
  }

  private languageSwitcher(): HTMLElement | undefined {
    const { doc, languages } = this.options;
    if (languages.length < 2) return undefined;
    const select = h(
      doc,
      "select",
      { "data-action": "language" },
      ...languages.map((code) =>
        h(doc, "option", { value: code, lang: code, selected: code === this.lang }, nativeName(code)),
      ),
    );
    select.addEventListener("change", () => this.setLanguage(select.value));
    return h(doc, "label", { class: "lang" }, this.texts.language, select);
  }

  private setLanguage(lang: string): void {
    if (lang === this.lang || !this.options.languages.includes(lang)) return;
    const checked = this.state === "preferences" ? this.readCheckboxes() : undefined;
    this.lang = lang;
    this.texts = uiTexts(lang, this.options.settings);
    this.setState(this.state);
    if (checked) this.syncCheckboxes(checked);
    // Keep the keyboard where it was: on the switcher.
    this.container.querySelector<HTMLElement>('select[data-action="language"]')?.focus();
  }

  private renderBanner(content: ReturnType<typeof contentFor>): HTMLElement {
    const { doc, notice, settings } = this.options;
    const place = placement(settings);
    const more = h(
      doc,
      "details",
      {},
      h(doc, "summary", {}, this.texts.more),
      ...purposeList(doc, notice, this.texts),
      ...ruleThreeTexts(doc, content, this.texts, settings),
    );
    const customize = this.button("customize", this.texts.preferences, true);
    customize.addEventListener("click", () => this.openPreferences());
    const banner = h(
      doc,
      "section",
      {
        "data-guard": "banner",
        class: ["surface", ...place.classes].join(" "),
        role: "dialog",
        "aria-labelledby": "guard-banner-title",
        "aria-describedby": "guard-banner-body",
        "aria-modal": place.layout === "modal" ? "true" : undefined,
      },
      h(
        doc,
        "div",
        { class: "inner" },
        h(
          doc,
          "div",
          { class: "head" },
          this.languageSwitcher(),
          h(doc, "h2", { id: "guard-banner-title", tabindex: "-1" }, this.texts.title ?? content.title),
        ),
        h(doc, "p", { id: "guard-banner-body" }, this.texts.description ?? content.body),
        h(doc, "div", { class: "actions" }, this.choicePair(), customize),
        h(doc, "p", { class: "error", role: "alert" }),
        more,
      ),
    );
    if (place.layout === "modal") trapFocus(banner, this.root);
    return banner;
  }

  private renderPreferences(content: ReturnType<typeof contentFor>): HTMLElement {
    const { doc, notice, settings } = this.options;
    const close = this.button("close", this.texts.close, true);
    close.addEventListener("click", () => this.closePreferences(this.options.needsDecision()));
    const save = this.button("save", this.texts.save, true);
    save.addEventListener("click", () => {
      const choices = this.readCheckboxes();
      this.run(() => this.options.actions.save(choices));
    });
    const purposes = notice.itemized.map((item, index) => {
      const id = `guard-purpose-${index}`;
      return h(
        doc,
        "div",
        { class: "purpose" },
        h(doc, "input", { type: "checkbox", id, "data-purpose": item.purpose }),
        h(
          doc,
          "label",
          { for: id },
          h(doc, "strong", {}, item.purpose),
          h(doc, "span", { class: "note" }, item.personalDataDescription),
          item.tracking === true && h(doc, "span", { class: "note" }, this.texts.tracking),
        ),
      );
    });
    const dialog = h(
      doc,
      "section",
      {
        "data-guard": "preferences",
        class: "surface center",
        role: "dialog",
        "aria-modal": "true",
        "aria-labelledby": "guard-prefs-title",
        "aria-describedby": "guard-prefs-body",
      },
      h(
        doc,
        "div",
        { class: "head" },
        h(doc, "h2", { id: "guard-prefs-title", tabindex: "-1" }, this.texts.title ?? content.title),
        this.languageSwitcher(),
        close,
      ),
      h(doc, "p", { id: "guard-prefs-body" }, this.texts.description ?? content.body),
      h(doc, "div", {}, ...purposes),
      h(doc, "div", { class: "actions" }, this.choicePair(), save),
      h(doc, "p", { class: "error", role: "alert" }),
      h(
        doc,
        "details",
        {},
        h(doc, "summary", {}, this.texts.more),
        ...ruleThreeTexts(doc, content, this.texts, settings),
      ),
    );
    dialog.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.preventDefault();
        this.closePreferences(this.options.needsDecision());
      }
    });
    trapFocus(dialog, this.root);
    return dialog;
  }

  private checkboxes(): HTMLInputElement[] {
    return Array.from(this.container.querySelectorAll<HTMLInputElement>("input[data-purpose]"));
  }

  private readCheckboxes(): Choices {
    const choices: Choices = {};
    for (const box of this.checkboxes()) choices[box.getAttribute("data-purpose") ?? ""] = box.checked;
    return choices;
  }

  /** Boxes show the current decision; before any decision every box is off (nothing pre-ticked). */
  private syncCheckboxes(choices = this.options.choices()): void {
    for (const box of this.checkboxes())
      box.checked = choices?.[box.getAttribute("data-purpose") ?? ""] === true;
  }

  /** Runs a decision; while it is in flight further clicks are ignored; a failure is announced. */
  private run(action: () => Promise<void>): void {
    if (this.busy) return;
    this.busy = true;
    const buttons = Array.from(this.container.querySelectorAll("button"));
    buttons.forEach((button) => button.setAttribute("aria-disabled", "true"));
    action()
      .then(
        () => this.showError(""),
        () => this.showError(this.texts.error),
      )
      .finally(() => {
        this.busy = false;
        buttons.forEach((button) => button.removeAttribute("aria-disabled"));
      });
  }
}
