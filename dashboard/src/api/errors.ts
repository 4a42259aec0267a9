// ApiError: what every failed call throws, built from the contract's error body
// (`ApiError`: {code, error, field?, requestId?}, see contract/openapi/v1.yaml) and the response's
// status and Retry-After. Pages branch on `code` and `status`, never on the message.

export class ApiError extends Error {
  override readonly name = "ApiError";
  /** HTTP status; 0 when Guard could not be reached at all. */
  readonly status: number;
  /** The contract's catalog code (`VALIDATION_ERROR`, `NOT_FOUND`, ...), or `NETWORK_ERROR` for status 0. */
  readonly code: string;
  /** For `VALIDATION_ERROR`: the offending field (`email`, `/dataTypes/0`). */
  readonly field: string | undefined;
  /** Quote it when reporting a problem: it finds the request in Guard's logs. */
  readonly requestId: string | undefined;
  /** Seconds to wait, from `Retry-After` (429, 503). */
  readonly retryAfter: number | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    field?: string | undefined;
    requestId?: string | undefined;
    retryAfter?: number | undefined;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.requestId = init.requestId;
    this.retryAfter = init.retryAfter;
  }
}

/** Retry-After as seconds: the contract sends delta-seconds; an HTTP date is honoured too. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === "") return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/**
 * The ApiError for a non-2xx response and its (possibly empty or non-JSON) body text. A body that
 * is not the contract's shape (a proxy's HTML page) still yields an error naming the status.
 */
export function apiErrorFrom(
  status: number,
  bodyText: string,
  headers: { get(name: string): string | null },
): ApiError {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(bodyText);
    if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: fall through to the status-only error below.
  }
  return new ApiError({
    status,
    code: str(body.code) ?? `HTTP_${status}`,
    message: str(body.error) ?? `Guard answered ${status} without an error message`,
    field: str(body.field),
    requestId: str(body.requestId) ?? headers.get("x-request-id") ?? undefined,
    retryAfter: parseRetryAfter(headers.get("retry-after")),
  });
}

export function networkError(cause: unknown): ApiError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new ApiError({
    status: 0,
    code: "NETWORK_ERROR",
    message: `Guard could not be reached (${detail}). Check your connection and try again.`,
  });
}

/**
 * Does `error` name the form field `name`? The contract's `field` is a property name (`email`) or a
 * JSON pointer (`/itemized/0/purpose`); a pointer belongs to its first segment's field.
 */
export function errorNamesField(error: unknown, name: string): boolean {
  if (!(error instanceof ApiError) || !error.field) return false;
  if (error.field === name) return true;
  const first = error.field.replace(/^\//, "").split(/[/.[]/)[0];
  return first === name;
}

/** The message to show beside the input `name`, when the error is about that field. */
export function fieldError(error: unknown, name: string): string | undefined {
  return errorNamesField(error, name) ? (error as ApiError).message : undefined;
}

/**
 * The error a form must show on its own (in an ErrorNotice), because none of its `fields` shows
 * it: so no message is ever lost when the API names a field the form does not have.
 */
export function unclaimedError(error: unknown, fields: readonly string[]): unknown {
  if (!error) return undefined;
  return fields.some((name) => errorNamesField(error, name)) ? undefined : error;
}

/**
 * Runs a confirmation dialog's write whose body carries `field` (a reason, a note): a refusal naming
 * that field goes to `setFieldError`, to be shown at the field with the dialog still open, and the
 * write answers false; any other failure is thrown for the dialog to show. True once it succeeded.
 */
export async function withFieldError(
  field: string,
  write: () => Promise<unknown>,
  setFieldError: (error: unknown) => void,
): Promise<boolean> {
  setFieldError(undefined);
  try {
    await write();
    return true;
  } catch (caught) {
    if (!errorNamesField(caught, field)) throw caught;
    setFieldError(caught);
    return false;
  }
}
