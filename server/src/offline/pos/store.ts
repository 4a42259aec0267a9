// pos_consent_requests: point-of-sale consent requests. The only code that touches the table.
// Rows are never deleted; every status change is a guarded UPDATE (`WHERE status = <the status it
// leaves>`), so two answers racing for one request cannot both apply.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";
import type { SortKey } from "../../lib/paging.js";

export const POS_REQUEST_STATUSES = ["pending", "confirmed", "declined", "expired", "closed"] as const;
export type PosRequestStatus = (typeof POS_REQUEST_STATUSES)[number];

export interface PosRequest {
  organizationId: string;
  requestId: string;
  noticeId: string;
  /** The notice version published when the till asked. */
  noticeVersion: number;
  purpose: string;
  dataTypes: string[];
  phoneHash: string;
  status: PosRequestStatus;
  createdAt: number;
  expiresAt: number;
  answeredAt: number | null;
  consentId: string | null;
  /** The withdrawal token issued with the consent, sealed (offline/pos/requests.ts). */
  withdrawalTokenSealed: string | null;
  /** The API key the till called with. */
  createdBy: string;
  closedBy: string | null;
  closedAt: number | null;
  closeNote: string | null;
}

const COLUMNS = [
  "organization_id",
  "request_id",
  "notice_id",
  "notice_version",
  "purpose",
  "data_types",
  "phone_hash",
  "status",
  "created_at",
  "expires_at",
  "answered_at",
  "consent_id",
  "withdrawal_token_sealed",
  "created_by",
  "closed_by",
  "closed_at",
  "close_note",
] as const;

type StoredRow = {
  organization_id: string;
  request_id: string;
  notice_id: string;
  notice_version: number;
  purpose: string;
  data_types: unknown;
  phone_hash: string;
  status: string;
  created_at: number;
  expires_at: number;
  answered_at: number | null;
  consent_id: string | null;
  withdrawal_token_sealed: string | null;
  created_by: string;
  closed_by: string | null;
  closed_at: number | null;
  close_note: string | null;
};

// Only this module writes these columns, from the types they are read back as.
const fromRow = (row: StoredRow): PosRequest => ({
  organizationId: row.organization_id,
  requestId: row.request_id,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version,
  purpose: row.purpose,
  dataTypes: row.data_types as string[],
  phoneHash: row.phone_hash,
  status: row.status as PosRequestStatus,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  answeredAt: row.answered_at,
  consentId: row.consent_id,
  withdrawalTokenSealed: row.withdrawal_token_sealed,
  createdBy: row.created_by,
  closedBy: row.closed_by,
  closedAt: row.closed_at,
  closeNote: row.close_note,
});

export async function insertPosRequest(
  tx: Queryable,
  request: Omit<
    PosRequest,
    "status" | "answeredAt" | "consentId" | "withdrawalTokenSealed" | "closedBy" | "closedAt" | "closeNote"
  >,
  tokenHash: string,
): Promise<void> {
  await rows(
    tx,
    qb.insertInto("pos_consent_requests").values({
      organization_id: request.organizationId,
      request_id: request.requestId,
      token_hash: tokenHash,
      notice_id: request.noticeId,
      notice_version: request.noticeVersion,
      purpose: request.purpose,
      data_types: JSON.stringify(request.dataTypes),
      phone_hash: request.phoneHash,
      status: "pending",
      created_at: request.createdAt,
      expires_at: request.expiresAt,
      created_by: request.createdBy,
    }),
  );
}

/** The request a token stands for, by the token's hash; `lock` takes its row for an answer. */
export async function findPosRequestByTokenHash(
  db: Queryable,
  tokenHash: string,
  options: { lock?: boolean } = {},
): Promise<PosRequest | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("pos_consent_requests")
      .select(COLUMNS)
      .where("token_hash", "=", tokenHash)
      .$if(options.lock === true, (q) => q.forUpdate()),
  );
  return row && fromRow(row);
}

export async function findPosRequest(
  db: Queryable,
  organizationId: string,
  requestId: string,
  options: { lock?: boolean } = {},
): Promise<PosRequest | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("pos_consent_requests")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("request_id", "=", requestId)
      .$if(options.lock === true, (q) => q.forUpdate()),
  );
  return row && fromRow(row);
}

