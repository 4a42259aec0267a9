// Capture rules (statements in store.ts): verifying a synced batch of signed offline sessions, and
// the staff review of the quarantined ones. Rules:
//  - every session is judged on its own and stored whatever the outcome (evidence): a malformed
//    request never gets here (the contract schema answers 400), so each session gets a result;
//  - checks, first failure wins: not an artefact → rejected/invalid_session; device unknown in the
//    key's organisation → unknown_device; revoked → device_revoked; signature (over the string
//    built with the enrolment organisation) → signature_mismatch; device clock more than 7 days
//    from receipt → clock_skew; notice not the organisation's → invalid_session; nothing published
//    or the signed version never published → notice_unpublished; an older version than the one
//    published → notice_superseded; a grant for a purpose that version does not itemise →
//    invalid_session;
//  - a verified session gives one consent (source `offline`) per opt_in purpose, against the signed
//    version, given at receipt, and one withdrawal token for them all;
//  - the client session id is the idempotency key per organisation: a re-sync answers the first
//    result (same consents, same token) and writes nothing;
//  - only a session whose signature verified against an enrolled, unrevoked key at receipt can be
//    released by staff (clock_skew, notice_superseded): nothing a device sends creates a consent
//    without a valid signature.
import { appendAuditEntries, appendAuditEntry } from "../../audit/chain.js";
import { giveConsents, type ConsentDeps } from "../../consent/consents.js";
import type { Database, Queryable } from "../../db/database.js";
import { Failure, notFound, validationError } from "../../lib/failure.js";
import { newId } from "../../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../../lib/paging.js";
import { currentItemization } from "../../notices/published-cache.js";
import { versionItemization } from "../../notices/store.js";
import { enqueueEvents } from "../../webhooks/outbox.js";
import { SecretBox } from "../../lib/secret-box.js";
import { findDevice, type DeviceRecord } from "../devices/store.js";
import { phoneHash } from "../phone-hash.js";
import { issueWithdrawalToken, issueWithdrawalTokens } from "../withdrawal/tokens.js";
import {
  captureEvidenceSha256,
  findCapturesByClientIds,
  insertCaptures,
  listCaptures,
  lockCapture,
  markCaptureReviewed,
  type CaptureReason,
  type CaptureRecord,
  type CaptureStatus,
  type NewCapture,
  type ReviewStatus,
  type StoredGrant,
} from "./store.js";
import { artefactOf, verifyDeviceSignature, verifyDeviceSignatureInPool, type Artefact } from "./verify.js";

/** More than this between the device clock and receipt quarantines the session (`clock_skew`). */
export const MAX_CLOCK_SKEW_MS = 7 * 24 * 3_600_000;

/** A session as the contract's `OfflineCaptureSession` schema lets it through. */
export interface CaptureSessionInput {
  clientSessionId: string;
  deviceId: string;
  noticeId: string;
  noticeVersion: number;
  noticeLocale: string;
  channel: "qr" | "agent_app" | "pos" | "async_link" | "ivr";
  capturedAtClient: number;
  deviceSignature: string;
  dataTypes: string[];
  purposeGrants: {
    purposeKey: string;
    purposeLabel: string;
    category: "essential" | "non_essential";
    status: "opt_in" | "opt_out";
  }[];
  principalHandle?: { kind: "phone_hash" | "uhid" | "cbs_ref" | "none"; value: string };
  linkId?: string;
}

/** One session's answer (the contract's `OfflineCaptureResult`). */
export interface CaptureResult {
  clientSessionId: string;
  status: CaptureStatus;
  reason?: CaptureReason;
  consentId?: string;
  consentIds?: string[];
  withdrawalToken?: string;
}

export interface CaptureDeps extends ConsentDeps {
  secretsKey: string;
  /** Seals each withdrawal token into its session row, so a re-sync can answer it again. */
  box: SecretBox;
}

