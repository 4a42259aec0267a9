// A small router over the history API: the app lives under BASE (/dashboard, where Guard serves it);
// app paths ("/rights/dsr/abc?status=open") never include BASE. Routes are patterns with `:params`
// (see routes.tsx); `navigate()` changes the page, `<Link>` is an accessible <a> that does too.
import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from "react";
import { BASE, appPath, splitPath, withQuery } from "./lib/paths.js";

export { BASE, matchPath, withQuery } from "./lib/paths.js";

const CHANGE = "guard:navigate";

/** The current app path with its query string, e.g. "/rights/dsr?status=open". */
export function currentPath(): string {
  return appPath(window.location.pathname, window.location.search);
}

/** The browser URL for an app path. */
export function href(to: string): string {
  return to === "/" ? `${BASE}/` : `${BASE}${to}`;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentPath()) return;
  if (options.replace) window.history.replaceState(null, "", href(to));
  else window.history.pushState(null, "", href(to));
  window.dispatchEvent(new Event(CHANGE));
}

function subscribe(onChange: () => void): () => void {
  window.addEventListener("popstate", onChange);
  window.addEventListener(CHANGE, onChange);
  return () => {
    window.removeEventListener("popstate", onChange);
    window.removeEventListener(CHANGE, onChange);
  };
}

/** The current app path and query string; re-renders on every navigation. */
export function useLocation(): { path: string; query: URLSearchParams; full: string } {
  const full = useSyncExternalStore(subscribe, currentPath);
  const [path = "/", search = ""] = splitPath(full);
  return { path, query: new URLSearchParams(search), full };
}

/** Changes some query parameters of the current page (filters), keeping the others. */
export function setQuery(
  updates: Record<string, string | number | boolean | undefined | null>,
  options: { replace?: boolean } = { replace: true },
): void {
  const [path, search] = splitPath(currentPath());
  const merged: Record<string, string | number | boolean | undefined | null> = Object.fromEntries(
    new URLSearchParams(search),
  );
  navigate(withQuery(path, { ...merged, ...updates }), options);
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: string };

/** An in-app link: a real <a href> (open in new tab, copy link work) that navigates without reload. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey ||
      rest.target
    )
      return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={handle} {...rest} />;
}
