// Point-of-sale consent requests (DPDP ss.5-6 at a till): a till keys in the customer's phone
// number and asks for consent to one purpose; the receipt prints a link; the customer reads the
// notice and answers on their own phone. Rules:
//  - the request is not a consent: none exists until the customer confirms, and then exactly one
//    (a guarded status change from `pending` takes the request, so a second answer finds it taken);
//  - the phone number is kept only as its per-organisation keyed hash; the token the receipt
//    prints only as its SHA-256;
//  - a request is answerable for 72 hours; after that the clock, not the sweep, decides: an answer
//    arriving after the deadline expires the request itself;
//  - a confirmation consents to the notice version published when the customer confirms, which is
//    the one the page showed them (the form carries it; if the notice moved on in between, the page
//    is shown again with the new version instead of consenting). The request keeps the version
//    published when the till asked, the one the receipt refers to, as evidence;
//  - every step is on the audit chain: offline_pos.created, .confirmed, .declined, .expired, .closed.
import { appendAuditEntry } from "../../audit/chain.js";
import type { AuditKeys } from "../../audit/keys.js";
import { giveConsent, type ConsentNotice } from "../../consent/consents.js";
import type { Queryable } from "../../db/database.js";
import { Failure, notFound, validationError } from "../../lib/failure.js";
import { newId, randomBase62 } from "../../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../../lib/paging.js";
import { sha256Hex } from "../../lib/secrets.js";
import type { NoticeVersion } from "../../notices/notices.js";
import type { Config } from "../../config.js";
import { SecretBox } from "../../lib/secret-box.js";
import { normalizePhone, phoneHash } from "../phone-hash.js";
import { issueWithdrawalToken } from "../withdrawal/tokens.js";
import {
  claimExpiredPosRequests,
  findPosRequest,
  findPosRequestByTokenHash,
  insertPosRequest,
  listPosRequests,
  markPosRequestAnswered,
  markPosRequestClosed,
  markPosRequestExpired,
  posQueueKey,
  type PosRequest,
  type PosRequestStatus,
} from "./store.js";

/** How long a customer has to answer (contract: "Unanswered requests expire after 72 hours"). */
export const POS_REQUEST_TTL_MS = 72 * 3_600_000;

export interface PosDeps {
  auditKeys: AuditKeys;
  /** GUARD_SECRETS_KEY: keys the phone hash. */
  secretsKey: string;
  /** Seals the withdrawal token so the page can show it again (see the migration). */
  box: SecretBox;
}

/** The deps from the configuration (the API routes and the page share the recipe). */
export const posDeps = (config: Pick<Config, "auditKeys" | "secretsKey">): PosDeps => ({
  auditKeys: config.auditKeys,
  secretsKey: config.secretsKey,
  box: new SecretBox(config.secretsKey),
});

// 24 base62 characters: about 143 bits, out of reach of guessing within 72 hours however fast the
// page is probed, and short enough for a receipt's QR code.
const TOKEN_LENGTH = 24;

/** True when `token` has the shape of a POS token (checked before any lookup). */
export const isPosTokenShaped = (token: string): boolean => /^[0-9A-Za-z]{24}$/.test(token);

/** The guest who holds a confirmed request's consent: one per request, never a person's id. */
export const posHolderId = (requestId: string): string => `pos:${requestId}`;

/** The associated data the withdrawal token is sealed under: it opens only on its own row. */
const sealedTokenContext = (organizationId: string, requestId: string) =>
  `guard/offline/pos/withdrawal-token/v1\u0000${organizationId}\u0000${requestId}`;

export interface CreatedPosRequest {
  request: PosRequest;
  /** The token the receipt prints; returned once, never stored. */
  token: string;
}

/**
 * Records a pending request for `notice` (resolved by consent/consents.ts's resolveConsentNotice:
 * the organisation's, published, itemising the purpose). No consent is created.
 */
