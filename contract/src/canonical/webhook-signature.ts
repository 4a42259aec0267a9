// Webhook signatures (spec: contract/specs/webhooks.md, vectors: contract/vectors/webhook-signature.json).
// Every delivery carries two independent signatures made from one endpoint secret `whsec_<base64>`:
// - `X-DPDP-Signature`: hex HMAC-SHA256 of the raw body keyed with the *whole secret string* as UTF-8,
//   which is what contract 1.6.0 verifiers already do with the endpoint secret they were given;
// - Standard Webhooks `webhook-signature`: `v1,<base64>` HMAC-SHA256 of `id.timestamp.body` keyed with
//   the *base64-decoded* part after `whsec_`, as every Standard Webhooks library does.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { decodeStrictBase64 } from "./base64.js";

/** Prefix of every Guard webhook endpoint secret (Standard Webhooks convention). */
export const WEBHOOK_SECRET_PREFIX = "whsec_";

/** Replay window of the Standard Webhooks check, in seconds, applied in both directions. */
export const STANDARD_WEBHOOK_TOLERANCE_SECONDS = 300;

/** Thrown when a secret cannot key a Standard Webhooks signature (it is not `whsec_<base64>`). */
export class WebhookSecretError extends Error {
  override name = "WebhookSecretError";
}

/** A new endpoint secret: `whsec_` + standard base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString("base64");
}

/**
 * The HMAC key bytes of a Standard Webhooks signature: the base64 after `whsec_`. As in the reference
 * libraries, a secret given without the prefix is read as bare base64. The base64 must be canonical and
 * padded, and decode to at least one byte.
 */
export function standardWebhookKey(secret: string): Buffer {
  const encoded = secret.startsWith(WEBHOOK_SECRET_PREFIX)
    ? secret.slice(WEBHOOK_SECRET_PREFIX.length)
    : secret;
  const key = decodeStrictBase64(encoded);
  if (key === undefined || key.length === 0) {
    throw new WebhookSecretError(
      `a Standard Webhooks secret must be "${WEBHOOK_SECRET_PREFIX}" followed by padded standard base64`,
    );
  }
  return key;
}

function bodyBytes(rawBody: string | Uint8Array): Buffer {
  return typeof rawBody === "string" ? Buffer.from(rawBody, "utf8") : Buffer.from(rawBody);
}

// ---------------------------------------------------------------------------------------------------
// X-DPDP-Signature (contract 1.6.0)
// ---------------------------------------------------------------------------------------------------

/** `X-DPDP-Signature` value: lowercase hex HMAC-SHA256(key = UTF-8 `secret`, message = raw body). */
export function signDpdpSignature(secret: string, rawBody: string | Uint8Array): string {
  return createHmac("sha256", Buffer.from(secret, "utf8")).update(bodyBytes(rawBody)).digest("hex");
}

// WHATWG "ASCII whitespace": TAB, LF, FF, CR, SPACE. Nothing else is trimmed (not NBSP, not VT).
const SURROUNDING_ASCII_WHITESPACE = /^[\t\n\f\r ]+|[\t\n\f\r ]+$/g;
const SHA256_HEX = /^[0-9a-fA-F]{64}$/;

/**
 * True only when `header` is exactly 64 hex digits (either case; surrounding ASCII whitespace ignored)
 * equal to the body's HMAC. Stricter than 1.6.0's verifier, which ignored trailing garbage; both accept
 * every header Guard sends. A string body is taken as its UTF-8 bytes: pass the body as received.
 */
export function verifyDpdpSignature(
  secret: string,
  rawBody: string | Uint8Array,
  header: string | readonly string[] | null | undefined,
): boolean {
  if (typeof header !== "string") return false;
  const digits = header.replace(SURROUNDING_ASCII_WHITESPACE, "");
  if (!SHA256_HEX.test(digits)) return false;
  const expected = createHmac("sha256", Buffer.from(secret, "utf8")).update(bodyBytes(rawBody)).digest();
  return timingSafeEqual(Buffer.from(digits, "hex"), expected);
}

// ---------------------------------------------------------------------------------------------------
// Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature)
// ---------------------------------------------------------------------------------------------------