/** The deps from the configuration (the routes and `guard offline captures` share the recipe). */
export const captureDeps = (config: {
  auditKeys: ConsentDeps["auditKeys"];
  secretsKey: string;
}): CaptureDeps => ({
  auditKeys: config.auditKeys,
  secretsKey: config.secretsKey,
  box: new SecretBox(config.secretsKey),
});

/** Who reviews a quarantined session. */
export interface Reviewer {
  organizationId: string;
  /** The staff member's id, or `cli:<OS user>` for `guard offline captures` (stored as reviewedBy). */
  reviewerId: string;
}

/** Associated data of a sealed token: a ciphertext copied onto another session does not open. */
const sealingContext = (organizationId: string, sessionId: string) =>
  `offline-capture-withdrawal-token\n${organizationId}\n${sessionId}`;

const safeInteger = (value: number): number | null =>
  Number.isSafeInteger(value) && value >= 0 ? value : null;

/** UTF-8 byte order of purpose keys: the canonical form's order, so "purpose order" is one order everywhere. */
const byUtf8 = (a: string, b: string) => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));

/** The opted-in purposes of a session, in purpose order (the consents are given in this order). */
const optedIn = (grants: readonly StoredGrant[]): string[] =>
  grants
    .filter((grant) => grant.status === "opt_in")
    .map((grant) => grant.purposeKey)
    .sort(byUtf8);

/** The stored (and answered) result of a session. */
function resultOf(record: CaptureRecord, box: SecretBox): CaptureResult {
  if (record.status !== "verified") {
    return { clientSessionId: record.clientSessionId, status: record.status, reason: record.reason! };
  }
  const result: CaptureResult = {
    clientSessionId: record.clientSessionId,
    status: "verified",
    consentIds: record.consentIds,
  };
  if (record.consentIds[0] !== undefined) result.consentId = record.consentIds[0];
  if (record.withdrawalTokenSealed !== null) {
    result.withdrawalToken = box.open(
      record.withdrawalTokenSealed,
      sealingContext(record.organizationId, record.sessionId),
    );
  }
  return result;
}

/** A session on its way through the checks. */
interface Candidate {
  session: CaptureSessionInput;
  artefact: Artefact;
  /** Memo of the signature check, by the key fingerprint it was made with. */
  signature?: { keyFingerprint: string; valid: boolean };
}

/** Checks the session's signature on the thread pool ahead of the transaction, memoised for it. */
async function precheckSignature(candidate: Candidate, device: DeviceRecord): Promise<void> {
  if (!candidate.artefact.ok) return;
  const valid = await verifyDeviceSignatureInPool(
    device,
    candidate.artefact.canonical,
    candidate.session.deviceSignature,
  );
  candidate.signature = { keyFingerprint: device.keyFingerprint, valid };
}

/** The session's signature checked (once per key) against the device's key; the device is the key's organisation's. */
function signatureValid(candidate: Candidate, device: DeviceRecord): boolean {
  if (!candidate.artefact.ok) return false;
  if (candidate.signature?.keyFingerprint !== device.keyFingerprint) {
    candidate.signature = {
      keyFingerprint: device.keyFingerprint,
      valid: verifyDeviceSignature(device, candidate.artefact.canonical, candidate.session.deviceSignature),
    };
  }
  return candidate.signature.valid;
}

/** The outcome of one session's checks, and the notice version its consents would be given against. */
type Verdict = { status: "verified" } | { status: "quarantined" | "rejected"; reason: CaptureReason };

const quarantined = (reason: CaptureReason): Verdict => ({ status: "quarantined", reason });
const rejected: Verdict = { status: "rejected", reason: "invalid_session" };

/**
 * The notice checks, against what the organisation publishes now: undefined when they pass. Read
 * through the notices' per-instance cache (announced by every publish, in its transaction).
 */
