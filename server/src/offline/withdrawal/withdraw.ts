// Withdrawal by token: the rule behind `POST /api/v1/offline/withdrawals` and the `/withdraw` page.
// The token is the proof (whoever holds the slip may withdraw, as whoever stood at the counter gave
// consent). Every consent the token stands for is withdrawn through the consent domain's own
// withdrawConsent, in the caller's one transaction, so the consent events and `consent.withdrawn`
// webhooks are exactly those of any withdrawal. Withdrawing again changes nothing and says so.
import { findOrganizationById } from "../../accounts/store.js";
import { withdrawConsent } from "../../consent/consents.js";
import { findConsent } from "../../consent/model.js";
import type { Queryable } from "../../db/database.js";
import { resolveWithdrawalToken } from "./tokens.js";

export interface WithdrawnConsent {
  consentId: string;
  purpose: string;
  noticeId: string;
  withdrawnAt: number;
}

export interface TokenWithdrawal {
  /** The consents this call withdrew. */
  withdrawn: WithdrawnConsent[];
  /** The token's consents that were withdrawn before (by this token or any other way). */
  alreadyWithdrawn: string[];
}

/**
 * Withdraws every consent `token` stands for, in `tx`; undefined when the token is unknown or
 * malformed (the caller answers both alike). Consents are locked in id order (the token's rows
 * are read in that order), so two withdrawals of one token never deadlock: the second waits and
 * then finds them withdrawn.
 */
export async function withdrawByToken(
  tx: Queryable,
  token: string,
  now: number,
): Promise<TokenWithdrawal | undefined> {
  const resolved = await resolveWithdrawalToken(tx, token);
  if (!resolved) return undefined;
  const result: TokenWithdrawal = { withdrawn: [], alreadyWithdrawn: [] };
  for (const consentId of resolved.consentIds) {
    const outcome = await withdrawConsent(tx, { organizationId: resolved.organizationId, consentId }, now);
    // The token's rows reference the consent (a foreign key) and consents are never deleted.
    if (outcome.outcome === "not_found")
      throw new Error(`withdrawal token names a missing consent ${consentId}`);
    if (outcome.outcome === "already_withdrawn") result.alreadyWithdrawn.push(consentId);
    else
      result.withdrawn.push({
        consentId,
        purpose: outcome.consent.purpose,
        noticeId: outcome.consent.noticeId,
        withdrawnAt: outcome.consent.withdrawnAt!,
      });
  }
  return result;
}

export interface TokenConsent {
  consentId: string;
  purpose: string;
  noticeId: string;
  givenAt: number;
  withdrawnAt: number | null;
}

/** What a token stands for, as the confirmation page shows it before anything is withdrawn. */
export interface TokenPreview {
  organizationName: string;
  consents: TokenConsent[];
}

/** The consents `token` stands for and their organisation's name; undefined for an unknown token. */
export async function previewWithdrawalToken(
  db: Queryable,
  token: string,
): Promise<TokenPreview | undefined> {
  const resolved = await resolveWithdrawalToken(db, token);
  if (!resolved) return undefined;
  const organization = await findOrganizationById(db, resolved.organizationId);
  const consents: TokenConsent[] = [];
  for (const consentId of resolved.consentIds) {
    const consent = await findConsent(db, resolved.organizationId, consentId);
    if (!consent) continue;
    consents.push({
      consentId,
      purpose: consent.purpose,
      noticeId: consent.noticeId,
      givenAt: consent.givenAt,
      withdrawnAt: consent.withdrawnAt,
    });
  }
  return { organizationName: organization?.name ?? "", consents };
}
