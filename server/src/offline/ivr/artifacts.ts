// IVR consent artefacts (DPDP ss.5-6 over the phone). Guard builds no telephony: a partner's IVR
// plays the notice, the caller presses keys, and the partner reports the call here. Rules:
//  - the artefact is stored as received, accepted or not, and never changed (store.ts);
//  - a DTMF sequence beginning with `1` is acceptance: a consent (source `offline_ivr`) against the
//    notice version published at receipt, given at receipt time, and a withdrawal token for it;
//    anything else is a refusal, kept as evidence with no consent;
//  - the partner's call id is the natural idempotency key: a resubmission answers the original
//    artefact and writes nothing; another body under the same call id is a CONFLICT;
//  - each artefact queues one audit chain entry (`offline_ivr.recorded`);
//  - staff list the artefacts as stored, never the withdrawal token (pageIvrArtifacts).
import type { ConsentDeps } from "../../consent/consents.js";
import { giveConsent, resolveConsentNotice } from "../../consent/consents.js";
import { appendAuditEntry } from "../../audit/chain.js";
import { withdrawalTimesOf } from "../../consent/store.js";
import type { Queryable } from "../../db/database.js";
import { canonicalJson } from "../../lib/canonical-json.js";
import { Failure, validationError } from "../../lib/failure.js";
import { newId } from "../../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../../lib/paging.js";
import { sha256Hex } from "../../lib/secrets.js";
import { readVersion } from "../../notices/store.js";
import { SecretBoxError, type SecretBox } from "../../lib/secret-box.js";
import { issueWithdrawalToken } from "../withdrawal/tokens.js";
import {
  findIvrArtifactByCall,
  insertIvrArtifact,
  listIvrArtifacts,
  type IvrArtifact,
  type IvrArtifactFilter,
} from "./store.js";

/** A submission as the contract's `IvrConsentArtifact` describes it. */
export interface IvrSubmission {
  noticeId: string;
  partnerCallId: string;
  audioRecordingUri: string;
  transcript?: string;
  locale: string;
  dtmfSequence: string;
  callerNumberHash: string;
  capturedAt: number;
  partnerSignature: string;
  purpose: string;
  dataTypes: string[];
}

/** What the route answers for an artefact (the first time and on every resubmission). */
export interface IvrAnswer {
  artifactId: string;
  consentId: string | null;
  accepted: boolean;
  /** On acceptance: read it out to the caller; it withdraws the consent. */
  withdrawalToken?: string;
}

export interface IvrDeps extends ConsentDeps {
  /** Seals the withdrawal token so a resubmission can answer it again. */
  box: SecretBox;
}

/** Acceptance is a sequence that begins with `1` (the partner's "press 1 to agree"). */
export const isAcceptance = (dtmfSequence: string): boolean => dtmfSequence.startsWith("1");

/**
 * SHA-256 of the submission's canonical JSON, over the contract's fields only: a retry has the
 * same, another body another. A field the contract does not define (the body schema allows them)
 * is not stored, so it must not count: else the stored columns would no longer hash to what the
 * chain committed to, and a retry without it would be answered 409.
 */
export const submissionHash = (submission: IvrSubmission): string =>
  sha256Hex(
    canonicalJson({
      noticeId: submission.noticeId,
      partnerCallId: submission.partnerCallId,
      audioRecordingUri: submission.audioRecordingUri,
      ...(submission.transcript === undefined ? {} : { transcript: submission.transcript }),
      locale: submission.locale,
      dtmfSequence: submission.dtmfSequence,
      callerNumberHash: submission.callerNumberHash,
      capturedAt: submission.capturedAt,
      partnerSignature: submission.partnerSignature,
      purpose: submission.purpose,
      dataTypes: submission.dataTypes,
    }),
  );

/** The associated data the token is sealed under: it opens only on its own artefact's row. */
const sealedTokenContext = (organizationId: string, artifactId: string) =>
  `guard/offline/ivr/withdrawal-token/v1\u0000${organizationId}\u0000${artifactId}`;

/**
 * The answer an already stored artefact gives a resubmission of `submission`; CONFLICT when the
 * submission differs from what was stored under the call id.
 */
