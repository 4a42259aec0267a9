// hasConsent: the 1.6.0 helper, unchanged. A pure check over records the caller already holds; for
// a decision that reflects a withdrawal made a second ago, ask the server (client.verifyConsent).

/** The part of a consent record this check reads (ConsentRecord, a consent-status entry, …). */
export interface ConsentLike {
  purpose: string;
  withdrawnAt?: number | null;
}

/** True when some record has exactly `purpose` (case-sensitive) and no `withdrawnAt`. */
export function hasConsent(consents: readonly ConsentLike[], purpose: string): boolean {
  return consents.some((consent) => consent.purpose === purpose && consent.withdrawnAt == null);
}
