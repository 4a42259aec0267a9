// A consent as the consent domain passes it around, and how it is read from the database.
import type { AuditHashInput } from "@guard/contract";
import type { Queryable } from "../db/database.js";

export type ConsentSource = "brokered" | "direct" | "anonymous" | "linked";

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
  /** The principal's externalId (joined from principals), null for a guest's consent. */
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

export type ConsentRow = {
  organization_id: string;
  consent_id: string;
  principal_id: string | null;
  external_id: string | null;
  anonymous_id: string | null;
  notice_id: string;
  notice_version: number;
  purpose: string;
  data_types: string[];
  source: ConsentSource;
  given_at: number;
  withdrawn_at: number | null;
  withdrawal_reason: WithdrawalReason | null;
  audit_hash: string;
  audit_key_version: number;
};

/** Columns of `consents c LEFT JOIN principals p`, in ConsentRow's names. */
export const CONSENT_COLUMNS = `c.organization_id, c.consent_id, c.principal_id, p.external_id, c.anonymous_id,
  c.notice_id, c.notice_version, c.purpose, c.data_types, c.source, c.given_at, c.withdrawn_at,
  c.withdrawal_reason, c.audit_hash, c.audit_key_version`;

export const CONSENT_FROM = `consents c
  LEFT JOIN principals p ON p.organization_id = c.organization_id AND p.principal_id = c.principal_id`;

export const toConsent = (row: ConsentRow): Consent => ({
  organizationId: row.organization_id,
  consentId: row.consent_id,
  principalId: row.principal_id,
  externalId: row.external_id,
  anonymousId: row.anonymous_id,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version,
  purpose: row.purpose,
  dataTypes: row.data_types,
  source: row.source,
  givenAt: row.given_at,
  withdrawnAt: row.withdrawn_at,
  withdrawalReason: row.withdrawal_reason,
  auditHash: row.audit_hash,
  auditKeyVersion: row.audit_key_version,
});

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
  source: c.source,
});

export async function findConsent(
  db: Queryable,
  organizationId: string,
  consentId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Consent | undefined> {
  const rows = await db.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND c.consent_id = $2${options.forUpdate ? " FOR UPDATE OF c" : ""}`,
    [organizationId, consentId],
  );
  return rows[0] && toConsent(rows[0]);
}

/** `ConsentRecord` of contract 1.6.0, plus the additive noticeId and noticeVersion. */
export const CONSENT_RECORD_CONTEXT = "urn:guard:jsonld:consent-record:v1";

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
  };
}
