// bannerSettings → where the banner sits and how it looks. Colours, font and radius reach the
// shadow tree as custom properties set through CSSOM (`style.setProperty`), which a CSP without
// 'unsafe-inline' allows, unlike a style attribute written as markup.
import type { BannerSettings } from "../types.js";

export interface Placement {
  /** `bar`: full width; `box`: a corner card; `modal`: centred, blocks the page until a choice. */
  layout: "bar" | "box" | "modal";
  /** CSS classes of the banner surface. */
  classes: string[];
}

/** The banner's layout and position classes. Defaults: a bar at the bottom. */
export function placement(settings: BannerSettings): Placement {
  const layout = settings.layout ?? (settings.position === "center" ? "modal" : "bar");
  const position = settings.position ?? "bottom";
  if (layout === "modal") return { layout, classes: ["center"] };
  if (layout === "box") {
    if (position === "center") return { layout, classes: ["box", "center"] };
    return { layout, classes: ["box", position === "bottom" ? "bottom-right" : position] };
  }
  return { layout: "bar", classes: ["bar", position === "top" ? "top" : "bottom"] };
}

const COLOR_PROPERTIES: Record<string, string> = {
  background: "--guard-bg",
  text: "--guard-text",
  primary: "--guard-primary",
  primaryText: "--guard-primary-text",
  secondary: "--guard-secondary",
  secondaryText: "--guard-secondary-text",
  link: "--guard-link",
  border: "--guard-border",
};
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{4}|[0-9a-f]{6}|[0-9a-f]{8})$/i;
// The contract's own pattern for fontFamily; checked again so nothing else reaches CSS.
const FONT = /^[A-Za-z0-9 ,'"-]+$/;

/** The custom properties for the host element. */
export function customProperties(settings: BannerSettings): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(settings.colors ?? {})) {
    const property = COLOR_PROPERTIES[key];
    if (property && typeof value === "string" && HEX.test(value)) out[property] = value;
  }
  if (typeof settings.fontFamily === "string" && FONT.test(settings.fontFamily)) {
    out["--guard-font"] = settings.fontFamily;
  }
  const radius = settings.borderRadius;
  if (typeof radius === "number" && Number.isInteger(radius) && radius >= 0 && radius <= 64) {
    out["--guard-radius"] = `${radius}px`;
  }
  return out;
}

export function applyAppearance(host: HTMLElement, settings: BannerSettings): void {
  const theme = settings.theme === "dark" || settings.theme === "auto" ? settings.theme : "light";
  host.setAttribute("data-theme", theme);
  for (const [property, value] of Object.entries(customProperties(settings))) {
    host.style.setProperty(property, value);
  }
}
