// The one failure type below the HTTP edge. Domain rules, stores and the CLI throw a Failure that
// carries a catalog code (contract/errors.json) and a message that names what is wrong; they never
// choose an HTTP status. The edge maps the code to a status (http/app.ts, from the catalog) and the
// CLI prints it and exits 1 (cli/main.ts).
import type { ApiErrorCode } from "@guard/contract";

export interface FailureDetails {
  /** The request field (JSON path or parameter name) the failure is about. */
  field?: string;
  /** How long the caller should wait before trying again (rate limits). */
  retryAfterSeconds?: number;
}

export class Failure extends Error {
  override name = "Failure";
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details: FailureDetails = {},
  ) {
    super(message);
  }
  get field(): string | undefined {
    return this.details.field;
  }
}

export const validationError = (field: string, message: string) =>
  new Failure("VALIDATION_ERROR", message, { field });

export const notFound = (what = "Not found") => new Failure("NOT_FOUND", what);

export const unauthorized = (message = "Missing, invalid, revoked or expired credential") =>
  new Failure("UNAUTHORIZED", message);

export const forbidden = (message: string) => new Failure("FORBIDDEN", message);