async function noticeVerdict(
  db: Queryable,
  organizationId: string,
  session: CaptureSessionInput,
): Promise<Verdict | undefined> {
  const published = await currentItemization(db, organizationId, session.noticeId);
  if (published === undefined) return rejected; // not this organisation's notice
  if (published === null || session.noticeVersion > published.version)
    return quarantined("notice_unpublished");
  if (session.noticeVersion < published.version) return quarantined("notice_superseded");
  const itemized = new Set(published.itemized.map((item) => item.purpose));
  if (!session.purposeGrants.every((grant) => itemized.has(grant.purposeKey))) return rejected;
  return undefined;
}

async function verdictOf(
  db: Queryable,
  organizationId: string,
  candidate: Candidate,
  device: DeviceRecord | undefined,
  receivedAt: number,
): Promise<Verdict> {
  if (!candidate.artefact.ok) return rejected;
  if (!device) return quarantined("unknown_device");
  if (device.revokedAt !== null) return quarantined("device_revoked");
  if (!signatureValid(candidate, device)) return quarantined("signature_mismatch");
  if (Math.abs(candidate.session.capturedAtClient - receivedAt) > MAX_CLOCK_SKEW_MS)
    return quarantined("clock_skew");
  return (await noticeVerdict(db, organizationId, candidate.session)) ?? { status: "verified" };
}

/** The stored row of a session: what the device sent, a phone number only as its keyed hash. */
function judgedCapture(
  deps: CaptureDeps,
  organizationId: string,
  candidate: Candidate,
  verdict: Verdict,
  receivedAt: number,
): JudgedCapture {
  const { session, artefact } = candidate;
  const handle = session.principalHandle;
  return {
    organizationId,
    sessionId: newId("ocs"),
    clientSessionId: session.clientSessionId,
    deviceId: session.deviceId,
    status: verdict.status,
    reason: verdict.status === "verified" ? null : verdict.reason,
    noticeId: session.noticeId,
    // JSON integers beyond 2^53 - 1 (a rejected session's) are not stored as some other number.
    noticeVersion: safeInteger(session.noticeVersion),
    noticeLocale: session.noticeLocale,
    channel: session.channel,
    capturedAtClient: safeInteger(session.capturedAtClient),
    receivedAt,
    purposeGrants: session.purposeGrants.map((grant) => ({
      purposeKey: grant.purposeKey,
      purposeLabel: grant.purposeLabel,
      category: grant.category,
      status: grant.status,
    })),
    dataTypes: session.dataTypes,
    principalHandleKind: handle?.kind ?? null,
    principalHandleValue:
      handle === undefined
        ? null
        : handle.kind === "phone_hash"
          ? phoneHash(deps.secretsKey, organizationId, handle.value)
          : handle.value,
    deviceSignature: session.deviceSignature,
    linkId: session.linkId ?? null,
    canonicalSha256: artefact.ok ? artefact.canonicalSha256 : null,
  };
}

type ConsentSession = Pick<
  CaptureRecord,
  "organizationId" | "sessionId" | "noticeId" | "noticeVersion" | "dataTypes" | "purposeGrants"
>;

/** What one opted-in purpose of a session gives: a consent against the signed notice version. */
const consentInput = (capture: ConsentSession, purpose: string) => ({
  // The server's session id, not the device's: random and minted here, so no guest consent (whose
  // anonymous ids callers choose) can already hold this one.
  holder: { kind: "guest" as const, anonymousId: `offline:${capture.sessionId}` },
  notice: { noticeId: capture.noticeId!, version: capture.noticeVersion! },
  purpose,
  dataTypes: [...capture.dataTypes],
  source: "offline" as const,
});

/** Gives the session's consents, one per opt_in purpose in purpose order; their ids. */
async function giveOptedInConsents(
  tx: Queryable,
  deps: CaptureDeps,
  capture: ConsentSession,
  now: number,
): Promise<string[]> {
  const given = await giveConsents(
    tx,
    deps,
    capture.organizationId,
    optedIn(capture.purposeGrants).map((purpose) => consentInput(capture, purpose)),
    now,
  );
  return given.map((consent) => consent.consentId);
}

