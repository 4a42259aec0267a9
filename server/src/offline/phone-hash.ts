// Phone numbers given offline (a `phone_hash` principal handle, a number keyed in at a till) are
// never stored: only a keyed hash, per organisation, so nobody without the deployment's secrets
// key can test a guessed number against it, and one number hashes differently in two
// organisations (no cross-tenant linking).
import { createHmac } from "node:crypto";

/**
 * The number in one canonical form: its digits only; a 10-digit Indian mobile number as typed
 * locally gains the country code 91, and a leading 0 trunk prefix (0XXXXXXXXXX) is dropped first.
 * So "+91 98765-43210", "098765 43210" and "9876543210" are one number.
 */
export function normalizePhone(raw: string): string {
  let digits = raw.replace(/\D/g, "");
  if (digits.length === 11 && digits.startsWith("0")) digits = digits.slice(1);
  if (digits.length === 10) digits = `91${digits}`;
  return digits;
}

/** HMAC-SHA-256 (hex) of the normalised number under a key derived for the organisation. */
export function phoneHash(secretsKey: string, organizationId: string, rawPhone: string): string {
  const organizationKey = createHmac("sha256", secretsKey)
    .update(`guard/offline/phone-hash/v1\u0000${organizationId}`)
    .digest();
  return createHmac("sha256", organizationKey).update(normalizePhone(rawPhone)).digest("hex");
}