export interface StandardWebhookSignInput {
  /** `webhook-id`; Guard sends the event's `eventId` (unchanged across retries). */
  id: string;
  /** `webhook-timestamp`, in seconds since the epoch: a non-negative safe integer. */
  timestamp: number;
  body: string | Uint8Array;
  secret: string;
}

function standardWebhookDigest(
  key: Buffer,
  id: string,
  timestamp: string,
  body: string | Uint8Array,
): string {
  return createHmac("sha256", key)
    .update(Buffer.from(`${id}.${timestamp}.`, "utf8"))
    .update(bodyBytes(body))
    .digest("base64");
}

/** `webhook-signature` value with one entry: `v1,<standard base64 of HMAC-SHA256(id.timestamp.body)>`. */
export function signStandardWebhook(input: StandardWebhookSignInput): string {
  if (!Number.isSafeInteger(input.timestamp) || input.timestamp < 0) {
    throw new RangeError("timestamp must be a non-negative integer number of seconds");
  }
  const key = standardWebhookKey(input.secret);
  return `v1,${standardWebhookDigest(key, input.id, String(input.timestamp), input.body)}`;
}

type HeaderValue = string | readonly string[] | null | undefined;

export interface StandardWebhookHeaders {
  "webhook-id"?: HeaderValue;
  "webhook-timestamp"?: HeaderValue;
  "webhook-signature"?: HeaderValue;
}

export interface StandardWebhookVerifyInput {
  /** Lower-case header names, as Node's `req.headers` has them. */
  headers: StandardWebhookHeaders;
  body: string | Uint8Array;
  secret: string;
  /** Default {@link STANDARD_WEBHOOK_TOLERANCE_SECONDS}. */
  toleranceSeconds?: number;
  /** Default: the current time. */
  nowSeconds?: number;
}

export type StandardWebhookFailureReason =
  | "missing_header"
  | "invalid_timestamp"
  | "timestamp_too_old"
  | "timestamp_too_new"
  | "no_matching_signature";

export type StandardWebhookVerification = { ok: true } | { ok: false; reason: StandardWebhookFailureReason };

const DECIMAL_SECONDS = /^[0-9]+$/;

function present(value: HeaderValue): value is string {
  return typeof value === "string" && value !== "";
}

/**
 * Checks, in this order: all three headers present and non-empty; timestamp is decimal digits only;
 * |now - timestamp| <= tolerance; some `v1,` entry of the space-separated signature list equals the
 * expected base64 text exactly. The signed timestamp is the header text as received, never a
 * re-formatted number. Caller errors throw: {@link WebhookSecretError} for a malformed `secret`, and
 * RangeError for a tolerance or clock that is not a finite number (NaN would silently open the window).
 */
export function verifyStandardWebhook(input: StandardWebhookVerifyInput): StandardWebhookVerification {
  const key = standardWebhookKey(input.secret);
  const tolerance = input.toleranceSeconds ?? STANDARD_WEBHOOK_TOLERANCE_SECONDS;
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (!Number.isFinite(tolerance) || tolerance < 0 || !Number.isFinite(now)) {
    throw new RangeError("toleranceSeconds must be a non-negative number and nowSeconds a finite number");
  }

  const { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signatures } = input.headers;
  if (!present(id) || !present(timestamp) || !present(signatures)) {
    return { ok: false, reason: "missing_header" };
  }

  const seconds = Number(timestamp);
  if (!DECIMAL_SECONDS.test(timestamp) || !Number.isSafeInteger(seconds)) {
    return { ok: false, reason: "invalid_timestamp" };
  }
  if (now - seconds > tolerance) return { ok: false, reason: "timestamp_too_old" };
  if (seconds - now > tolerance) return { ok: false, reason: "timestamp_too_new" };

  const expected = Buffer.from(standardWebhookDigest(key, id, timestamp, input.body), "ascii");
  // Entries are separated by single spaces; empty entries (from doubled spaces) are ignored. Other
  // whitespace is part of an entry and makes it fail.
  for (const entry of signatures.split(" ")) {
    const comma = entry.indexOf(",");
    if (comma === -1 || entry.slice(0, comma) !== "v1") continue;
    const received = Buffer.from(entry.slice(comma + 1), "utf8");
    if (received.length === expected.length && timingSafeEqual(received, expected)) return { ok: true };
  }
  return { ok: false, reason: "no_matching_signature" };
}
