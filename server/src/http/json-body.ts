// Request bodies are JSON only. An empty body with `Content-Type: application/json` counts as no
// body (contract 1.6.0 clients send that header on every call, GET and DELETE included); any other
// content type with a body is 415. Keys that could poison prototypes (`__proto__`,
// `constructor.prototype`) are refused as Fastify's own parser refuses them (secure-json-parse): a
// body is later spread into and merged with other objects, and must never carry them. A parsed body
// then passes request-text.ts: a nesting limit, and no NUL or unpaired surrogate in any key or string.
import type { FastifyInstance } from "fastify";
import secureJson from "secure-json-parse";
import { Failure } from "../lib/failure.js";
import { bodyFailure } from "./request-text.js";

const PROTOTYPE_KEYS = "The body must not contain __proto__ or constructor.prototype keys";

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    // Fastify matches the whole header, parameters included (`application/json; charset=utf-8`).
    /^application\/([a-z0-9.+-]+\+)?json\s*(;|$)/i,
    { parseAs: "string", bodyLimit: app.initialConfig.bodyLimit },
    (_request, body, done) => {
      const text = typeof body === "string" ? body : body.toString("utf8");
      if (text.trim() === "") return done(null, undefined);
      let parsed: unknown;
      try {
        // `safe`: a forbidden key makes the result null instead of throwing; malformed JSON throws.
        parsed = secureJson.parse(text, undefined, {
          protoAction: "error",
          constructorAction: "error",
          safe: true,
        });
      } catch {
        return done(new Failure("VALIDATION_ERROR", "Malformed JSON body", { field: "body" }), undefined);
      }
      if (parsed === null && text.trim() !== "null") {
        return done(new Failure("VALIDATION_ERROR", PROTOTYPE_KEYS, { field: "body" }), undefined);
      }
      // JSON text carries NUL or a lone surrogate only as a `\u` escape: a raw control character is
      // malformed JSON, and decoding invalid UTF-8 yields U+FFFD. Without one, only depth is checked.
      const failure = bodyFailure(parsed, text.includes("\\u"));
      if (failure) return done(failure, undefined);
      done(null, parsed);
    },
  );
}
