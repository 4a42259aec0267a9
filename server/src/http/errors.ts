// The error body of every failed request. Anything that fails a request throws a Failure
// (lib/failure.ts) or lets Fastify throw its own error; the app's error handler turns it into this
// body with the status the catalog gives its code. Handlers never write error bodies themselves.
import type { ApiErrorCode } from "@guard/contract";

export interface ErrorBody {
  code: ApiErrorCode;
  error: string;
  requestId: string;
  field?: string;
}
