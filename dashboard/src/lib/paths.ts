// Pure path helpers of the router (router.tsx), kept free of the DOM so unit tests run them in Node.

/** Where Guard serves the dashboard (server/src/web/dashboard.ts; vite.config.ts `base`). */
export const BASE = "/dashboard";

/** The app path ("/rights/dsr?x=1") of a browser pathname and search under BASE. */
export function appPath(pathname: string, search: string): string {
  const inApp = pathname === BASE || pathname.startsWith(`${BASE}/`) ? pathname.slice(BASE.length) : pathname;
  return (inApp === "" ? "/" : inApp) + search;
}

/** [path, query string without "?"] */
export function splitPath(full: string): [string, string] {
  const at = full.indexOf("?");
  return at === -1 ? [full, ""] : [full.slice(0, at), full.slice(at + 1)];
}

/**
 * The params of `pattern` ("/rights/dsr/:requestId") if `path` matches it, else null. Segments are
 * compared decoded; a trailing slash is ignored.
 */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    let h: string;
    try {
      h = decodeURIComponent(have[i]!);
    } catch {
      return null;
    }
    if (w.startsWith(":")) params[w.slice(1)] = h;
    else if (w !== h) return null;
  }
  return params;
}

/** An app path with a query string built from `query` (empty and undefined values left out). */
export function withQuery(
  path: string,
  query: Record<string, string | number | boolean | undefined | null>,
): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(key, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

export const SIGN_IN_PATH = "/sign-in";

/** Only a same-app path may be a `next`: never another origin (`//evil`, `https://`). */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

export function signInPathFor(next: string): string {
  return next === "/" || next.startsWith(SIGN_IN_PATH)
    ? SIGN_IN_PATH
    : `${SIGN_IN_PATH}?next=${encodeURIComponent(next)}`;
}
