// @guard/server: the Node server SDK for Guard. See README.md for a quick start.
export { GuardClient } from "./client.js";
export type { BrokerTokenOptions, FetchLike, GuardClientOptions, RequestOptions, Sleeper } from "./client.js";
export {
  GuardAbortError,
  GuardApiError,
  GuardConnectionError,
  GuardError,
  GuardMissingCredentialError,
  GuardTimeoutError,
  GuardWebhookSecretError,
  codeForStatus,
  ERROR_CATALOG,
} from "./errors.js";
export type { GuardErrorCode } from "./errors.js";
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
export {
  DEFAULT_WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_SECRET_PREFIX,
  verifyStandardWebhook,
  verifyWebhookSignature,
} from "./webhooks.js";
export type {
  RawBody,
  StandardWebhookFailureReason,
  StandardWebhookOptions,
  StandardWebhookVerification,
  WebhookHeaders,
} from "./webhooks.js";
export { canonicalizeAuditEvent, computeAuditHash, validateAuditFields } from "./audit-hash.js";
export type { AuditFieldProblem, AuditHashInput, AuditSource } from "./audit-hash.js";
export {
  CAPTURE_ARTIFACT_FORMAT,
  CaptureArtifactError,
  canonicalizeCaptureArtifact,
  verifyCaptureSignature,
} from "./capture-artifact.js";
export type {
  CaptureArtifactErrorCode,
  CaptureArtifactSession,
  CaptureChannel,
  CapturePurposeGrant,
  PrincipalHandleKind,
  PurposeGrantStatus,
} from "./capture-artifact.js";
export { PACKAGE_NAME, VERSION } from "./version.js";
export type * from "./types.js";
export type { components, operations, paths } from "./generated/contract.js";
