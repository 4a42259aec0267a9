// Consent rules and their SQL. Writers take the caller's transaction (`tx`) and record every change
// as a consent event (consent/events.ts) in it. Rules:
//  - a consent is given against the notice's published version, for a purpose the notice itemises;
//  - one active consent per (principal, notice, purpose), and per (guest, notice, purpose) while the
//    guest is unlinked: the same notice version again is ALREADY_CONSENTED; a newer version replaces
//    the old consent (closed as `reconsented`), which is how re-consent after a notice change works;
//  - withdrawal sets withdrawn_at and appends an event; nothing is ever deleted.
import { validateAuditFields } from "@guard/contract";
import { auditHashNow, type AuditKeys } from "../audit/keys.js";
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { isTrackingPurpose, isVerifiedChild, type ItemizedEntry } from "./children.js";
import { recordConsentEvent } from "./events.js";
import {
  auditInputOf,
  CONSENT_COLUMNS,
  CONSENT_FROM,
  toConsent,
  type Consent,
  type ConsentRow,
  type ConsentSource,
  type WithdrawalReason,
} from "./model.js";

export interface ConsentDeps {
  auditKeys: AuditKeys;
}

/**
 * Refuses what would make two different consents share one audit-hash canonical string (`|` in a
 * field, `,` in a data type, an empty data type, an unpaired surrogate), naming the field.
 */
export function assertAuditSafe(input: {
  organizationId: string;
  noticeId: string;
  purpose: string;
  dataTypes: readonly string[];
}): void {
  const [problem] = validateAuditFields({ ...input, noticeVersion: 1, givenAt: 0, source: null });
  if (problem) throw validationError(problem.field, `${problem.field} ${problem.reason}`);
}

export interface ConsentNotice {
  noticeId: string;
  version: number;
  /** The itemised entry of the purpose being consented to. */
  entry: ItemizedEntry;
}

/**
 * The notice version a new consent is given against: the notice must be the organisation's (else
 * 404, the same as absent), published (else NOTICE_NOT_PUBLISHED: draft, archived, or every version
 * superseded), and must itemise `purpose` (else VALIDATION_ERROR on `purpose`).
 */
export async function resolveConsentNotice(
  db: Queryable,
  organizationId: string,
  noticeId: string,
  purpose: string,
): Promise<ConsentNotice> {
  const rows = await db.query<{ version: number | null; itemized: ItemizedEntry[] | null }>(
    `SELECT v.version, v.itemized FROM notices n
       LEFT JOIN notice_versions v
         ON v.organization_id = n.organization_id AND v.notice_id = n.notice_id AND v.status = 'published'
      WHERE n.organization_id = $1 AND n.notice_id = $2`,
    [organizationId, noticeId],
  );
  const row = rows[0];
  if (!row) throw notFound("No such notice in this organisation");
  if (row.version === null || row.itemized === null) {
    throw new Failure("NOTICE_NOT_PUBLISHED", "The notice has no published version to consent to");
  }
  const entry = row.itemized.find((item) => item.purpose === purpose);
  if (!entry) {
    throw validationError("purpose", "purpose must be one of the purposes the notice itemises");
  }
  return { noticeId, version: row.version, entry };
}

export type ConsentHolder =
  | { kind: "principal"; principalId: string; externalId: string | null }
  | { kind: "guest"; anonymousId: string };

export interface GiveConsentInput {
  organizationId: string;
  holder: ConsentHolder;
  notice: { noticeId: string; version: number };
  purpose: string;
  dataTypes: string[];
  source: ConsentSource;
}

const holderClause = (holder: ConsentHolder) =>
  holder.kind === "principal"
    ? { sql: "c.principal_id = $2", value: holder.principalId }
    : { sql: "c.anonymous_id = $2 AND c.principal_id IS NULL", value: holder.anonymousId };

