// The error tree (conformance/README.md "Errors"): the family's core, shared with @guard/server
// (sdks/typescript-shared/src/errors.ts), and the one error only this SDK throws.
import { GuardError } from "../../typescript-shared/src/errors.js";

export {
  apiErrorFromResponse,
  codeForStatus,
  GuardAbortError,
  GuardApiError,
  GuardConnectionError,
  GuardError,
  GuardTimeoutError,
} from "../../typescript-shared/src/errors.js";
export type { GuardApiErrorInit, GuardErrorCode } from "../../typescript-shared/src/errors.js";

/** A principal call without an access token. Thrown before any network I/O. */
export class GuardMissingCredentialError extends GuardError {
  override name = "GuardMissingCredentialError";
  /** Always `accessToken`: this SDK never holds a service API key. */
  readonly credential = "accessToken" as const;
  constructor() {
    super(
      "This call needs a principal access token: pass accessToken to new GuardClient() or call setAccessToken(token)",
    );
  }
}
