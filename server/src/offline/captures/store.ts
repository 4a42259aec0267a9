// offline_capture_sessions: every synced capture session, whatever its outcome (migration 0096). The
// only code that touches the table; captures.ts holds the rules. A batch's sessions are written,
// finished (consent ids, sealed token, chain entry), in one multi-row statement, so a 200-session
// sync is not 400 round trips.
import { createHash } from "node:crypto";
import type { Queryable } from "../../db/database.js";
import { first, qb, rows, sql } from "../../db/query.js";
import { canonicalJson } from "../../lib/canonical-json.js";

export const CAPTURE_STATUSES = ["verified", "quarantined", "rejected"] as const;
export type CaptureStatus = (typeof CAPTURE_STATUSES)[number];
export type CaptureReason =
  | "unknown_device"
  | "device_revoked"
  | "signature_mismatch"
  | "clock_skew"
  | "notice_unpublished"
  | "notice_superseded"
  | "invalid_session";
export const REVIEW_STATUSES = ["released", "rejected_by_staff"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** A purpose shown to the principal, as the device sent it. */
export interface StoredGrant {
  purposeKey: string;
  status: string;
  purposeLabel?: string;
  category?: string;
}

export interface CaptureRecord {
  organizationId: string;
  sessionId: string;
  clientSessionId: string;
  deviceId: string;
  status: CaptureStatus;
  reason: CaptureReason | null;
  reviewStatus: ReviewStatus | null;
  reviewedBy: string | null;
  reviewedAt: number | null;
  reviewNote: string | null;
  noticeId: string | null;
  noticeVersion: number | null;
  noticeLocale: string | null;
  channel: string | null;
  capturedAtClient: number | null;
  receivedAt: number;
  purposeGrants: StoredGrant[];
  dataTypes: string[];
  principalHandleKind: string | null;
  /** For kind `phone_hash`, the organisation's keyed hash of the number (never the number). */
  principalHandleValue: string | null;
  deviceSignature: string;
  linkId: string | null;
  canonicalSha256: string | null;
  consentIds: string[];
  withdrawalTokenSealed: string | null;
  auditRef: number | null;
}

/** The columns of a newly synced session, its consents and chain entry included. */
export type NewCapture = Omit<CaptureRecord, "reviewStatus" | "reviewedBy" | "reviewedAt" | "reviewNote">;

type CaptureRow = {
  organization_id: string;
  session_id: string;
  client_session_id: string;
  device_id: string;
  status: string;
  reason: string | null;
  review_status: string | null;
  reviewed_by: string | null;
  reviewed_at: number | null;
  review_note: string | null;
  notice_id: string | null;
  notice_version: number | null;
  notice_locale: string | null;
  channel: string | null;
  captured_at_client: number | null;
  received_at: number;
  purpose_grants: unknown;
  data_types: unknown;
  principal_handle_kind: string | null;
  principal_handle_value: string | null;
  device_signature: string;
  link_id: string | null;
  canonical_sha256: string | null;
  consent_ids: unknown;
  withdrawal_token_sealed: string | null;
  audit_ref: number | null;
};

const recordOf = (row: CaptureRow): CaptureRecord => ({
  organizationId: row.organization_id,
  sessionId: row.session_id,
  clientSessionId: row.client_session_id,
  deviceId: row.device_id,
  status: row.status as CaptureStatus,
  reason: row.reason as CaptureReason | null,
  reviewStatus: row.review_status as ReviewStatus | null,
  reviewedBy: row.reviewed_by,
  reviewedAt: row.reviewed_at === null ? null : Number(row.reviewed_at),
  reviewNote: row.review_note,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version === null ? null : Number(row.notice_version),
  noticeLocale: row.notice_locale,
  channel: row.channel,
  capturedAtClient: row.captured_at_client === null ? null : Number(row.captured_at_client),
  receivedAt: Number(row.received_at),
  purposeGrants: row.purpose_grants as StoredGrant[],
  dataTypes: row.data_types as string[],
  principalHandleKind: row.principal_handle_kind,
  principalHandleValue: row.principal_handle_value,
  deviceSignature: row.device_signature,
  linkId: row.link_id,
  canonicalSha256: row.canonical_sha256,
  consentIds: row.consent_ids as string[],
  withdrawalTokenSealed: row.withdrawal_token_sealed,
  auditRef: row.audit_ref === null ? null : Number(row.audit_ref),
});

/**
 * Inserts the sessions whose client id the organisation has not stored yet, in one statement, and
 * returns how many it inserted. ON CONFLICT on the client-id index settles a
 * concurrent sync of the same session: it waits there for the first to commit, then inserts
 * nothing. Callers pass the rows sorted by client id, so two overlapping batches take the index
 * entries in one order (no deadlock).
 */
export async function insertCaptures(tx: Queryable, captures: readonly NewCapture[]): Promise<number> {
  if (captures.length === 0) return 0;
  const inserted = await rows(
    tx,
    qb
      .insertInto("offline_capture_sessions")
      .values(
        captures.map((c) => ({
          organization_id: c.organizationId,
          session_id: c.sessionId,
          client_session_id: c.clientSessionId,
          device_id: c.deviceId,
          status: c.status,
          reason: c.reason,
          notice_id: c.noticeId,
          notice_version: c.noticeVersion,
          notice_locale: c.noticeLocale,
          channel: c.channel,
          captured_at_client: c.capturedAtClient,
          received_at: c.receivedAt,
          purpose_grants: JSON.stringify(c.purposeGrants),
          data_types: JSON.stringify(c.dataTypes),
          principal_handle_kind: c.principalHandleKind,
          principal_handle_value: c.principalHandleValue,
          device_signature: c.deviceSignature,
          link_id: c.linkId,
          canonical_sha256: c.canonicalSha256,
          consent_ids: JSON.stringify(c.consentIds),
          withdrawal_token_sealed: c.withdrawalTokenSealed,
          audit_ref: c.auditRef,
        })),
      )
      .onConflict((oc) => oc.columns(["organization_id", "client_session_id"]).doNothing())
      .returning("session_id"),
  );
  return inserted.length;
}

/** The organisation's stored sessions with these client ids (a re-sync's first results). */
export async function findCapturesByClientIds(
  db: Queryable,
  organizationId: string,
  clientSessionIds: readonly string[],
): Promise<CaptureRecord[]> {
  if (clientSessionIds.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("offline_capture_sessions")
      .selectAll()
      .where("organization_id", "=", organizationId)
      // One array parameter, not an IN list of up to 200: one statement text to parse and plan.
      .where("client_session_id", "=", sql<string>`any(${[...clientSessionIds]}::text[])`),
  );
  return found.map(recordOf);
}

/** One stored session, locked for a review (FOR UPDATE: two reviews of it run one after the other). */
export async function lockCapture(
  tx: Queryable,
  organizationId: string,
  sessionId: string,
): Promise<CaptureRecord | undefined> {
  const row = await first(
    tx,
    qb
      .selectFrom("offline_capture_sessions")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("session_id", "=", sessionId)
      .forUpdate(),
  );
  return row && recordOf(row);
}

/** Records a staff review of a quarantined session (and, for a release, the consents it gave). */
export async function markCaptureReviewed(
  tx: Queryable,
  organizationId: string,
  sessionId: string,
  review: {
    reviewStatus: ReviewStatus;
    reviewedBy: string;
    reviewedAt: number;
    reviewNote: string;
    consentIds?: readonly string[];
    withdrawalTokenSealed?: string | null;
  },
): Promise<CaptureRecord> {
  let update = qb
    .updateTable("offline_capture_sessions")
    .set({
      review_status: review.reviewStatus,
      reviewed_by: review.reviewedBy,
      reviewed_at: review.reviewedAt,
      review_note: review.reviewNote,
    })
    .where("organization_id", "=", organizationId)
    .where("session_id", "=", sessionId);
  if (review.consentIds) {
    update = update.set({
      consent_ids: JSON.stringify(review.consentIds),
      withdrawal_token_sealed: review.withdrawalTokenSealed ?? null,
    });
  }
  const row = await first(tx, update.returningAll());
  if (!row) throw new Error(`capture session ${sessionId} vanished under its lock`);
  return recordOf(row);
}

/**
 * A page of the organisation's sessions, newest receipt first (received_at, then session_id, both
 * descending): those after `after` (the last row's key), at most `limit`.
 */
export async function listCaptures(
  db: Queryable,
  organizationId: string,
  read: {
    status?: CaptureStatus | undefined;
    reviewStatus?: ReviewStatus | "pending" | undefined;
    deviceId?: string | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<CaptureRecord[]> {
  let query = qb
    .selectFrom("offline_capture_sessions")
    .selectAll()
    .where("organization_id", "=", organizationId);
  if (read.status) query = query.where("status", "=", read.status);
  if (read.reviewStatus === "pending") query = query.where("review_status", "is", null);
  else if (read.reviewStatus) query = query.where("review_status", "=", read.reviewStatus);
  if (read.deviceId) query = query.where("device_id", "=", read.deviceId);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("received_at", "session_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("received_at", "desc").orderBy("session_id", "desc").limit(read.limit),
  );
  return found.map(recordOf);
}

/**
 * SHA-256 (hex) of what a session row holds as evidence beyond what its chain entry names (the
 * notice, grants, data types, handle, device clock, signature, link): the entry carries it, so
 * `guard audit verify` sees any of those columns changed. canonicalJson: one text per content.
 */
export function captureEvidenceSha256(
  capture: Pick<
    CaptureRecord,
    | "noticeId"
    | "noticeVersion"
    | "noticeLocale"
    | "channel"
    | "capturedAtClient"
    | "purposeGrants"
    | "dataTypes"
    | "principalHandleKind"
    | "principalHandleValue"
    | "deviceSignature"
    | "linkId"
  >,
): string {
  return createHash("sha256")
    .update(
      canonicalJson({
        noticeId: capture.noticeId,
        noticeVersion: capture.noticeVersion,
        noticeLocale: capture.noticeLocale,
        channel: capture.channel,
        capturedAtClient: capture.capturedAtClient,
        purposeGrants: capture.purposeGrants,
        dataTypes: capture.dataTypes,
        principalHandleKind: capture.principalHandleKind,
        principalHandleValue: capture.principalHandleValue,
        deviceSignature: capture.deviceSignature,
        linkId: capture.linkId,
      }),
      "utf8",
    )
    .digest("hex");
}

/** The organisation's sessions with these ids, by id (audit verify's entry -> row check). */
export async function capturesWithIds(
  db: Queryable,
  organizationId: string,
  sessionIds: readonly string[],
): Promise<Map<string, CaptureRecord>> {
  if (sessionIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("offline_capture_sessions")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("session_id", "in", [...sessionIds]),
  );
  return new Map(found.map((row) => [row.session_id, recordOf(row)]));
}

/** Up to `limit` sessions with ids after `afterSessionId`, by id (audit verify's keyset scan). */
export async function scanCaptures(
  db: Queryable,
  organizationId: string,
  afterSessionId: string,
  limit: number,
): Promise<CaptureRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("offline_capture_sessions")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("session_id", ">", afterSessionId)
      .orderBy("session_id")
      .limit(limit),
  );
  return found.map(recordOf);
}