export async function giveConsent(
  tx: Queryable,
  deps: ConsentDeps,
  input: GiveConsentInput,
  now: number,
): Promise<Consent> {
  const alreadyConsented = () =>
    new Failure("ALREADY_CONSENTED", "An active consent exists for this notice and purpose");
  const holder = holderClause(input.holder);
  const [active] = await tx.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND ${holder.sql} AND c.notice_id = $3 AND c.purpose = $4
        AND c.withdrawn_at IS NULL
      FOR UPDATE OF c`,
    [input.organizationId, holder.value, input.notice.noticeId, input.purpose],
  );
  if (active) {
    if (active.notice_version === input.notice.version) throw alreadyConsented();
    await closeConsent(tx, toConsent(active), "reconsented", now);
  }

  const consentId = newId("cns");
  const fields = {
    organizationId: input.organizationId,
    noticeId: input.notice.noticeId,
    noticeVersion: input.notice.version,
    purpose: input.purpose,
    dataTypes: input.dataTypes,
    givenAt: now,
    source: input.source,
  };
  const hash = auditHashNow(deps.auditKeys, auditInputOf(fields));
  const principalId = input.holder.kind === "principal" ? input.holder.principalId : null;
  const anonymousId = input.holder.kind === "guest" ? input.holder.anonymousId : null;
  // A concurrent first consent for the same key loses here, on the partial unique index.
  const inserted = await tx.query(
    `INSERT INTO consents
       (organization_id, consent_id, principal_id, anonymous_id, notice_id, notice_version, purpose,
        data_types, source, given_at, audit_hash, audit_key_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11, $12)
     ON CONFLICT DO NOTHING RETURNING consent_id`,
    [
      input.organizationId,
      consentId,
      principalId,
      anonymousId,
      fields.noticeId,
      fields.noticeVersion,
      fields.purpose,
      JSON.stringify(fields.dataTypes),
      fields.source,
      now,
      hash.auditHash,
      hash.auditKeyVersion,
    ],
  );
  if (inserted.length === 0) throw alreadyConsented();
  const consent: Consent = {
    ...fields,
    consentId,
    principalId,
    externalId: input.holder.kind === "principal" ? input.holder.externalId : null,
    anonymousId,
    withdrawnAt: null,
    withdrawalReason: null,
    ...hash,
  };
  await recordConsentEvent(tx, consent, "given", now);
  return consent;
}

/** Marks an active consent withdrawn and records the event; returns the consent as it now stands. */
async function closeConsent(
  tx: Queryable,
  consent: Consent,
  reason: WithdrawalReason,
  now: number,
): Promise<Consent> {
  await tx.query(
    `UPDATE consents SET withdrawn_at = $3, withdrawal_reason = $4
      WHERE organization_id = $1 AND consent_id = $2 AND withdrawn_at IS NULL`,
    [consent.organizationId, consent.consentId, now, reason],
  );
  const closed: Consent = { ...consent, withdrawnAt: now, withdrawalReason: reason };
  await recordConsentEvent(tx, closed, "withdrawn", now);
  return closed;
}

export type WithdrawOutcome =
  | { outcome: "withdrawn"; consent: Consent }
  | { outcome: "already_withdrawn"; consent: Consent }
  | { outcome: "not_found" };

/** The principal's (or the fiduciary's on their behalf) withdrawal of one consent. */
export async function withdrawConsent(
  tx: Queryable,
  input: { organizationId: string; consentId: string },
  now: number,
): Promise<WithdrawOutcome> {
  const [row] = await tx.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND c.consent_id = $2 FOR UPDATE OF c`,
    [input.organizationId, input.consentId],
  );
  if (!row) return { outcome: "not_found" };
  const consent = toConsent(row);
  if (consent.withdrawnAt !== null) return { outcome: "already_withdrawn", consent };
  return { outcome: "withdrawn", consent: await closeConsent(tx, consent, "principal_request", now) };
}

/** The itemised entry of `purpose` in one notice version (undefined if that version lacks it). */
async function itemizedEntryOf(
  tx: Queryable,
  consent: Pick<Consent, "organizationId" | "noticeId" | "noticeVersion" | "purpose">,
): Promise<ItemizedEntry | undefined> {
  const [row] = await tx.query<{ itemized: ItemizedEntry[] }>(
    "SELECT itemized FROM notice_versions WHERE organization_id = $1 AND notice_id = $2 AND version = $3",
    [consent.organizationId, consent.noticeId, consent.noticeVersion],
  );
  return row?.itemized.find((item) => item.purpose === consent.purpose);
}

async function isBlockedTracking(tx: Queryable, consent: Consent): Promise<boolean> {
  return isTrackingPurpose((await itemizedEntryOf(tx, consent)) ?? { purpose: consent.purpose });
}

export interface LinkResult {
  linkedCount: number;
  needsReconsent: { noticeId: string; purpose: string }[];
}

