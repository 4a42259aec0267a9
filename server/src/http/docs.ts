// Human-readable API reference at /docs: Swagger UI over the served contract, branded Guard, opening
// on the operations. The full description, with its conventions and version history, stays at
// /api/v1/openapi.json; the reference's copy keeps only the introduction and points there.
//
// Swagger UI and what it brings (@fastify/static, a YAML library: about a hundred modules) are
// loaded on the first request under /docs, not at start (bench/README.md, "Start-up"): the
// application answers /docs and /docs/* by handing the request to a small Fastify instance that
// holds the two plugins, made on that first request and kept.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { Failure } from "../lib/failure.js";
import { stampResponseHeaders } from "./response-headers.js";

const GUARD_MARK = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path fill="#0b5d4b" d="M16 2 4 7v8c0 7.4 5.1 13.6 12 15 6.9-1.4 12-7.6 12-15V7z"/><path fill="#fff" d="m13.6 21.2-5-5 2-2 3 3 7.8-7.8 2 2z"/></svg>`;
const GUARD_LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 132 32" width="132" height="32"><g>${GUARD_MARK.replace(/^<svg[^>]*>|<\/svg>$/g, "")}</g><text x="38" y="23" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="20" font-weight="600" fill="#fff">Guard API</text></svg>`;
const THEME_CSS = `.swagger-ui .topbar { background: #0b5d4b; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .info { margin: 24px 0 8px; }`;

/**
 * The reference never asks the browser to upgrade to HTTPS: behind plain HTTP (a LAN address, a
 * container's host name) that directive made every script and style fail, and the page blank.
 * Deployments that serve HTTPS get their transport policy from the TLS front (docs/deploy.md).
 */
export const withoutUpgradeInsecureRequests = (csp: string): string =>
  csp
    .split(";")
    .map((directive) => directive.trim())
    .filter((directive) => directive !== "" && directive !== "upgrade-insecure-requests")
    .join("; ");

/** The served document as the reference shows it: the introduction only, then the operations. */
export function referenceDocument(document: Record<string, unknown>): Record<string, unknown> {
  const info = (document.info ?? {}) as Record<string, unknown>;
  const description = typeof info.description === "string" ? info.description : "";
  const introduction = description.split(/\n## /)[0]!.trim();
  return {
    ...document,
    info: {
      ...info,
      description:
        `${introduction}\n\nConventions (errors, idempotency, paging, time), the versioning rule and ` +
        "the change history are in the description of [/api/v1/openapi.json](/api/v1/openapi.json).",
    },
  };
}

/** Marks the reference instance's own "no such page" answer, which the application answers instead. */
const NOT_FOUND_HEADER = "x-guard-reference-not-found";
/** Headers that describe the hand-over itself rather than the page. */
const HOP_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "date", NOT_FOUND_HEADER]);

/** The Fastify instance serving the reference's pages under /docs. */
async function buildReference(document: Record<string, unknown>): Promise<FastifyInstance> {
  const [{ default: swagger }, { default: swaggerUi }] = await Promise.all([
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
  ]);
  const reference = Fastify({ logger: false, routerOptions: { ignoreTrailingSlash: false } });
  // A page it does not have (a path under /docs, a missing asset) is the application's 404.
  reference.setNotFoundHandler((_request, reply) => reply.code(404).header(NOT_FOUND_HEADER, "1").send());
  await reference.register(swagger, { mode: "static", specification: { document: document as never } });
  await reference.register(swaggerUi, {
    routePrefix: "/docs",
    logo: { type: "image/svg+xml", content: Buffer.from(GUARD_LOGO), href: "/docs", target: "_self" },
    theme: {
      title: "Guard API reference",
      favicon: [
        {
          filename: "guard.svg",
          rel: "icon",
          sizes: "any",
          type: "image/svg+xml",
          content: Buffer.from(GUARD_MARK),
        },
      ],
      css: [{ filename: "guard.css", content: THEME_CSS }],
    },
    // No validator badge: it would send the document to validator.swagger.io.
    uiConfig: { docExpansion: "list", deepLinking: true, tryItOutEnabled: false, validatorUrl: null },
    staticCSP: true,
    transformStaticCSP: withoutUpgradeInsecureRequests,
    transformSpecification: (served) => referenceDocument(served as Record<string, unknown>),
  });
  await reference.ready();
  return reference;
}

export function registerApiReference(app: FastifyInstance, document: Record<string, unknown>): void {
  let reference: Promise<FastifyInstance> | undefined;
  app.addHook("onClose", async () => {
    await (await reference?.catch(() => undefined))?.close();
  });
  const answer = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    stampResponseHeaders(request, reply);
    // A failed build (it should not fail) is retried by the next request.
    reference ??= buildReference(document).catch((error: unknown) => {
      reference = undefined;
      throw error;
    });
    const page = await (
      await reference
    ).inject({
      method: request.method as "GET" | "HEAD",
      url: request.url,
      headers: request.headers,
    });
    if (page.headers[NOT_FOUND_HEADER]) {
      throw new Failure("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`);
    }
    for (const [name, value] of Object.entries(page.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(name)) reply.header(name, value);
    }
    return reply.code(page.statusCode).send(page.rawPayload);
  };
  app.get("/docs", answer);
  app.get("/docs/*", answer);
}
