// `/demo/shop`: a sample fiduciary page served by `npm start` (guard serve --seed-demo) that shows
// the hosted banner for the demo organisation, an analytics tag it holds back until consent, and
// the preference centre. It is sent with a strict Content-Security-Policy (no inline script or
// style, no eval) so it also demonstrates that the banner needs none.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance } from "fastify";
import { stampResponseHeaders } from "../http/response-headers.js";

const ASSETS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../demo/shop");

const FILES: Record<string, { file: string; type: string }> = {
  "/demo/shop": { file: "index.html", type: "text/html; charset=utf-8" },
  "/demo/shop/shop.css": { file: "shop.css", type: "text/css; charset=utf-8" },
  "/demo/shop/page.js": { file: "page.js", type: "text/javascript; charset=utf-8" },
  "/demo/shop/analytics.js": { file: "analytics.js", type: "text/javascript; charset=utf-8" },
};

export const DEMO_SHOP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

export function registerDemoShop(app: FastifyInstance): void {
  for (const [url, asset] of Object.entries(FILES)) {
    const body = fs.readFileSync(path.join(ASSETS, asset.file));
    app.get(url, (request, reply) => {
      stampResponseHeaders(request, reply);
      return reply
        .header("content-security-policy", DEMO_SHOP_CSP)
        .header("cache-control", "no-cache")
        .type(asset.type)
        .send(body);
    });
  }
}
