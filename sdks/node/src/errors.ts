// The error tree (conformance/README.md "Errors"): the family's core, shared with @guard/js
// (sdks/typescript-shared/src/errors.ts), and the errors only this SDK throws.
import { GuardError } from "../../typescript-shared/src/errors.js";
import { ERROR_CATALOG } from "./generated/error-catalog.js";

export { ERROR_CATALOG };
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