/**
 * Moves a guest's consents to the principal (source `linked`, re-hashed). Safe to repeat: only
 * consents still held by the guest move, and they are locked, so a concurrent second link of the
 * same guest waits and then finds nothing left to move.
 */
export async function linkAnonymousConsents(
  tx: Queryable,
  deps: ConsentDeps,
  input: {
    organizationId: string;
    principalId: string;
    externalId: string;
    anonymousId: string;
    blockTrackingForChildren: boolean;
  },
  now: number,
): Promise<LinkResult> {
  const rows = await tx.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND c.anonymous_id = $2 AND c.principal_id IS NULL
      ORDER BY c.given_at, c.consent_id FOR UPDATE OF c`,
    [input.organizationId, input.anonymousId],
  );
  const child =
    rows.length > 0 &&
    input.blockTrackingForChildren &&
    (await isVerifiedChild(tx, input.organizationId, input.principalId));
  for (const row of rows) {
    let consent = toConsent(row);
    if (consent.withdrawnAt === null) {
      // Closed while still the guest's, so the principal never holds two active consents at once.
      const [held] = await tx.query(
        `SELECT 1 FROM consents WHERE organization_id = $1 AND principal_id = $2 AND notice_id = $3
            AND purpose = $4 AND withdrawn_at IS NULL FOR UPDATE`,
        [input.organizationId, input.principalId, consent.noticeId, consent.purpose],
      );
      if (held) consent = await closeConsent(tx, consent, "superseded_on_link", now);
      else if (child && (await isBlockedTracking(tx, consent)))
        consent = await closeConsent(tx, consent, "minor_tracking_blocked", now);
    }
    const hash = auditHashNow(deps.auditKeys, auditInputOf({ ...consent, source: "linked" }));
    await tx.query(
      `UPDATE consents SET principal_id = $3, source = 'linked', audit_hash = $4, audit_key_version = $5
        WHERE organization_id = $1 AND consent_id = $2`,
      [consent.organizationId, consent.consentId, input.principalId, hash.auditHash, hash.auditKeyVersion],
    );
    const linked: Consent = {
      ...consent,
      principalId: input.principalId,
      externalId: input.externalId,
      source: "linked",
      ...hash,
    };
    await recordConsentEvent(tx, linked, "linked", now);
  }
  const stale = await tx.query<{ notice_id: string; purpose: string }>(
    `SELECT DISTINCT c.notice_id, c.purpose FROM consents c
       JOIN notice_versions v
         ON v.organization_id = c.organization_id AND v.notice_id = c.notice_id AND v.status = 'published'
      WHERE c.organization_id = $1 AND c.principal_id = $2 AND c.anonymous_id = $3 AND c.source = 'linked'
        AND c.withdrawn_at IS NULL AND v.version <> c.notice_version
      ORDER BY c.notice_id, c.purpose`,
    [input.organizationId, input.principalId, input.anonymousId],
  );
  return {
    linkedCount: rows.length,
    needsReconsent: stale.map((r) => ({ noticeId: r.notice_id, purpose: r.purpose })),
  };
}

/**
 * Closes the principal's active tracking consents (reason `minor_tracking_blocked`): run when the
 * principal has just been verified as a child at an organisation that blocks tracking for children.
 */
export async function closeTrackingConsentsOfChild(
  tx: Queryable,
  input: { organizationId: string; principalId: string },
  now: number,
): Promise<number> {
  const rows = await tx.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND c.principal_id = $2 AND c.withdrawn_at IS NULL
      ORDER BY c.given_at, c.consent_id FOR UPDATE OF c`,
    [input.organizationId, input.principalId],
  );
  let closed = 0;
  for (const row of rows) {
    const consent = toConsent(row);
    if (!(await isBlockedTracking(tx, consent))) continue;
    await closeConsent(tx, consent, "minor_tracking_blocked", now);
    closed += 1;
  }
  return closed;
}

/** Every consent of a principal at the organisation, newest first. */
export async function listConsentsOfPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<Consent[]> {
  const rows = await db.query<ConsentRow>(
    `SELECT ${CONSENT_COLUMNS} FROM ${CONSENT_FROM}
      WHERE c.organization_id = $1 AND c.principal_id = $2 ORDER BY c.given_at DESC, c.consent_id DESC`,
    [organizationId, principalId],
  );
  return rows.map(toConsent);
}