/** Records the customer's answer on a pending request; false when it is no longer pending. */
export async function markPosRequestAnswered(
  tx: Queryable,
  organizationId: string,
  requestId: string,
  answer:
    | { status: "confirmed"; consentId: string; withdrawalTokenSealed: string; at: number }
    | { status: "declined"; at: number },
): Promise<boolean> {
  const updated = await rows(
    tx,
    qb
      .updateTable("pos_consent_requests")
      .set({
        status: answer.status,
        answered_at: answer.at,
        consent_id: answer.status === "confirmed" ? answer.consentId : null,
        withdrawal_token_sealed: answer.status === "confirmed" ? answer.withdrawalTokenSealed : null,
      })
      .where("organization_id", "=", organizationId)
      .where("request_id", "=", requestId)
      .where("status", "=", "pending")
      .returning("request_id"),
  );
  return updated.length > 0;
}

/** Marks one pending request expired (its deadline passed); false when it is no longer pending. */
export async function markPosRequestExpired(
  tx: Queryable,
  organizationId: string,
  requestId: string,
  now: number,
): Promise<boolean> {
  const updated = await rows(
    tx,
    qb
      .updateTable("pos_consent_requests")
      .set({ status: "expired" })
      .where("organization_id", "=", organizationId)
      .where("request_id", "=", requestId)
      .where("status", "=", "pending")
      .where("expires_at", "<", now)
      .returning("request_id"),
  );
  return updated.length > 0;
}

/**
 * Claims up to `limit` pending requests (of every organisation) whose deadline passed before `now`
 * by marking them expired, and returns them. SKIP LOCKED: several instances sweep at once without
 * waiting on each other, and a request a customer is answering right now (its row locked) is left
 * to that answer; if the answer finds it past its deadline it expires it itself.
 */
export async function claimExpiredPosRequests(
  tx: Queryable,
  now: number,
  limit: number,
): Promise<PosRequest[]> {
  const due = qb
    .selectFrom("pos_consent_requests")
    .select(["organization_id", "request_id"])
    .where("status", "=", "pending")
    .where("expires_at", "<", now)
    .orderBy("expires_at")
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const claimed = await rows(
    tx,
    qb
      .updateTable("pos_consent_requests")
      .set({ status: "expired" })
      .where(({ eb, refTuple }) =>
        eb(refTuple("organization_id", "request_id"), "in", due.$asTuple("organization_id", "request_id")),
      )
      .returning(COLUMNS),
  );
  return claimed.map(fromRow);
}

/** Closes an expired request with who and why; false when it is not (or no longer) expired. */
export async function markPosRequestClosed(
  tx: Queryable,
  organizationId: string,
  requestId: string,
  close: { by: string; at: number; note: string },
): Promise<PosRequest | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("pos_consent_requests")
      .set({ status: "closed", closed_by: close.by, closed_at: close.at, close_note: close.note })
      .where("organization_id", "=", organizationId)
      .where("request_id", "=", requestId)
      .where("status", "=", "expired")
      .returning(COLUMNS),
  );
  return row && fromRow(row);
}

/** The staff queue's order: deadline, then id (the key a cursor carries). */
export type PosQueueKey = readonly [number, string];
export const posQueueKey = (request: PosRequest): PosQueueKey => [request.expiresAt, request.requestId];

/** One organisation's requests of one status after `after` in queue order, at most `limit`. */
export async function listPosRequests(
  db: Queryable,
  organizationId: string,
  status: PosRequestStatus,
  after: SortKey | undefined,
  limit: number,
): Promise<PosRequest[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("pos_consent_requests")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("status", "=", status)
      .$if(after !== undefined, (q) =>
        q.where(({ eb, refTuple, tuple }) =>
          eb(refTuple("expires_at", "request_id"), ">", tuple(after![0] as number, after![1] as string)),
        ),
      )
      .orderBy("expires_at")
      .orderBy("request_id")
      .limit(limit),
  );
  return found.map(fromRow);
}

/** The organisation's requests with these ids, by id (audit verify, entry -> row). */
export async function posRequestsWithIds(
  db: Queryable,
  organizationId: string,
  requestIds: readonly string[],
): Promise<Map<string, PosRequest>> {
  if (requestIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("pos_consent_requests")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("request_id", "in", [...requestIds]),
  );
  return new Map(found.map((row) => [row.request_id, fromRow(row)]));
}

/** Up to `limit` requests with ids after `afterRequestId`, by id (audit verify's keyset scan). */
export async function scanPosRequests(
  db: Queryable,
  organizationId: string,
  afterRequestId: string,
  limit: number,
): Promise<PosRequest[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("pos_consent_requests")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("request_id", ">", afterRequestId)
      .orderBy("request_id")
      .limit(limit),
  );
  return found.map(fromRow);
}