/**
 * Thrown inside a sync's transaction when another sync stored one of its sessions first: the
 * transaction rolls back, and the sync answers those sessions from their rows and tries the rest
 * again. Only concurrent re-syncs of one session get here.
 */
class StoredMeanwhile extends Error {}

/**
 * Verifies and stores a batch of sessions synced with the organisation's key; one result per
 * session, in order. One transaction for the batch: the device rows are read FOR SHARE in it, so a
 * revocation committing meanwhile waits for the batch (and one committed before is seen).
 */
export async function syncCaptures(
  db: Database,
  deps: CaptureDeps,
  organizationId: string,
  sessions: readonly CaptureSessionInput[],
  receivedAt: number,
): Promise<CaptureResult[]> {
  // The first occurrence of each client id answers for any later one in the batch.
  const firstIndex = new Map<string, number>();
  sessions.forEach((session, index) => {
    if (!firstIndex.has(session.clientSessionId)) firstIndex.set(session.clientSessionId, index);
  });
  const results = new Map<string, CaptureResult>();
  const answerStored = async (clientSessionIds: readonly string[]) => {
    for (const record of await findCapturesByClientIds(db, organizationId, clientSessionIds)) {
      results.set(record.clientSessionId, resultOf(record, deps.box));
    }
  };

  // Sessions already stored (a re-sync) are answered from their rows before any signature work.
  await answerStored([...firstIndex.keys()]);
  let candidates: Candidate[] = [];
  for (const [clientSessionId, index] of firstIndex) {
    if (results.has(clientSessionId)) continue;
    const session = sessions[index]!;
    candidates.push({ session, artefact: artefactOf(session, organizationId) });
  }
  if (candidates.length === 0) return sessions.map((session) => results.get(session.clientSessionId)!);

  // The signatures are checked before the transaction, against an unlocked read of the devices,
  // so the transaction does not hold its locks for the CPU work. Inside, the devices are read
  // again under a share lock; a key never changes for a device id, so the memo stays right, and a
  // revocation in between is seen there.
  const deviceIds = [...new Set(candidates.map((c) => c.session.deviceId))].sort();
  const checks: Promise<void>[] = [];
  for (const deviceId of deviceIds) {
    const device = await findDevice(db, organizationId, deviceId);
    if (!device || device.revokedAt !== null) continue;
    for (const candidate of candidates) {
      if (candidate.session.deviceId === deviceId) checks.push(precheckSignature(candidate, device));
    }
  }
  await Promise.all(checks);

  // Each retry follows a sync that stored at least one of these sessions first, and answers it
  // from its row: fewer candidates every time round.
  while (candidates.length > 0) {
    const pending = candidates;
    try {
      const answered = await db.transaction((tx) =>
        syncInTransaction(tx, deps, organizationId, pending, deviceIds, receivedAt),
      );
      for (const [clientSessionId, result] of answered) results.set(clientSessionId, result);
      break;
    } catch (error) {
      if (!(error instanceof StoredMeanwhile)) throw error;
      await answerStored(pending.map((candidate) => candidate.session.clientSessionId));
      candidates = pending.filter((candidate) => !results.has(candidate.session.clientSessionId));
    }
  }

  return sessions.map((session) => results.get(session.clientSessionId)!);
}

/** A judged session, before its consents, token and chain entry exist. */
type JudgedCapture = Omit<NewCapture, "consentIds" | "withdrawalTokenSealed" | "auditRef">;

/**
 * Judges and stores the candidates: their consents (one giveConsents for the batch: events, chain
 * entries and webhooks written as batches), withdrawal tokens, the sessions' chain entries and
 * quarantine events, then the session rows, finished, in one statement: a fixed number of
 * statements for the batch, not a few per session. The rows go last because their insert is where
 * a concurrent sync of the same session is found (StoredMeanwhile), with no row to update after.
 */