export function answerOfStored(deps: IvrDeps, stored: IvrArtifact, submission: IvrSubmission): IvrAnswer {
  if (stored.submissionHash !== submissionHash(submission)) {
    throw new Failure(
      "CONFLICT",
      "An artefact with this partnerCallId was already recorded with a different body",
      { field: "partnerCallId" },
    );
  }
  const answer: IvrAnswer = {
    artifactId: stored.artifactId,
    consentId: stored.consentId,
    accepted: stored.accepted,
  };
  if (stored.withdrawalTokenSealed !== null) {
    try {
      answer.withdrawalToken = deps.box.open(
        stored.withdrawalTokenSealed,
        sealedTokenContext(stored.organizationId, stored.artifactId),
      );
    } catch (error) {
      // Sealed under a secrets key since replaced: the token still withdraws, but cannot be read
      // back; the resubmission is answered without it rather than failing.
      if (!(error instanceof SecretBoxError)) throw error;
    }
  }
  return answer;
}

/** The organisation's artefact for the call, if one was stored. */
export const findArtifactOfCall = (db: Queryable, organizationId: string, partnerCallId: string) =>
  findIvrArtifactByCall(db, organizationId, partnerCallId);

/**
 * The notice language a locale names, among those the version has content for: the tag itself or
 * its primary language subtag, case-insensitively (`hi-IN` is Hindi content `hi`).
 */
export function contentLanguageOf(locale: string, languages: readonly string[]): string | undefined {
  const wanted = locale.toLowerCase();
  const primary = wanted.split("-")[0];
  return (
    languages.find((language) => language.toLowerCase() === wanted) ??
    languages.find((language) => language.toLowerCase() === primary)
  );
}

/** The notice version a submission is recorded against, checked before any write. */
export interface IvrNotice {
  noticeId: string;
  version: number;
}

/**
 * Checks the submission against the organisation's notice: the notice exists (else 404), is
 * published (NOTICE_NOT_PUBLISHED), itemises the purpose, and has content in the call's locale
 * (VALIDATION_ERROR on `locale`, naming the languages it has).
 */
export async function resolveIvrNotice(
  db: Queryable,
  organizationId: string,
  submission: IvrSubmission,
): Promise<IvrNotice> {
  const notice = await resolveConsentNotice(db, organizationId, submission.noticeId, submission.purpose);
  const version = await readVersion(db, organizationId, notice.noticeId, notice.version);
  const languages = Object.keys(version?.content ?? {});
  if (contentLanguageOf(submission.locale, languages) === undefined) {
    throw validationError(
      "locale",
      `locale ${submission.locale} is not a language the notice has content for (${languages.join(", ")})`,
    );
  }
  return { noticeId: notice.noticeId, version: notice.version };
}

/** Another request stored an artefact for the call first; this transaction must roll back. */
export class IvrCallAlreadyRecorded extends Error {
  override name = "IvrCallAlreadyRecorded";
}

/**
 * Records the artefact (and, on acceptance, its consent and withdrawal token) in `tx`. Throws
 * IvrCallAlreadyRecorded when a concurrent submission of the same call committed first: the caller
 * rolls back (so this one's consent never exists) and answers from the stored artefact.
 */
export async function recordIvrArtifact(
  tx: Queryable,
  deps: IvrDeps,
  input: {
    organizationId: string;
    apiKeyId: string;
    notice: IvrNotice;
    submission: IvrSubmission;
  },
  now: number,
): Promise<IvrAnswer> {
  const { organizationId, submission } = input;
  const artifactId = newId("ivr");
  const accepted = isAcceptance(submission.dtmfSequence);
  let consentId: string | null = null;
  let withdrawalToken: string | undefined;
  if (accepted) {
    // The guest handle is the artefact's own random id, not the partner's call id: a call id is
    // often sequential, and anyone who guessed one could otherwise pre-empt the consent or withdraw
    // it through the public guest routes, which prove a guest by its handle alone.
    const consent = await giveConsent(
      tx,
      deps,
      {
        organizationId,
        holder: { kind: "guest", anonymousId: `ivr:${artifactId}` },
        notice: input.notice,
        purpose: submission.purpose,
        dataTypes: submission.dataTypes,
        source: "offline_ivr",
      },
      now,
    );
    consentId = consent.consentId;
    withdrawalToken = await issueWithdrawalToken(tx, { organizationId, consentIds: [consentId] }, now);
  }
  const hash = submissionHash(submission);
  const inserted = await insertIvrArtifact(tx, {
    organizationId,
    artifactId,
    partnerCallId: submission.partnerCallId,
    noticeId: input.notice.noticeId,
    noticeVersion: input.notice.version,
    locale: submission.locale,
    purpose: submission.purpose,
    dataTypes: submission.dataTypes,
    dtmfSequence: submission.dtmfSequence,
    callerNumberHash: submission.callerNumberHash,
    audioRecordingUri: submission.audioRecordingUri,
    transcript: submission.transcript ?? null,
    partnerSignature: submission.partnerSignature,
    capturedAt: submission.capturedAt,
    receivedAt: now,
    accepted,
    consentId,
    withdrawalTokenSealed:
      withdrawalToken === undefined
        ? null
        : deps.box.seal(withdrawalToken, sealedTokenContext(organizationId, artifactId)),
    submissionHash: hash,
    receivedBy: input.apiKeyId,
  });
  if (!inserted) throw new IvrCallAlreadyRecorded(submission.partnerCallId);
  await appendAuditEntry(
    tx,
    {
      organizationId,
      entryType: "offline_ivr.recorded",
      subjectId: artifactId,
      // The submission's hash ties the chain to everything the partner reported.
      payload: {
        artifactId,
        partnerCallId: submission.partnerCallId,
        accepted,
        consentId,
        submissionHash: hash,
      },
    },
    now,
  );
  const answer: IvrAnswer = { artifactId, consentId, accepted };
  if (withdrawalToken !== undefined) answer.withdrawalToken = withdrawalToken;
  return answer;
}