export async function createPosRequest(
  tx: Queryable,
  deps: PosDeps,
  input: {
    organizationId: string;
    apiKeyId: string;
    notice: ConsentNotice;
    dataTypes: string[];
    phone: string;
  },
  now: number,
): Promise<CreatedPosRequest> {
  // The contract's pattern already asks for a digit; the hash is of the digits, so say so here too.
  if (normalizePhone(input.phone) === "")
    throw validationError("phone", "phone must contain at least one digit");
  const token = randomBase62(TOKEN_LENGTH);
  const request: PosRequest = {
    organizationId: input.organizationId,
    requestId: newId("pos"),
    noticeId: input.notice.noticeId,
    noticeVersion: input.notice.version,
    purpose: input.notice.entry.purpose,
    dataTypes: input.dataTypes,
    phoneHash: phoneHash(deps.secretsKey, input.organizationId, input.phone),
    status: "pending",
    createdAt: now,
    expiresAt: now + POS_REQUEST_TTL_MS,
    answeredAt: null,
    consentId: null,
    withdrawalTokenSealed: null,
    createdBy: input.apiKeyId,
    closedBy: null,
    closedAt: null,
    closeNote: null,
  };
  await insertPosRequest(tx, request, sha256Hex(token));
  await appendAuditEntry(
    tx,
    {
      organizationId: request.organizationId,
      entryType: "offline_pos.created",
      subjectId: request.requestId,
      payload: {
        requestId: request.requestId,
        noticeId: request.noticeId,
        noticeVersion: request.noticeVersion,
        purpose: request.purpose,
        dataTypes: request.dataTypes,
        expiresAt: request.expiresAt,
        createdBy: request.createdBy,
      },
    },
    now,
  );
  return { request, token };
}

/** Whether the request's 72 hours are over at `now` (pending or not). */
export const isPastDeadline = (request: PosRequest, now: number): boolean => now > request.expiresAt;

/** The request a token stands for; undefined for an unknown or malformed token. */
export async function findPosRequestByToken(
  db: Queryable,
  token: string,
  options: { lock?: boolean } = {},
): Promise<PosRequest | undefined> {
  if (!isPosTokenShaped(token)) return undefined;
  return findPosRequestByTokenHash(db, sha256Hex(token), options);
}

/** The withdrawal token issued with a confirmed request's consent. */
export function withdrawalTokenOf(deps: PosDeps, request: PosRequest): string | undefined {
  if (request.withdrawalTokenSealed === null) return undefined;
  return deps.box.open(
    request.withdrawalTokenSealed,
    sealedTokenContext(request.organizationId, request.requestId),
  );
}

async function recordExpiry(tx: Queryable, request: PosRequest, by: "sweep" | "page" | "staff", now: number) {
  await appendAuditEntry(
    tx,
    {
      organizationId: request.organizationId,
      entryType: "offline_pos.expired",
      subjectId: request.requestId,
      payload: { requestId: request.requestId, expiresAt: request.expiresAt, detectedBy: by },
    },
    now,
  );
}

export type PosAnswerOutcome =
  | { outcome: "not_found" }
  /** Past its deadline (expired now, or earlier), or closed by staff: nothing was recorded. */
  | { outcome: "expired"; request: PosRequest }
  /** Answered before: the recorded answer, unchanged. */
  | { outcome: "already_answered"; request: PosRequest }
  /** The notice no longer has a published version itemising the purpose: nothing to consent to. */
  | { outcome: "notice_unavailable"; request: PosRequest }
  /** The published version is not the one the customer was shown: show it again. */
  | { outcome: "notice_changed"; request: PosRequest }
  | { outcome: "declined"; request: PosRequest }
  | { outcome: "confirmed"; request: PosRequest; withdrawalToken: string };

/**
 * The customer's answer, in `tx` (which should be its own transaction: the request's row is locked
 * until it commits). `shownVersion` is the notice version the page showed; `published` is the
 * notice's published version now (notices/notices.ts findPublishedNotice), undefined when none.
 */
export async function answerPosRequest(
  tx: Queryable,
  deps: PosDeps,
  input: {
    token: string;
    answer: "confirm" | "decline";
    shownVersion: number | undefined;
    published: (request: PosRequest) => Promise<NoticeVersion | undefined>;
  },
  now: number,
): Promise<PosAnswerOutcome> {
  const request = await findPosRequestByToken(tx, input.token, { lock: true });
  if (!request) return { outcome: "not_found" };
  if (request.status === "pending" && isPastDeadline(request, now)) {
    if (await markPosRequestExpired(tx, request.organizationId, request.requestId, now))
      await recordExpiry(tx, request, "page", now);
    return { outcome: "expired", request: { ...request, status: "expired" } };
  }
  if (request.status === "expired" || request.status === "closed") return { outcome: "expired", request };
  if (request.status !== "pending") return { outcome: "already_answered", request };

  if (input.answer === "decline") {
    await markPosRequestAnswered(tx, request.organizationId, request.requestId, {
      status: "declined",
      at: now,
    });
    await appendAuditEntry(
      tx,
      {
        organizationId: request.organizationId,
        entryType: "offline_pos.declined",
        subjectId: request.requestId,
        payload: { requestId: request.requestId, shownNoticeVersion: input.shownVersion ?? null },
      },
      now,
    );
    return { outcome: "declined", request: { ...request, status: "declined", answeredAt: now } };
  }

  const published = await input.published(request);
  if (!published || !published.itemized.some((item) => item.purpose === request.purpose))
    return { outcome: "notice_unavailable", request };
  if (published.version !== input.shownVersion) return { outcome: "notice_changed", request };

  const consent = await giveConsent(
    tx,
    deps,
    {
      organizationId: request.organizationId,
      holder: { kind: "guest", anonymousId: posHolderId(request.requestId) },
      notice: { noticeId: request.noticeId, version: published.version },
      purpose: request.purpose,
      dataTypes: request.dataTypes,
      source: "offline_pos",
    },
    now,
  );
  const withdrawalToken = await issueWithdrawalToken(
    tx,
    { organizationId: request.organizationId, consentIds: [consent.consentId] },
    now,
  );
  const withdrawalTokenSealed = deps.box.seal(
    withdrawalToken,
    sealedTokenContext(request.organizationId, request.requestId),
  );
  await markPosRequestAnswered(tx, request.organizationId, request.requestId, {
    status: "confirmed",
    consentId: consent.consentId,
    withdrawalTokenSealed,
    at: now,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: request.organizationId,
      entryType: "offline_pos.confirmed",
      subjectId: request.requestId,
      payload: {
        requestId: request.requestId,
        consentId: consent.consentId,
        requestedNoticeVersion: request.noticeVersion,
        noticeVersion: published.version,
      },
    },
    now,
  );
  return {
    outcome: "confirmed",
    request: {
      ...request,
      status: "confirmed",
      answeredAt: now,
      consentId: consent.consentId,
      withdrawalTokenSealed,
    },
    withdrawalToken,
  };
}

