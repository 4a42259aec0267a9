// The fiduciary's web page, served from another loopback origin than Guard: the one-line banner
// snippet, a script tagged with a purpose, and a strict Content Security Policy (no inline script or
// style, scripts only from itself and Guard, connections only to Guard). `site.js` (an external
// script, so the CSP allows it) records CSP violations and `guard:consent` events in
// `window.__guardTest` before the banner runs; `analytics.js` stands for a third-party tag.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface PageOptions {
  /** Extra attributes on the snippet's script element, e.g. `{ "data-preferences-button": "false" }`. */
  snippet?: Record<string, string>;
  /** Serve without the CSP header (the bench does, to time the banner alone). */
  csp?: boolean;
}

export interface Site {
  port: number;
  /** `http://127.0.0.1:<port>/`: a host registered for the test organisation. */
  url: string;
  /** `http://localhost:<port>/`: the same page on a host nobody registered. */
  unregisteredUrl: string;
  /** Requests received per path (without query). */
  hits(path: string): number;
  /** The page's URL with options (registered host unless `host` says otherwise). */
  page(options?: PageOptions & { host?: string }): string;
  close(): Promise<void>;
}

const SITE_JS = `window.__guardTest = { violations: [], events: [] };
document.addEventListener("securitypolicyviolation", function (e) {
  window.__guardTest.violations.push({ directive: e.violatedDirective, blocked: e.blockedURI, sample: e.sample });
});
document.addEventListener("guard:consent", function (e) {
  window.__guardTest.events.push(JSON.parse(JSON.stringify(e.detail)));
});
`;

const ANALYTICS_JS = `window.__analyticsRuns = (window.__analyticsRuns || 0) + 1;
document.documentElement.setAttribute("data-analytics", "ran");
`;

const escapeAttribute = (value: string) =>
  value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

function pageHtml(guardOrigin: string, slug: string, snippet: Record<string, string>): string {
  const attributes = Object.entries({ "data-org": slug, ...snippet })
    .map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`)
    .join("");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test Shop</title>
<link rel="stylesheet" href="/site.css">
<script src="/site.js"></script>
<script src="${guardOrigin}/banner/v1/guard.js"${attributes} async></script>
</head>
<body>
<main>
<h1>Test Shop</h1>
<p>A page of the fiduciary's site.</p>
</main>
<script type="text/plain" data-guard-purpose="Analytics" src="/analytics.js"></script>
</body>
</html>
`;
}

/** Serves the test page for the organisation `slug`, loading the banner from `guardOrigin`. */
export async function startSite(guardOrigin: string, slug: string): Promise<Site> {
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site.invalid");
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    const send = (type: string, body: string, headers: Record<string, string> = {}) =>
      res.writeHead(200, { "content-type": type, "cache-control": "no-store", ...headers }).end(body);
    switch (url.pathname) {
      case "/": {
        const snippet = JSON.parse(url.searchParams.get("snippet") ?? "{}") as Record<string, string>;
        const csp = url.searchParams.get("csp") !== "false";
        send(
          "text/html; charset=utf-8",
          pageHtml(guardOrigin, slug, snippet),
          csp
            ? {
                "content-security-policy": `default-src 'self'; script-src 'self' ${guardOrigin}; connect-src ${guardOrigin}; style-src 'self'`,
              }
            : {},
        );
        return;
      }
      case "/site.js":
        return send("text/javascript", SITE_JS);
      case "/analytics.js":
        return send("text/javascript", ANALYTICS_JS);
      case "/site.css":
        // A host rule the banner's buttons must not pick up (its styles live in its shadow root).
        return send("text/css", "button { background: rgb(255, 105, 180); }");
      default:
        res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const page = (options: PageOptions & { host?: string } = {}) => {
    const url = new URL(`http://${options.host ?? "127.0.0.1"}:${port}/`);
    if (options.snippet) url.searchParams.set("snippet", JSON.stringify(options.snippet));
    if (options.csp === false) url.searchParams.set("csp", "false");
    return url.toString();
  };
  return {
    port,
    url: page(),
    unregisteredUrl: page({ host: "localhost" }),
    hits: (path) => counts.get(path) ?? 0,
    page,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
