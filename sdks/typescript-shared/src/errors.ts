// The error tree's core, the same shape as the rest of the SDK family (conformance/README.md
// "Errors"): every non-2xx is a GuardApiError; no response at all is a GuardConnectionError or, when
// our own clock ran out, a GuardTimeoutError (siblings, so a caller can tell a slow server from a dead
// one). Each package adds the errors only it throws (a missing credential, a webhook secret).
import type { ApiErrorCode } from "./generated/error-codes.js";

/**
 * A catalog code `/api/v1` returns (contract/errors.json). Typed as that union plus `string`: a newer
 * server may send a code this release does not know, and it is kept as is.
 */
export type GuardErrorCode = ApiErrorCode | (string & {});

/** Base class of every error the SDK throws on purpose. */
export class GuardError extends Error {
  override name = "GuardError";
}

export interface GuardApiErrorInit {
  status: number;
  code: GuardErrorCode;
  message: string;
  requestId: string | null;
  field?: string | undefined;
  headers?: Headers | undefined;
}

/** The server answered with a non-2xx status. Branch on `code`, never on `message`. */
export class GuardApiError extends GuardError {
  override name = "GuardApiError";
  readonly status: number;
  readonly code: GuardErrorCode;
  /** Quote it when reporting a problem: the server logged the failure under this id. */
  readonly requestId: string | null;
  /** For `VALIDATION_ERROR`, the offending field when the server could name it. */
  readonly field: string | undefined;
  /**
   * The response headers. In a browser only the CORS-safelisted ones and those Guard exposes
   * (`X-Request-Id`, `Retry-After`, …) are readable.
   */
  readonly headers: Headers;

  constructor(init: GuardApiErrorInit) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.field = init.field;
    this.headers = init.headers ?? new Headers();
  }
}

/**
 * No response came back: the connection was refused or reset, DNS or TLS failed. In a browser a
 * response the page may not read (no CORS grant for its origin) looks the same: fetch gives no reason.
 */
export class GuardConnectionError extends GuardError {
  override name = "GuardConnectionError";
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/** An attempt outlived its timeout (`timeoutMs`). */
export class GuardTimeoutError extends GuardError {
  override name = "GuardTimeoutError";
}

/** The caller's `signal` aborted the call. Never retried. */
export class GuardAbortError extends GuardError {
  override name = "GuardAbortError";
}

// Status → catalog code, for error bodies that carry none (a proxy's 502 page, an old server).
// A 400 maps to VALIDATION_ERROR, as contract 1.6.0's clients mapped every code-less body.
const CODE_FOR_STATUS: Record<number, ApiErrorCode> = {
  400: "VALIDATION_ERROR",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  415: "UNSUPPORTED_MEDIA_TYPE",
  426: "SDK_VERSION_UNSUPPORTED",
  429: "RATE_LIMITED",
  500: "INTERNAL_ERROR",
};

/** The catalog code for a status, when the error body names none. */
export function codeForStatus(status: number): ApiErrorCode {
  return CODE_FOR_STATUS[status] ?? (status >= 500 ? "UNAVAILABLE" : "VALIDATION_ERROR");
}

/** Builds the GuardApiError for a non-2xx answer from its status, headers and body text. */
export function apiErrorFromResponse(status: number, headers: Headers, bodyText: string): GuardApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = bodyText ? JSON.parse(bodyText) : undefined;
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) {
      body = parsed as Record<string, unknown>;
    }
  } catch {
    // A non-JSON error page (from a proxy, say) still becomes a GuardApiError below.
  }
  const text = (value: unknown): string | undefined =>
    typeof value === "string" && value !== "" ? value : undefined;
  return new GuardApiError({
    status,
    code: text(body.code) ?? codeForStatus(status),
    message: text(body.error) ?? `Request failed with status ${status}`,
    requestId: text(body.requestId) ?? headers.get("x-request-id") ?? null,
    field: text(body.field),
    headers,
  });
}
