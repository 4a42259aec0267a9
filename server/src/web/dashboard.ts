// Serves the DPO dashboard (built from `dashboard/` into `dashboard/dist/` by Vite) under
// `/dashboard`. The build is read once at start into memory and only those files are served, so no
// request path ever reaches the file system (no traversal, no symlink surprises). Any other
// `/dashboard/<path>` is a client-side route and gets index.html. Hashed assets (`assets/*`) never
// change under a name, so they are cached for a year; index.html is revalidated on every load so
// a new build reaches users at once. The CSP allows no inline script or style and no third party.
// Text files go out gzipped to clients that accept it (bench/README.md, "The DPO dashboard"): each
// is compressed on its first request and the result kept, so start-up pays nothing.
import fs from "node:fs";
import { gzipSync } from "node:zlib";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { stampResponseHeaders } from "../http/response-headers.js";
import { Failure } from "../lib/failure.js";

/** Where `npm run build -w dashboard` writes the app (`npm start` runs it first when stale). */
export const DEFAULT_DASHBOARD_DIST = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "../../../dashboard/dist",
);

export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join("; ");

const IMMUTABLE = "public, max-age=31536000, immutable";

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export interface DashboardFile {
  body: Buffer;
  type: string;
  /** The gzipped body, made on the first request that accepts gzip (text types only). */
  gzipped?: Buffer;
}

/** Types worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /^(text\/|application\/json|image\/svg\+xml)/;
/** Below this, gzip's header costs more than it saves. */
const MIN_COMPRESSIBLE_BYTES = 1024;

function acceptsGzip(request: FastifyRequest): boolean {
  const accept = request.headers["accept-encoding"];
  // `gzip;q=0` is a refusal; anything else naming gzip (or `*`) accepts it.
  return (
    typeof accept === "string" &&
    accept
      .toLowerCase()
      .split(",")
      .some((part) => {
        const [coding, ...params] = part.trim().split(";");
        if (coding !== "gzip" && coding !== "*") return false;
        return !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param));
      })
  );
}

/** Sends `file`, gzipped when the client accepts it and the type is worth it. */
function sendFile(request: FastifyRequest, reply: FastifyReply, file: DashboardFile) {
  reply.type(file.type);
  if (!COMPRESSIBLE.test(file.type) || file.body.length < MIN_COMPRESSIBLE_BYTES)
    return reply.send(file.body);
  reply.header("vary", "accept-encoding");
  if (!acceptsGzip(request)) return reply.send(file.body);
  file.gzipped ??= gzipSync(file.body, { level: 9 });
  return reply.header("content-encoding", "gzip").send(file.gzipped);
}

export interface DashboardBuild {
  /** index.html, served for `/dashboard` and every client-side route. */
  index: DashboardFile;
  /** Every other built file, keyed by its path under dist with forward slashes (`assets/index-Ab12.js`). */
  files: Map<string, DashboardFile>;
}

export function contentTypeFor(file: string): string {
  return CONTENT_TYPES[path.extname(file).toLowerCase()] ?? "application/octet-stream";
}

/** The build in `dir`, or undefined when it has not been built (no index.html). */
export function loadDashboard(dir: string = DEFAULT_DASHBOARD_DIST): DashboardBuild | undefined {
  let index: DashboardFile;
  try {
    index = { body: fs.readFileSync(path.join(dir, "index.html")), type: "text/html; charset=utf-8" };
  } catch {
    return undefined;
  }
  const files = new Map<string, DashboardFile>();
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const relative = path.relative(dir, full).split(path.sep).join("/");
    if (relative === "index.html") continue;
    files.set(relative, { body: fs.readFileSync(full), type: contentTypeFor(relative) });
  }
  return { index, files };
}

export function registerDashboard(app: FastifyInstance, build: DashboardBuild): void {
  const secure = (request: FastifyRequest, reply: FastifyReply) => {
    stampResponseHeaders(request, reply);
    reply.header("content-security-policy", DASHBOARD_CSP).header("referrer-policy", "same-origin");
  };
  const sendIndex = (request: FastifyRequest, reply: FastifyReply) => {
    secure(request, reply);
    return sendFile(request, reply.header("cache-control", "no-cache"), build.index);
  };

  app.get("/dashboard", sendIndex);
  app.get<{ Params: { "*": string } }>("/dashboard/*", (request, reply) => {
    const file = build.files.get(request.params["*"]);
    if (!file) {
      // A missing hashed asset is an old build's file: answering index.html as JavaScript would
      // only break the page in a confusing way, so say 404.
      if (request.params["*"].startsWith("assets/")) {
        throw new Failure("NOT_FOUND", `This dashboard build has no ${request.params["*"]}; reload the page`);
      }
      return sendIndex(request, reply);
    }
    secure(request, reply);
    const cacheControl = request.params["*"].startsWith("assets/") ? IMMUTABLE : "no-cache";
    return sendFile(request, reply.header("cache-control", cacheControl), file);
  });
}