async function syncInTransaction(
  tx: Queryable,
  deps: CaptureDeps,
  organizationId: string,
  candidates: readonly Candidate[],
  deviceIds: readonly string[],
  receivedAt: number,
): Promise<Map<string, CaptureResult>> {
  // Sorted, so two batches naming the same devices take their share locks in one order.
  const devices = new Map<string, DeviceRecord | undefined>();
  for (const deviceId of deviceIds) {
    devices.set(deviceId, await findDevice(tx, organizationId, deviceId, { forShare: true }));
  }

  const judged: JudgedCapture[] = [];
  for (const candidate of candidates) {
    const device = devices.get(candidate.session.deviceId);
    const verdict = await verdictOf(tx, organizationId, candidate, device, receivedAt);
    judged.push(judgedCapture(deps, organizationId, candidate, verdict, receivedAt));
  }
  judged.sort((a, b) => byUtf8(a.clientSessionId, b.clientSessionId));

  const wanted = judged
    .filter((capture) => capture.status === "verified")
    .flatMap((capture) => optedIn(capture.purposeGrants).map((purpose) => ({ capture, purpose })));
  const given = await giveConsents(
    tx,
    deps,
    organizationId,
    wanted.map(({ capture, purpose }) => consentInput(capture, purpose)),
    receivedAt,
  );
  const consentIds = new Map<string, string[]>();
  for (const capture of judged) if (capture.status === "verified") consentIds.set(capture.sessionId, []);
  wanted.forEach(({ capture }, i) => consentIds.get(capture.sessionId)!.push(given[i]!.consentId));
  const withConsents = judged.filter((capture) => (consentIds.get(capture.sessionId)?.length ?? 0) > 0);
  const tokens = await issueWithdrawalTokens(
    tx,
    withConsents.map((capture) => ({ organizationId, consentIds: consentIds.get(capture.sessionId)! })),
    receivedAt,
  );
  const tokenOf = new Map(withConsents.map((capture, i) => [capture.sessionId, tokens[i]!]));
  const entries = await appendAuditEntries(
    tx,
    organizationId,
    judged.map((capture) => ({
      entryType: `offline_capture.${capture.status}`,
      subjectId: capture.sessionId,
      payload: {
        sessionId: capture.sessionId,
        clientSessionId: capture.clientSessionId,
        deviceId: capture.deviceId,
        reason: capture.reason,
        consentIds: consentIds.get(capture.sessionId) ?? [],
        canonicalSha256: capture.canonicalSha256,
        evidenceSha256: captureEvidenceSha256(capture),
      },
    })),
    receivedAt,
  );
  // One statement set for the batch's quarantine events, however many sessions it quarantined
  // (a revoked device's backlog is all of them).
  await enqueueEvents(
    tx,
    organizationId,
    judged
      .filter((capture) => capture.status === "quarantined")
      .map((capture) => ({
        eventType: "offline_capture.quarantined",
        payload: {
          sessionId: capture.sessionId,
          clientSessionId: capture.clientSessionId,
          deviceId: capture.deviceId,
          reason: capture.reason,
          receivedAt,
        },
      })),
    receivedAt,
  );

  const captures: NewCapture[] = judged.map((capture, i) => {
    const token = tokenOf.get(capture.sessionId);
    return {
      ...capture,
      consentIds: consentIds.get(capture.sessionId) ?? [],
      withdrawalTokenSealed:
        token === undefined ? null : deps.box.seal(token, sealingContext(organizationId, capture.sessionId)),
      auditRef: entries[i]!.entryRef,
    };
  });
  if ((await insertCaptures(tx, captures)) < captures.length) throw new StoredMeanwhile();

  const answered = new Map<string, CaptureResult>();
  for (const capture of captures) {
    const token = tokenOf.get(capture.sessionId);
    answered.set(
      capture.clientSessionId,
      capture.status === "verified"
        ? {
            clientSessionId: capture.clientSessionId,
            status: "verified",
            consentIds: capture.consentIds,
            ...(capture.consentIds[0] === undefined ? {} : { consentId: capture.consentIds[0] }),
            ...(token === undefined ? {} : { withdrawalToken: token }),
          }
        : { clientSessionId: capture.clientSessionId, status: capture.status, reason: capture.reason! },
    );
  }
  return answered;
}

