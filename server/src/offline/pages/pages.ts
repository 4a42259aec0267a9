// Registers the principal-facing pages (server-rendered HTML, not contract operations) on the
// Fastify app, the way web/ registers the banner script and the dashboard: outside the contract's
// routes, so their answers are pages, never JSON. Each page module lists its routes; this file gives
// every route the same frame: strict security headers, form bodies (application/x-www-form-urlencoded,
// what a <form> without JavaScript posts), and a plain page for any failure (never a stack, never a
// failure's message, which may name internal ids).
import { statusForCode } from "@guard/contract";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { AppContext } from "../../app.js";
import { stampResponseHeaders } from "../../http/response-headers.js";
import { errorToFailure } from "../../http/error-mapping.js";
import { PAGE_STYLE_HASH, renderMessagePage } from "./html.js";
import { chooseLanguage, languageInfo, localized } from "./language.js";

/** What a page handler answers: the status (default 200), the whole document, extra headers. */
export interface PageResult {
  status?: number;
  html: string;
  headers?: Record<string, string>;
}

/** One page route: a Fastify path (`/offline-consent/:token`) and its handler. */
export interface PrincipalPageRoute {
  method: "GET" | "POST";
  url: string;
  handler: (request: FastifyRequest) => Promise<PageResult>;
}

/** A page module: given the application's context, its routes (like a RouteModule). */
export type PrincipalPageModule = (ctx: AppContext) => PrincipalPageRoute[];

/**
 * No script, no resource from anywhere (not even this origin), only the layout's own stylesheet;
 * forms post back to this origin; never framed (clickjacking a consent button). No
 * upgrade-insecure-requests: these pages must work over plain HTTP on any host.
 */
export const PRINCIPAL_PAGE_CSP = [
  "default-src 'none'",
  `style-src ${PAGE_STYLE_HASH}`,
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

/** Headers every principal page carries. The token is in the URL: no Referer, no cache, no index. */
export const PRINCIPAL_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": PRINCIPAL_PAGE_CSP,
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-frame-options": "DENY",
  "x-robots-tag": "noindex, nofollow",
  "cross-origin-opener-policy": "same-origin",
};

/** The largest form body a page accepts: its forms carry a nonce, a choice, a token. */
const FORM_BODY_LIMIT = 16 * 1024;

/**
 * The fields of a posted form (first value of each name); empty when the request had no form body.
 * Values are strings as the browser sent them; handlers validate them.
 */
export function formFields(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  if (body instanceof URLSearchParams)
    for (const [name, value] of body) if (!(name in fields)) fields[name] = value;
  return fields;
}

/** A query parameter's first value, or undefined. */
export function queryParam(request: FastifyRequest, name: string): string | undefined {
  const value = (request.query as Record<string, unknown> | undefined)?.[name];
  if (typeof value === "string") return value;
  if (Array.isArray(value) && typeof value[0] === "string") return value[0];
  return undefined;
}

const FAILURE_TEXT = {
  en: {
    400: ["Request not understood", "This page could not read what was sent. Go back and try again."],
    404: ["Page not found", "This link is not valid. Check that it was typed or scanned correctly."],
    410: ["No longer available", "This link is no longer in use."],
    429: ["Too many attempts", "Please wait a minute and try again."],
    500: ["Something went wrong", "Please try again later."],
  },
  hi: {
    400: ["अनुरोध समझ नहीं आया", "भेजी गई जानकारी पढ़ी नहीं जा सकी। वापस जाकर फिर से प्रयास करें।"],
    404: ["पेज नहीं मिला", "यह लिंक मान्य नहीं है। जाँच लें कि यह सही ढंग से टाइप या स्कैन किया गया है।"],
    410: ["अब उपलब्ध नहीं", "यह लिंक अब उपयोग में नहीं है।"],
    429: ["बहुत अधिक प्रयास", "कृपया एक मिनट रुककर फिर से प्रयास करें।"],
    500: ["कुछ गलत हो गया", "कृपया बाद में फिर से प्रयास करें।"],
  },
} as const;

type FailureStatus = keyof (typeof FAILURE_TEXT)["en"];

/**
 * A plain page for a failure status (400, 404, 410, 429, 500; others read as the nearest), in the
 * language the request asks for (English or Hindi). Pages use it for "unknown link" and "gone".
 */
export function failurePage(request: FastifyRequest, status: number): PageResult {
  const kind: FailureStatus =
    status === 404 || status === 410 || status === 429 ? status : status >= 500 ? 500 : 400;
  const lang = chooseLanguage({
    requested: queryParam(request, "lang"),
    acceptLanguage: request.headers["accept-language"],
    available: Object.keys(FAILURE_TEXT),
  });
  const [title, message] = localized(FAILURE_TEXT, lang)[kind];
  return { status, html: renderMessagePage({ lang, dir: languageInfo(lang).direction, title, message }) };
}

function pageForError(request: FastifyRequest, error: unknown): PageResult {
  const failure = errorToFailure(error);
  const status = statusForCode(failure.code);
  if (status >= 500) request.log.error({ err: error }, "principal page failed");
  const page = failurePage(request, status);
  const retryAfter = failure.details.retryAfterSeconds;
  return retryAfter === undefined ? page : { ...page, headers: { "retry-after": String(retryAfter) } };
}

function send(reply: FastifyReply, page: PageResult): FastifyReply {
  reply.headers(PRINCIPAL_PAGE_HEADERS);
  if (page.headers) reply.headers(page.headers);
  return reply
    .code(page.status ?? 200)
    .type("text/html; charset=utf-8")
    .send(page.html);
}

/**
 * Registers `modules`' routes on `app` in a scope of their own, so the form parser and the HTML
 * error page apply to these pages only (the API keeps its JSON-only bodies and JSON errors).
 */
export function registerPrincipalPages(
  app: FastifyInstance,
  ctx: AppContext,
  modules: readonly PrincipalPageModule[],
): void {
  void app.register(async (scope) => {
    scope.addContentTypeParser(
      /^application\/x-www-form-urlencoded\s*(;|$)/i,
      { parseAs: "string", bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) =>
        done(null, new URLSearchParams(typeof body === "string" ? body : body.toString("utf8"))),
    );
    // What fails before a handler runs (a body too large, a content type no parser takes).
    scope.setErrorHandler((error, request, reply) => {
      stampResponseHeaders(request, reply);
      return send(reply, pageForError(request, error));
    });
    for (const module of modules) {
      for (const route of module(ctx)) {
        scope.route({
          method: route.method,
          url: route.url,
          handler: async (request, reply) => {
            stampResponseHeaders(request, reply);
            let page: PageResult;
            try {
              page = await route.handler(request);
            } catch (error) {
              page = pageForError(request, error);
            }
            return send(reply, page);
          },
        });
      }
    }
  });
}