/** The outcomes a staff list filters by: a call that gave a consent, or one that did not. */
export const IVR_OUTCOMES = ["accepted", "refused"] as const;
export type IvrOutcome = (typeof IVR_OUTCOMES)[number];

/** What a staff list asks for: a page, optionally of one outcome or one partner call id. */
export type IvrListRequest = PageRequest & {
  outcome?: IvrOutcome | undefined;
  partnerCallId?: string | undefined;
};

/** An artefact as staff read it: with when the consent it gave was withdrawn (null while it stands). */
export interface ListedIvrArtifact extends IvrArtifact {
  consentWithdrawnAt: number | null;
}

/**
 * A page of the organisation's artefacts, newest receipt first: every call, or those of one
 * `outcome`, or the one artefact of `partnerCallId`; each with whether its consent still stands
 * (the artefact itself never changes: a withdrawal is recorded on the consent).
 */
export async function pageIvrArtifacts(
  db: Queryable,
  organizationId: string,
  request: IvrListRequest,
): Promise<Page<ListedIvrArtifact>> {
  const page = await pageStoredIvrArtifacts(db, organizationId, request);
  const consentIds = page.items.flatMap((artifact) =>
    artifact.consentId === null ? [] : [artifact.consentId],
  );
  const withdrawn = await withdrawalTimesOf(db, organizationId, consentIds);
  return {
    items: page.items.map((artifact) => ({
      ...artifact,
      consentWithdrawnAt: artifact.consentId === null ? null : (withdrawn.get(artifact.consentId) ?? null),
    })),
    nextCursor: page.nextCursor,
  };
}

function pageStoredIvrArtifacts(
  db: Queryable,
  organizationId: string,
  request: IvrListRequest,
): Promise<Page<IvrArtifact>> {
  const filter: IvrArtifactFilter = {
    accepted: request.outcome === undefined ? undefined : request.outcome === "accepted",
    partnerCallId: request.partnerCallId,
  };
  return keysetPage(
    request,
    {
      // Filters are part of the scope: a cursor of one filtered list does not continue another.
      scope: pageScope(
        "listIvrConsentArtifacts",
        organizationId,
        request.outcome ?? "",
        request.partnerCallId ?? "",
      ),
      shape: ["number", "string"],
      keyOf: (artifact: IvrArtifact) => [artifact.receivedAt, artifact.artifactId] as const,
    },
    (after, limit) => listIvrArtifacts(db, organizationId, filter, { after, limit }),
  );
}

/**
 * An artefact as staff see it (the contract's `IvrConsentArtifactRecord`): everything the partner
 * reported and what Guard made of it, but not the sealed withdrawal token, which only the caller
 * is meant to hold.
 */
export const ivrArtifactToWire = (artifact: ListedIvrArtifact) => ({
  artifactId: artifact.artifactId,
  partnerCallId: artifact.partnerCallId,
  noticeId: artifact.noticeId,
  noticeVersion: artifact.noticeVersion,
  locale: artifact.locale,
  purpose: artifact.purpose,
  dataTypes: artifact.dataTypes,
  dtmfSequence: artifact.dtmfSequence,
  accepted: artifact.accepted,
  consentId: artifact.consentId,
  consentWithdrawnAt: artifact.consentWithdrawnAt,
  callerNumberHash: artifact.callerNumberHash,
  audioRecordingUri: artifact.audioRecordingUri,
  transcript: artifact.transcript,
  partnerSignature: artifact.partnerSignature,
  capturedAt: artifact.capturedAt,
  receivedAt: artifact.receivedAt,
  receivedBy: artifact.receivedBy,
  submissionHash: artifact.submissionHash,
});