// ----- Staff review --------------------------------------------------------------------------------

/** Reasons whose session had a valid signature from an enrolled, unrevoked key at receipt. */
const RELEASABLE: ReadonlySet<CaptureReason> = new Set(["clock_skew", "notice_superseded"]);

function reviewNote(note: string): string {
  if (note.trim() === "") throw validationError("note", "note must not be only whitespace");
  return note;
}

async function lockQuarantined(
  tx: Queryable,
  organizationId: string,
  sessionId: string,
): Promise<CaptureRecord> {
  const capture = await lockCapture(tx, organizationId, sessionId);
  if (!capture) throw notFound("No such capture session in this organisation");
  if (capture.status !== "quarantined") {
    throw new Failure(
      "CONFLICT",
      `The session is ${capture.status}, not quarantined: there is nothing to review`,
    );
  }
  if (capture.reviewStatus !== null) {
    throw new Failure("CONFLICT", `The session was already reviewed (${capture.reviewStatus})`);
  }
  return capture;
}

/**
 * Releases a quarantined session whose signature held (clock_skew, notice_superseded): its consents
 * are given now against the signed notice version, which must be one the organisation published
 * and must itemise every purpose shown. CONFLICT, saying why, for anything else.
 */
export async function releaseCapture(
  tx: Queryable,
  deps: CaptureDeps,
  reviewer: Reviewer,
  input: { sessionId: string; note: string },
  now: number,
): Promise<CaptureResult> {
  const note = reviewNote(input.note);
  const capture = await lockQuarantined(tx, reviewer.organizationId, input.sessionId);
  if (!RELEASABLE.has(capture.reason!)) {
    throw new Failure(
      "CONFLICT",
      `A session quarantined as ${capture.reason} cannot be released: only clock_skew and notice_superseded ` +
        "sessions had a valid signature from an enrolled, unrevoked key, and nothing a device sends creates a " +
        "consent without one",
    );
  }
  // clock_skew was found before the notice was checked, so check it now; a superseded version was
  // published, and still names what the principal was shown.
  const published = await currentItemization(tx, reviewer.organizationId, capture.noticeId!);
  if (published === undefined) throw new Failure("CONFLICT", "The signed notice is not this organisation's");
  const itemized =
    published !== null && capture.noticeVersion! <= published.version
      ? await versionItemization(tx, reviewer.organizationId, capture.noticeId!, capture.noticeVersion!)
      : undefined;
  if (!itemized) {
    throw new Failure(
      "CONFLICT",
      "The signed notice version was never published, so no consent can be given against it",
    );
  }
  const purposes = new Set(itemized.map((item) => item.purpose));
  const missing = capture.purposeGrants.find((grant) => !purposes.has(grant.purposeKey));
  if (missing) {
    throw new Failure(
      "CONFLICT",
      `The signed notice version does not itemise the purpose ${JSON.stringify(missing.purposeKey)}`,
    );
  }

  const ids = await giveOptedInConsents(tx, deps, capture, now);
  const withdrawalToken =
    ids.length === 0
      ? null
      : await issueWithdrawalToken(tx, { organizationId: capture.organizationId, consentIds: ids }, now);
  const consents = {
    consentIds: ids,
    withdrawalToken,
    sealed:
      withdrawalToken === null
        ? null
        : deps.box.seal(withdrawalToken, sealingContext(capture.organizationId, capture.sessionId)),
  };
  await markCaptureReviewed(tx, reviewer.organizationId, capture.sessionId, {
    reviewStatus: "released",
    reviewedBy: reviewer.reviewerId,
    reviewedAt: now,
    reviewNote: note,
    consentIds: consents.consentIds,
    withdrawalTokenSealed: consents.sealed,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: reviewer.organizationId,
      entryType: "offline_capture.released",
      subjectId: capture.sessionId,
      payload: {
        sessionId: capture.sessionId,
        clientSessionId: capture.clientSessionId,
        deviceId: capture.deviceId,
        reason: capture.reason,
        consentIds: consents.consentIds,
        canonicalSha256: capture.canonicalSha256,
        reviewedBy: reviewer.reviewerId,
        note,
      },
    },
    now,
  );
  return {
    clientSessionId: capture.clientSessionId,
    status: "verified",
    consentIds: consents.consentIds,
    ...(consents.consentIds[0] === undefined ? {} : { consentId: consents.consentIds[0] }),
    ...(consents.withdrawalToken === null ? {} : { withdrawalToken: consents.withdrawalToken }),
  };
}

