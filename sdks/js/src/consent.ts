// hasConsent: the family's pure helper (conformance/README.md "Pure helpers"). It checks records the
// page already holds; a decision that must see a withdrawal made a second ago belongs on a server.

/** The part of a consent record this check reads (an anonymous consent, a consent-status entry, …). */
export interface ConsentLike {
  purpose: string;
  withdrawnAt?: number | null;
}

/** True when some record has exactly `purpose` (case-sensitive) and no `withdrawnAt`. */
export function hasConsent(consents: readonly ConsentLike[], purpose: string): boolean {
  return consents.some((consent) => consent.purpose === purpose && consent.withdrawnAt == null);
}
