// Serves the hosted banner script: `/banner/v1/guard.js` (revalidated every five minutes, so a new
// release reaches sites that paste the plain URL) and `/banner/v1/guard.<hash>.js` (the install
// snippet's URL: immutable for a year, paired with its SRI hash). Any page may load it
// (`Access-Control-Allow-Origin: *`, needed with `crossorigin="anonymous"`); it carries no secret,
// and what it may then call is decided by the API's own CORS policy.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { BannerScript } from "../banner/script.js";
import { Failure } from "../lib/failure.js";
import { stampResponseHeaders } from "../http/response-headers.js";

const SHORT_CACHE = "public, max-age=300";
const IMMUTABLE = "public, max-age=31536000, immutable";

export function registerBannerScript(app: FastifyInstance, script: BannerScript): void {
  const etag = `"${script.sha256.slice(0, 32)}"`;
  const send = (request: FastifyRequest, reply: FastifyReply, cacheControl: string) => {
    stampResponseHeaders(request, reply);
    reply
      .header("cache-control", cacheControl)
      .header("etag", etag)
      .header("access-control-allow-origin", "*")
      .header("cross-origin-resource-policy", "cross-origin");
    const ifNoneMatch = request.headers["if-none-match"];
    if (ifNoneMatch !== undefined && ifNoneMatch.split(",").some((tag) => tag.trim() === etag)) {
      return reply.code(304).send();
    }
    return reply.type("text/javascript; charset=utf-8").send(script.body);
  };

  app.get("/banner/v1/guard.js", (request, reply) => send(request, reply, SHORT_CACHE));
  app.get<{ Params: { file: string } }>("/banner/v1/:file", (request, reply) => {
    // Only the current build's hashed name: an old hash would be served new bytes under an
    // immutable cache, and its SRI would fail anyway.
    if (request.params.file !== script.hashedName) {
      throw new Failure(
        "NOT_FOUND",
        `No banner script ${request.params.file}; the current one is ${script.hashedName}`,
      );
    }
    return send(request, reply, IMMUTABLE);
  });
}
