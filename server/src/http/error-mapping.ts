// Maps anything thrown during a request to a Failure with a catalog code. Fastify's own errors
// (bad JSON, body too large, wrong media type, schema validation) get their catalog equivalents;
// anything unexpected is INTERNAL_ERROR with a generic message (details go to the log only).
import { Failure } from "../lib/failure.js";

type FastifyLikeError = Error & { code?: string; statusCode?: number; validation?: unknown };

const BY_FASTIFY_CODE: Record<string, () => Failure> = {
  FST_ERR_CTP_BODY_TOO_LARGE: () => new Failure("PAYLOAD_TOO_LARGE", "The request body is too large"),
  FST_ERR_CTP_INVALID_MEDIA_TYPE: () =>
    new Failure("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json"),
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: () =>
    new Failure("VALIDATION_ERROR", "Content-Length does not match the body", { field: "body" }),
  FST_ERR_CTP_EMPTY_JSON_BODY: () =>
    new Failure("VALIDATION_ERROR", "A JSON request body is required", { field: "body" }),
  FST_ERR_CTP_INVALID_JSON_BODY: () =>
    new Failure("VALIDATION_ERROR", "Malformed JSON body", { field: "body" }),
  FST_ERR_BAD_URL: () => new Failure("VALIDATION_ERROR", "Malformed URL", { field: "path" }),
  // No contract id or slug comes near the router's 200-character limit on a path segment.
  FST_ERR_MAX_PARAM_LENGTH: () =>
    new Failure("VALIDATION_ERROR", "A path segment is too long", { field: "path" }),
  FST_ERR_ASYNC_CONSTRAINT: () => new Failure("VALIDATION_ERROR", "Malformed request"),
};

// PostgreSQL text cannot hold U+0000: a text parameter carrying one fails with 22021, a jsonb value
// with 22P05. JSON bodies, query strings and headers can carry it, so that is the caller's error.
const POSTGRES_NUL_CODES = new Set(["22021", "22P05"]);

export function errorToFailure(error: unknown): Failure {
  if (error instanceof Failure) return error;
  const err = error as FastifyLikeError;
  const byCode = err?.code ? BY_FASTIFY_CODE[err.code] : undefined;
  if (byCode) return byCode();
  if (err?.code && POSTGRES_NUL_CODES.has(err.code))
    return new Failure("VALIDATION_ERROR", "Text must not contain the NUL character (U+0000)");
  // A validation error from a compiler other than ours (should not happen, but stay a 400).
  if (err?.validation) return new Failure("VALIDATION_ERROR", err.message);
  if (typeof err?.statusCode === "number" && err.statusCode >= 400 && err.statusCode < 500) {
    if (err.statusCode === 413) return new Failure("PAYLOAD_TOO_LARGE", "The request body is too large");
    if (err.statusCode === 415)
      return new Failure("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json");
    return new Failure("VALIDATION_ERROR", "Malformed request");
  }
  return new Failure("INTERNAL_ERROR", "Internal error; quote the requestId when reporting it");
}
