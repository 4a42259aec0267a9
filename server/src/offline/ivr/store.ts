// ivr_consent_artifacts: what a telephony partner reported of one call. The only code that touches
// the table. Artefacts are immutable evidence: this store inserts and reads, and has no UPDATE or
// DELETE path on purpose (nothing may rewrite what the partner reported, not even a later
// withdrawal, which is recorded on the consent instead).
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

export interface IvrArtifact {
  organizationId: string;
  artifactId: string;
  partnerCallId: string;
  noticeId: string;
  noticeVersion: number;
  locale: string;
  purpose: string;
  dataTypes: string[];
  dtmfSequence: string;
  callerNumberHash: string;
  audioRecordingUri: string;
  transcript: string | null;
  partnerSignature: string;
  capturedAt: number;
  receivedAt: number;
  accepted: boolean;
  consentId: string | null;
  /** The withdrawal token issued with the consent, sealed (offline/ivr/artifacts.ts). */
  withdrawalTokenSealed: string | null;
  submissionHash: string;
  /** The API key that submitted it. */
  receivedBy: string;
}

type StoredRow = {
  organization_id: string;
  artifact_id: string;
  partner_call_id: string;
  notice_id: string;
  notice_version: number;
  locale: string;
  purpose: string;
  data_types: unknown;
  dtmf_sequence: string;
  caller_number_hash: string;
  audio_recording_uri: string;
  transcript: string | null;
  partner_signature: string;
  captured_at: number;
  received_at: number;
  accepted: boolean;
  consent_id: string | null;
  withdrawal_token_sealed: string | null;
  submission_hash: string;
  received_by: string;
};

// Only this module writes these columns, from the types they are read back as.
const artifactOf = (row: StoredRow): IvrArtifact => ({
  organizationId: row.organization_id,
  artifactId: row.artifact_id,
  partnerCallId: row.partner_call_id,
  noticeId: row.notice_id,
  noticeVersion: row.notice_version,
  locale: row.locale,
  purpose: row.purpose,
  dataTypes: row.data_types as string[],
  dtmfSequence: row.dtmf_sequence,
  callerNumberHash: row.caller_number_hash,
  audioRecordingUri: row.audio_recording_uri,
  transcript: row.transcript,
  partnerSignature: row.partner_signature,
  capturedAt: row.captured_at,
  receivedAt: row.received_at,
  accepted: row.accepted,
  consentId: row.consent_id,
  withdrawalTokenSealed: row.withdrawal_token_sealed,
  submissionHash: row.submission_hash,
  receivedBy: row.received_by,
});

/**
 * Inserts the artefact unless the organisation already has one for the call; true when inserted.
 * `ON CONFLICT DO NOTHING` on the (organisation, call id) key is the claim: a concurrent duplicate
 * waits here for the first transaction and then inserts nothing.
 */
export async function insertIvrArtifact(tx: Queryable, artifact: IvrArtifact): Promise<boolean> {
  const inserted = await rows(
    tx,
    qb
      .insertInto("ivr_consent_artifacts")
      .values({
        organization_id: artifact.organizationId,
        artifact_id: artifact.artifactId,
        partner_call_id: artifact.partnerCallId,
        notice_id: artifact.noticeId,
        notice_version: artifact.noticeVersion,
        locale: artifact.locale,
        purpose: artifact.purpose,
        data_types: JSON.stringify(artifact.dataTypes),
        dtmf_sequence: artifact.dtmfSequence,
        caller_number_hash: artifact.callerNumberHash,
        audio_recording_uri: artifact.audioRecordingUri,
        transcript: artifact.transcript,
        partner_signature: artifact.partnerSignature,
        captured_at: artifact.capturedAt,
        received_at: artifact.receivedAt,
        accepted: artifact.accepted,
        consent_id: artifact.consentId,
        withdrawal_token_sealed: artifact.withdrawalTokenSealed,
        submission_hash: artifact.submissionHash,
        received_by: artifact.receivedBy,
      })
      .onConflict((conflict) => conflict.columns(["organization_id", "partner_call_id"]).doNothing())
      .returning("artifact_id"),
  );
  return inserted.length > 0;
}

/** The organisation's artefact for a partner's call id, if it has one. */
export async function findIvrArtifactByCall(
  db: Queryable,
  organizationId: string,
  partnerCallId: string,
): Promise<IvrArtifact | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("ivr_consent_artifacts")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("partner_call_id", "=", partnerCallId),
  );
  return row && artifactOf(row);
}

/** Which artefacts a staff list shows: accepted or refused calls, or one call's. */
export interface IvrArtifactFilter {
  accepted?: boolean | undefined;
  partnerCallId?: string | undefined;
}

/**
 * Up to `limit` of the organisation's artefacts matching `filter`, newest receipt first (then by
 * id, descending), after the `(receivedAt, artifactId)` position `after` (a staff list's keyset).
 */
export async function listIvrArtifacts(
  db: Queryable,
  organizationId: string,
  filter: IvrArtifactFilter,
  read: { after?: readonly [number, string] | undefined; limit: number },
): Promise<IvrArtifact[]> {
  let query = qb
    .selectFrom("ivr_consent_artifacts")
    .selectAll()
    .where("organization_id", "=", organizationId);
  if (filter.accepted !== undefined) query = query.where("accepted", "=", filter.accepted);
  if (filter.partnerCallId !== undefined) query = query.where("partner_call_id", "=", filter.partnerCallId);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("received_at", "artifact_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("received_at", "desc").orderBy("artifact_id", "desc").limit(read.limit),
  );
  return found.map(artifactOf);
}

/** The organisation's artefacts with these ids, by id (audit verify, entry -> row). */
export async function ivrArtifactsWithIds(
  db: Queryable,
  organizationId: string,
  artifactIds: readonly string[],
): Promise<Map<string, IvrArtifact>> {
  if (artifactIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("ivr_consent_artifacts")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("artifact_id", "in", [...artifactIds]),
  );
  return new Map(found.map((row) => [row.artifact_id, artifactOf(row)]));
}

/** Up to `limit` artefacts with ids after `afterArtifactId`, by id (audit verify's keyset scan). */
export async function scanIvrArtifacts(
  db: Queryable,
  organizationId: string,
  afterArtifactId: string,
  limit: number,
): Promise<IvrArtifact[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("ivr_consent_artifacts")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("artifact_id", ">", afterArtifactId)
      .orderBy("artifact_id")
      .limit(limit),
  );
  return found.map(artifactOf);
}