/**
 * Expires one batch of pending requests past their deadline (every organisation) and records each
 * on its chain, in `tx`; the number expired. Safe on several instances at once (SKIP LOCKED).
 */
export async function expireDuePosRequests(tx: Queryable, now: number, batch: number): Promise<number> {
  const expired = await claimExpiredPosRequests(tx, now, batch);
  for (const request of expired) await recordExpiry(tx, request, "sweep", now);
  return expired.length;
}

/** The wire shape (`PosConsentRequest`): never the phone hash, the token or the sealed token. */
export function posRequestToWire(request: PosRequest) {
  return {
    requestId: request.requestId,
    noticeId: request.noticeId,
    noticeVersion: request.noticeVersion,
    purpose: request.purpose,
    dataTypes: request.dataTypes,
    status: request.status,
    createdAt: request.createdAt,
    expiresAt: request.expiresAt,
    answeredAt: request.answeredAt,
    consentId: request.consentId,
    createdBy: request.createdBy,
    closedAt: request.closedAt,
    closedBy: request.closedBy,
    closeNote: request.closeNote,
  };
}

/** One page of the organisation's requests of `status`, earliest deadline first. */
export function listPosRequestsPage(
  db: Queryable,
  organizationId: string,
  status: PosRequestStatus,
  page: PageRequest,
): Promise<Page<PosRequest>> {
  return keysetPage(
    page,
    {
      scope: pageScope("listPosConsentRequests", organizationId, status),
      shape: ["number", "string"],
      keyOf: posQueueKey,
    },
    (after, limit) => listPosRequests(db, organizationId, status, after, limit),
  );
}

/**
 * Staff close an expired request with a note (who and why on the chain). 404 for an unknown
 * request or another organisation's; 409 unless it is expired.
 */
export async function closePosRequest(
  tx: Queryable,
  input: {
    organizationId: string;
    requestId: string;
    /** Who closes it: the staff id, or `cli:<OS user>` for `guard offline pos close`. */
    closedBy: string;
    note: string;
  },
  now: number,
): Promise<PosRequest> {
  const note = input.note.trim();
  if (note === "") throw validationError("note", "note must not be only whitespace");
  const found = await findPosRequest(tx, input.organizationId, input.requestId, { lock: true });
  if (!found) throw notFound("No such POS request in this organisation");
  let request = found;
  // Past its deadline but not yet swept: the clock decides, so it is expired now.
  if (request.status === "pending" && isPastDeadline(request, now)) {
    if (await markPosRequestExpired(tx, request.organizationId, request.requestId, now))
      await recordExpiry(tx, request, "staff", now);
    request = { ...request, status: "expired" };
  }
  if (request.status !== "expired") {
    throw new Failure("CONFLICT", `Only an expired request can be closed; this one is ${request.status}`);
  }
  const closed = await markPosRequestClosed(tx, input.organizationId, input.requestId, {
    by: input.closedBy,
    at: now,
    note,
  });
  if (!closed) throw new Failure("CONFLICT", "The request changed meanwhile; it is no longer expired");
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: "offline_pos.closed",
      subjectId: input.requestId,
      payload: { requestId: input.requestId, closedBy: input.closedBy, note },
    },
    now,
  );
  return closed;
}
