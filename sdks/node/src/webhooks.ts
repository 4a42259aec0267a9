// Verifying Guard's webhook deliveries (contract/specs/webhooks.md; every case of
// contract/vectors/webhook-signature.json runs in test/vectors.test.ts). One endpoint secret
// (`whsec_…`) feeds both schemes, as a different key in each. The checks themselves are the
// contract's own module, the one the server signs with; scripts/build.mjs copies it into the package.
// This file only adapts it to the SDK's signatures: a positional API, header lookup in any case or
// through Fetch `Headers`, `{ valid }` results and the SDK's error class.
import {
  STANDARD_WEBHOOK_TOLERANCE_SECONDS,
  verifyDpdpSignature,
  verifyStandardWebhook as verifyStandardWebhookHeaders,
  WEBHOOK_SECRET_PREFIX,
  WebhookSecretError,
  type StandardWebhookFailureReason,
} from "../../../contract/src/canonical/webhook-signature.js";
import { GuardWebhookSecretError } from "./errors.js";

export { WEBHOOK_SECRET_PREFIX };
export type { StandardWebhookFailureReason };
/** The Standard Webhooks replay window, applied in both directions. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = STANDARD_WEBHOOK_TOLERANCE_SECONDS;

export type RawBody = string | Uint8Array;
type HeaderValue = string | readonly string[] | null | undefined;
/** Node's `req.headers`, a plain object with any case of names, or a Fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, HeaderValue>;

/**
 * Checks `X-DPDP-Signature` (contract 1.6.0's header): exactly 64 hex digits, either case, equal in
 * constant time to HMAC-SHA256 of the raw body keyed with the whole secret string. Pass the body
 * exactly as received — re-serialised JSON does not verify. Never throws for a bad header.
 */
export function verifyWebhookSignature(
  secret: string,
  rawBody: RawBody,
  signatureHeader: string | readonly string[] | null | undefined,
): boolean {
  // An empty key still makes an HMAC, so a missing secret would read as "every delivery forged".
  if (typeof secret !== "string" || secret === "") {
    throw new GuardWebhookSecretError("verifyWebhookSignature needs the endpoint's secret (whsec_…)");
  }
  return verifyDpdpSignature(secret, rawBody, signatureHeader);
}

export type StandardWebhookVerification =
  { valid: true } | { valid: false; reason: StandardWebhookFailureReason };

export interface StandardWebhookOptions {
  /** Default 300. Applied both ways; exactly this many seconds is still accepted. */
  toleranceSeconds?: number;
  /** Default: now. For tests and for re-checking a stored delivery. */
  nowSeconds?: number;
}

function header(headers: WebhookHeaders, name: string): HeaderValue {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name);
  const record = headers as Record<string, HeaderValue>;
  if (name in record) return record[name];
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

const MALFORMED_SECRET = `the webhook secret must be "${WEBHOOK_SECRET_PREFIX}" followed by padded standard base64, as the dashboard shows it`;

/**
 * Checks the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`):
 * all present; the timestamp is decimal digits within the tolerance of now, both ways; some `v1`
 * entry of the space-separated list equals the expected signature exactly (constant time). The
 * signed timestamp is the header text as received. A malformed secret throws
 * GuardWebhookSecretError; a bad tolerance or clock throws RangeError — configuration mistakes, not
 * forged deliveries. De-duplicate on `webhook-id` yourself: delivery is at least once.
 */
export function verifyStandardWebhook(
  secret: string,
  rawBody: RawBody,
  headers: WebhookHeaders,
  options: StandardWebhookOptions = {},
): StandardWebhookVerification {
  if (typeof secret !== "string") throw new GuardWebhookSecretError(MALFORMED_SECRET);
  try {
    const outcome = verifyStandardWebhookHeaders({
      secret,
      body: rawBody,
      headers: {
        "webhook-id": header(headers, "webhook-id"),
        "webhook-timestamp": header(headers, "webhook-timestamp"),
        "webhook-signature": header(headers, "webhook-signature"),
      },
      toleranceSeconds: options.toleranceSeconds,
      nowSeconds: options.nowSeconds,
    });
    return outcome.ok ? { valid: true } : { valid: false, reason: outcome.reason };
  } catch (error) {
    // Callers catch the SDK's GuardError tree, never the contract's own classes.
    if (error instanceof WebhookSecretError) {
      throw new GuardWebhookSecretError(MALFORMED_SECRET, { cause: error });
    }
    throw error;
  }
}
