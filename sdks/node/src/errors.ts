// The error tree, shared in shape by the whole SDK family (conformance/README.md "Errors"):
// every non-2xx is a GuardApiError; no response at all is a GuardConnectionError or, when our own
// clock ran out, a GuardTimeoutError (siblings, so a caller can tell a slow server from a dead one).
import { ERROR_CATALOG } from "./generated/error-catalog.js";

export { ERROR_CATALOG };

/** Base class of every error this SDK throws on purpose. */
export class GuardError extends Error {
  override name = "GuardError";
}

/**
 * A catalog code `/api/v1` returns (contract/errors.json, generated into ERROR_CATALOG). Typed as
 * that union plus `string`: a newer server may send a code this release does not know, and it is
 * kept as is.
 */
export type GuardErrorCode =
  Extract<(typeof ERROR_CATALOG)[number], { surface: "api" }>["code"] | (string & {});

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

/** No response came back: the connection was refused or reset, DNS failed, TLS failed. */
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

/** The call needs a credential the client does not hold. Thrown before any network I/O. */
export class GuardMissingCredentialError extends GuardError {
  override name = "GuardMissingCredentialError";
  constructor(readonly credential: "apiKey" | "accessToken") {
    super(
      credential === "apiKey"
        ? "This call needs the service API key: pass `apiKey` to new GuardClient({ baseUrl, apiKey })"
        : "This call needs a principal access token: call brokerToken(externalId) or setAccessToken(token) first",
    );
  }
}

/** A webhook secret that cannot key a signature: a configuration mistake, not a forged delivery. */
export class GuardWebhookSecretError extends GuardError {
  override name = "GuardWebhookSecretError";
}

/** Status → catalog code, for error bodies that carry none (a proxy's 502 page, an old server). */
export function codeForStatus(status: number): GuardErrorCode {
  switch (status) {
    case 400:
      // Contract 1.6.0's client mapped every code-less body to VALIDATION_ERROR; a 400 still does.
      return "VALIDATION_ERROR";
    case 401:
      return "UNAUTHORIZED";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "CONFLICT";
    case 413:
      return "PAYLOAD_TOO_LARGE";
    case 415:
      return "UNSUPPORTED_MEDIA_TYPE";
    case 426:
      return "SDK_VERSION_UNSUPPORTED";
    case 429:
      return "RATE_LIMITED";
    case 500:
      return "INTERNAL_ERROR";
    default:
      return status >= 500 ? "UNAVAILABLE" : "VALIDATION_ERROR";
  }
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
