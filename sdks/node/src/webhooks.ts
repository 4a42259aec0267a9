// Verifying Guard's webhook deliveries (contract/specs/webhooks.md; every case of
// contract/vectors/webhook-signature.json runs in test/vectors.test.ts). One endpoint secret
// (`whsec_…`) feeds both schemes, as a different key in each.
import { createHmac, timingSafeEqual } from "node:crypto";
import { GuardWebhookSecretError } from "./errors.js";

export const WEBHOOK_SECRET_PREFIX = "whsec_";
/** The Standard Webhooks replay window, applied in both directions. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

export type RawBody = string | Uint8Array;
type HeaderValue = string | readonly string[] | null | undefined;
/** Node's `req.headers`, a plain object with any case of names, or a Fetch `Headers`. */
export type WebhookHeaders = Headers | Record<string, HeaderValue>;

const bytes = (rawBody: RawBody): Buffer =>
  typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);

// WHATWG ASCII whitespace only: a NO-BREAK SPACE around the digits is not "whitespace" here.
const SURROUNDING_ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

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
  if (typeof secret !== "string" || secret === "") {
    throw new GuardWebhookSecretError("verifyWebhookSignature needs the endpoint's secret (whsec_…)");
  }
  if (typeof signatureHeader !== "string") return false;
  const digits = signatureHeader.replace(SURROUNDING_ASCII_WHITESPACE, "");
  if (!SHA256_HEX.test(digits)) return false;
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(bytes(rawBody)).digest();
  return timingSafeEqual(Buffer.from(digits, "hex"), expected);
}

/** Why a Standard Webhooks delivery did not verify (checked in this order). */
export type StandardWebhookFailureReason =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature";

export type StandardWebhookVerification =
  { valid: true } | { valid: false; reason: StandardWebhookFailureReason };

export interface StandardWebhookOptions {
  /** Default 300. Applied both ways; exactly this many seconds is still accepted. */
  toleranceSeconds?: number;
  /** Default: now. For tests and for re-checking a stored delivery. */
  nowSeconds?: number;
}

const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The Standard Webhooks key: the base64 after `whsec_` (bare base64 is accepted too). */
function standardWebhookKey(secret: string): Buffer {
  if (typeof secret !== "string") throw new GuardWebhookSecretError("the webhook secret must be a string");
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const key = CANONICAL_BASE64.test(encoded) ? Buffer.from(encoded, "base64") : undefined;
  if (!key || key.length === 0 || key.toString("base64") !== encoded) {
    throw new GuardWebhookSecretError(
      `the webhook secret must be "${WEBHOOK_SECRET_PREFIX}" followed by padded standard base64, as the dashboard shows it`,
    );
  }
  return key;
}

function header(headers: WebhookHeaders, name: string): HeaderValue {
  if (typeof Headers !== "undefined" && headers instanceof Headers) return headers.get(name);
  const record = headers as Record<string, HeaderValue>;
  if (name in record) return record[name];
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : record[key];
}

const present = (value: HeaderValue): value is string => typeof value === "string" && value !== "";

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
  const key = standardWebhookKey(secret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
  const now = options.nowSeconds ?? Math.floor(Date.now() / 1000);
  // NaN would make every comparison false and so silently open the window.
  if (typeof tolerance !== "number" || !Number.isFinite(tolerance) || tolerance < 0) {
    throw new RangeError("toleranceSeconds must be a non-negative number");
  }
  if (typeof now !== "number" || !Number.isFinite(now))
    throw new RangeError("nowSeconds must be a finite number");

  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!present(id) || !present(timestamp) || !present(signatures))
    return { valid: false, reason: "missing_header" };

  const seconds = Number(timestamp);
  if (!/^[0-9]+$/.test(timestamp) || !Number.isSafeInteger(seconds))
    return { valid: false, reason: "invalid_timestamp" };
  if (now - seconds > tolerance) return { valid: false, reason: "timestamp_too_old" };
  if (seconds - now > tolerance) return { valid: false, reason: "timestamp_too_new" };

  const expected = Buffer.from(
    createHmac("sha256", key)
      .update(Buffer.from(`${id}.${timestamp}.`, "utf8"))
      .update(bytes(rawBody))
      .digest("base64"),
    "ascii",
  );
  // Single spaces separate entries (key rotation sends several); a tab belongs to an entry.
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma === -1 || entry.slice(0, comma) !== "v1") continue;
    const received = Buffer.from(entry.slice(comma + 1), "utf8");
    if (received.length === expected.length && timingSafeEqual(received, expected)) return { valid: true };
  }
  return { valid: false, reason: "no_matching_signature" };
}
