// @guard/js: Guard's client for web pages and any fetch runtime, over the public routes and a data
// principal's own routes. See README.md for a quick start.
export { GuardClient } from "./client.js";
export type { FetchLike, GuardClientOptions, RequestOptions, Sleeper } from "./client.js";
export {
  GuardAbortError,
  GuardApiError,
  GuardConnectionError,
  GuardError,
  GuardMissingCredentialError,
  GuardTimeoutError,
  codeForStatus,
} from "./errors.js";
export type { GuardApiErrorInit, GuardErrorCode } from "./errors.js";
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  INITIAL_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
  RETRY_AFTER_CAP_MS,
  RETRY_COUNT_HEADER,
  RETRY_JITTER,
  backoffDelayMs,
  decideRetry,
  parseRetryAfterMs,
} from "../../typescript-shared/src/retry.js";
export type { AttemptFailure, RetryDecision, RetryInput } from "../../typescript-shared/src/retry.js";
export { hasConsent } from "./consent.js";
export type { ConsentLike } from "./consent.js";
export { PACKAGE_NAME, VERSION } from "./version.js";
export type * from "./types.js";
export type { ApiErrorCode } from "../../typescript-shared/src/generated/error-codes.js";
export type { components, operations, paths } from "./generated/contract.js";