/** Closes a quarantined session's review without a consent; it stays stored as evidence. */
export async function rejectCapture(
  tx: Queryable,
  reviewer: Reviewer,
  input: { sessionId: string; note: string },
  now: number,
): Promise<CaptureRecord> {
  const note = reviewNote(input.note);
  const capture = await lockQuarantined(tx, reviewer.organizationId, input.sessionId);
  const reviewed = await markCaptureReviewed(tx, reviewer.organizationId, capture.sessionId, {
    reviewStatus: "rejected_by_staff",
    reviewedBy: reviewer.reviewerId,
    reviewedAt: now,
    reviewNote: note,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: reviewer.organizationId,
      entryType: "offline_capture.review_rejected",
      subjectId: capture.sessionId,
      payload: {
        sessionId: capture.sessionId,
        clientSessionId: capture.clientSessionId,
        deviceId: capture.deviceId,
        reason: capture.reason,
        reviewedBy: reviewer.reviewerId,
        note,
      },
    },
    now,
  );
  return reviewed;
}

/** A page of the organisation's sessions, newest receipt first. */
export async function pageCaptures(
  db: Queryable,
  organizationId: string,
  request: PageRequest & {
    status?: CaptureStatus | undefined;
    reviewStatus?: ReviewStatus | "pending" | undefined;
    deviceId?: string | undefined;
  },
): Promise<Page<CaptureRecord>> {
  const { status, reviewStatus, deviceId } = request;
  // A device of another organisation (or none) is not found, as everywhere else; devices are never
  // deleted, so an empty list means the device synced nothing that matches.
  if (deviceId !== undefined && !(await findDevice(db, organizationId, deviceId))) {
    throw notFound("No such device in this organisation");
  }
  return keysetPage(
    request,
    {
      // Filters are part of the scope: a cursor of one filtered list does not continue another.
      scope: pageScope(
        "listOfflineCaptures",
        organizationId,
        status ?? "",
        reviewStatus ?? "",
        deviceId ?? "",
      ),
      shape: ["number", "string"],
      keyOf: (capture: CaptureRecord) => [capture.receivedAt, capture.sessionId] as const,
    },
    (after, limit) => listCaptures(db, organizationId, { status, reviewStatus, deviceId, after, limit }),
  );
}

/** A stored session as staff see it (the contract's `OfflineCaptureRecord`). */
export const captureToWire = (capture: CaptureRecord) => ({
  sessionId: capture.sessionId,
  clientSessionId: capture.clientSessionId,
  deviceId: capture.deviceId,
  status: capture.status,
  reason: capture.reason,
  reviewStatus: capture.reviewStatus,
  reviewedBy: capture.reviewedBy,
  reviewedAt: capture.reviewedAt,
  reviewNote: capture.reviewNote,
  noticeId: capture.noticeId,
  noticeVersion: capture.noticeVersion,
  noticeLocale: capture.noticeLocale,
  channel: capture.channel,
  capturedAtClient: capture.capturedAtClient,
  receivedAt: capture.receivedAt,
  purposeGrants: capture.purposeGrants,
  dataTypes: capture.dataTypes,
  principalHandle:
    capture.principalHandleKind === null
      ? null
      : { kind: capture.principalHandleKind, value: capture.principalHandleValue ?? "" },
  linkId: capture.linkId,
  consentIds: capture.consentIds,
});
