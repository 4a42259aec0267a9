// Withdrawal tokens (DPDP s.6(4): withdrawing must be as easy as giving). A principal who consented
// offline (a signed device session, a QR link, a POS confirmation, an IVR call) has no account to
// sign in with; the token printed on their slip or read out to them is what withdraws the consent.
// High-entropy and random, so it is stored as its SHA-256 (like API keys), never in the clear.
import type { Queryable } from "../../db/database.js";
import { randomBase62 } from "../../lib/ids.js";
import { sha256Hex } from "../../lib/secrets.js";
import { findTokenConsents, insertWithdrawalToken, insertWithdrawalTokens } from "./store.js";

const TOKEN_PREFIX = "wdt_";

/**
 * Mints one withdrawal token for the consents (one capture may give several, one per purpose) in
 * the caller's transaction and returns it; it is shown once. `consentIds` must not be empty.
 */
export async function issueWithdrawalToken(
  tx: Queryable,
  consents: { organizationId: string; consentIds: readonly string[] },
  now: number,
): Promise<string> {
  if (consents.consentIds.length === 0) throw new Error("a withdrawal token needs at least one consent");
  // 32 base62 characters: about 190 bits, out of reach of guessing.
  const token = `${TOKEN_PREFIX}${randomBase62(32)}`;
  await insertWithdrawalToken(tx, { ...consents, tokenHash: sha256Hex(token), issuedAt: now });
  return token;
}

/**
 * Mints one token per entry of `batch` (each for its consents, none empty) in one statement, in the
 * caller's transaction; returns them in the order given. For a synced batch of offline captures.
 */
export async function issueWithdrawalTokens(
  tx: Queryable,
  batch: readonly { organizationId: string; consentIds: readonly string[] }[],
  now: number,
): Promise<string[]> {
  if (batch.some((consents) => consents.consentIds.length === 0)) {
    throw new Error("a withdrawal token needs at least one consent");
  }
  const tokens = batch.map(() => `${TOKEN_PREFIX}${randomBase62(32)}`);
  await insertWithdrawalTokens(
    tx,
    batch.map((consents, i) => ({ ...consents, tokenHash: sha256Hex(tokens[i]!), issuedAt: now })),
  );
  return tokens;
}

/** The consents a presented token withdraws; undefined when the token is unknown or malformed. */
export async function resolveWithdrawalToken(
  db: Queryable,
  token: string,
): Promise<{ organizationId: string; consentIds: string[] } | undefined> {
  if (!isWithdrawalTokenShaped(token)) return undefined;
  return findTokenConsents(db, sha256Hex(token));
}

/** True when `token` has the shape of a withdrawal token (checked before any lookup). */
export const isWithdrawalTokenShaped = (token: string): boolean => /^wdt_[0-9A-Za-z]{32}$/.test(token);
