// A consent as the consent domain passes it around: as stored (store.ts) plus its holder's
// externalId, which the accounts domain keeps.
import { AUDIT_SOURCES, type AuditHashInput, type AuditSource } from "@guard/contract";
import { findPrincipalsByIds } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { findStoredConsent, type StoredConsent } from "./store.js";

export type ConsentSource =
  | "brokered"
  | "direct"
  | "anonymous"
  | "linked"
  // Offline and assisted capture (offline/): a signed device session, a QR link, a confirmed
  // point-of-sale request, an IVR acceptance. Outside the audit hash's source union (contract
  // specs/audit-hash.md), so their hash covers the source as absent (`null`).
  | "offline"
  | "offline_link"
  | "offline_pos"
  | "offline_ivr";

const AUDIT_HASHED_SOURCES: ReadonlySet<ConsentSource> = new Set(AUDIT_SOURCES);

/** Why a consent stopped being active. Only `principal_request` is the principal's own act. */
export type WithdrawalReason =
  | "principal_request"
  // A new consent for the same (principal or guest, notice, purpose) against a newer notice version.
  | "reconsented"
  // Linking found the principal already holding an active consent for the same notice and purpose.
  | "superseded_on_link"
  // The principal is a verified child and the purpose is tracking (DPDP s.9(3)).
  | "minor_tracking_blocked";

export interface Consent {
  organizationId: string;
  consentId: string;
  principalId: string | null;
  /** The principal's externalId (the accounts domain's), null for a guest's consent. */
  externalId: string | null;
  anonymousId: string | null;
  noticeId: string;
  noticeVersion: number;
  purpose: string;
  dataTypes: string[];
  source: ConsentSource;
  givenAt: number;
  withdrawnAt: number | null;
  withdrawalReason: WithdrawalReason | null;
  auditHash: string;
  auditKeyVersion: number;
}

/** The fields the contract audit hash covers. */
export const auditInputOf = (c: {
  organizationId: string;
  noticeId: string;
  noticeVersion: number;
  purpose: string;
  dataTypes: readonly string[];
  givenAt: number;
  source: ConsentSource;
}): AuditHashInput => ({
  organizationId: c.organizationId,
  noticeId: c.noticeId,
  noticeVersion: c.noticeVersion,
  purpose: c.purpose,
  dataTypes: c.dataTypes,
  givenAt: c.givenAt,
  source: AUDIT_HASHED_SOURCES.has(c.source) ? (c.source as AuditSource) : null,
});

/**
 * The consents with their holders' externalIds, read from the accounts domain in one go; a guest's
 * is null, and so is that of a principal that does not exist.
 */
export async function withExternalIds(
  db: Queryable,
  organizationId: string,
  consents: readonly StoredConsent[],
): Promise<Consent[]> {
  const principalIds = [...new Set(consents.flatMap((c) => (c.principalId === null ? [] : [c.principalId])))];
  const principals = await findPrincipalsByIds(
    db,
    principalIds.map((principalId) => ({ organizationId, principalId })),
  );
  const externalIds = new Map(principals.map((p) => [p.principalId, p.externalId]));
  return consents.map((consent) => ({
    ...consent,
    externalId: consent.principalId === null ? null : (externalIds.get(consent.principalId) ?? null),
  }));
}

/** The consent with its holder's externalId. */
export async function withExternalId(
  db: Queryable,
  organizationId: string,
  consent: StoredConsent,
): Promise<Consent> {
  const [withId] = await withExternalIds(db, organizationId, [consent]);
  return withId ?? { ...consent, externalId: null };
}

/** One consent of the organisation. */
export async function findConsent(
  db: Queryable,
  organizationId: string,
  consentId: string,
): Promise<Consent | undefined> {
  const stored = await findStoredConsent(db, organizationId, consentId);
  return stored && withExternalId(db, organizationId, stored);
}

/** `ConsentRecord` of contract 1.6.0, plus the additive noticeId and noticeVersion. */
const CONSENT_RECORD_CONTEXT = "urn:guard:jsonld:consent-record:v1";

export function consentRecordBody(consent: Consent) {
  return {
    "@context": CONSENT_RECORD_CONTEXT,
    consentId: consent.consentId,
    purpose: consent.purpose,
    dataTypes: consent.dataTypes,
    givenAt: consent.givenAt,
    withdrawnAt: consent.withdrawnAt,
    status: consent.withdrawnAt === null ? ("active" as const) : ("withdrawn" as const),
    noticeId: consent.noticeId,
    noticeVersion: consent.noticeVersion,
    ...consentEvidence(consent),
  };
}

/** What lets a fiduciary check a consent's evidence itself: its source and current audit hash. */
export function consentEvidence(consent: Pick<Consent, "source" | "auditHash" | "auditKeyVersion">) {
  return { source: consent.source, auditHash: consent.auditHash, auditKeyVersion: consent.auditKeyVersion };
}
