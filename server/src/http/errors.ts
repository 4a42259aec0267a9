// The one error path. Anything that fails a request throws an ApiFailure (or lets Fastify throw its
// own error); the app's error handler turns it into `{code, error, requestId, field?}` with the
// catalog status. Handlers never write error bodies themselves.
import { statusForCode, type ApiErrorCode } from "@guard/contract";

export class ApiFailure extends Error {
  override name = "ApiFailure";
  readonly status: number;
  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly options: { field?: string; status?: number; headers?: Record<string, string> } = {},
  ) {
    super(message);
    // ALREADY_CONSENTED is the catalog's one code with two statuses (400 on anonymous capture,
    // 409 on /cm/v1); a caller may pick the status, never the code.
    this.status = options.status ?? statusForCode(code);
  }
  get field(): string | undefined {
    return this.options.field;
  }
}

export const validationError = (field: string, message: string) =>
  new ApiFailure("VALIDATION_ERROR", message, { field });

export const notFound = (what = "Not found") => new ApiFailure("NOT_FOUND", what);

export const unauthorized = (message = "Missing, invalid, revoked or expired credential") =>
  new ApiFailure("UNAUTHORIZED", message);

export const forbidden = (message: string) => new ApiFailure("FORBIDDEN", message);

export interface ErrorBody {
  code: ApiErrorCode;
  error: string;
  requestId: string;
  field?: string;
}
