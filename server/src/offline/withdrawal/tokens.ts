// Withdrawal tokens (DPDP s.6(4): withdrawing must be as easy as giving). A principal who consented
// offline (a signed device session, a QR link, a POS confirmation, an IVR call) has no account to
// sign in with; the token printed on their slip or read out to them is what withdraws the consent.
// High-entropy and random, so it is stored as its SHA-256 (like API keys), never in the clear.
import type { Queryable } from "../../db/database.js";
import { randomBase62 } from "../../lib/ids.js";
import { sha256Hex } from "../../lib/secrets.js";
import { findTokenConsent, insertWithdrawalToken } from "./store.js";

const TOKEN_PREFIX = "wdt_";

/** Mints the consent's withdrawal token in the caller's transaction and returns it (shown once). */
export async function issueWithdrawalToken(
  tx: Queryable,
  consent: { organizationId: string; consentId: string },
  now: number,
): Promise<string> {
  // 32 base62 characters: about 190 bits, out of reach of guessing.
  const token = `${TOKEN_PREFIX}${randomBase62(32)}`;
  await insertWithdrawalToken(tx, { ...consent, tokenHash: sha256Hex(token), issuedAt: now });
  return token;
}

/** The consent a presented token withdraws; undefined when the token is unknown or malformed. */
export async function resolveWithdrawalToken(
  db: Queryable,
  token: string,
): Promise<{ organizationId: string; consentId: string } | undefined> {
  if (!/^wdt_[0-9A-Za-z]{32}$/.test(token)) return undefined;
  return findTokenConsent(db, sha256Hex(token));
}
