// Request bodies are JSON only. An empty body with `Content-Type: application/json` counts as no
// body (contract 1.6.0 clients send that header on every call, GET and DELETE included); any other
// content type with a body is 415.
import type { FastifyInstance } from "fastify";
import { ApiFailure } from "./errors.js";

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    // Fastify matches the whole header, parameters included (`application/json; charset=utf-8`).
    /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i,
    { parseAs: "string", bodyLimit: app.initialConfig.bodyLimit },
    (_request, body, done) => {
      const text = typeof body === "string" ? body : body.toString("utf8");
      if (text.trim() === "") return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        done(new ApiFailure("VALIDATION_ERROR", "Malformed JSON body", { field: "body" }), undefined);
      }
    },
  );
}
