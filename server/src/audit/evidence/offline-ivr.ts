// IVR consent artefact evidence (offline/ivr/artifacts.ts writes it): each ivr_consent_artifacts row
// has exactly one `offline_ivr.recorded` entry about it (its time is the receipt) naming the
// artefact, the partner's call id, whether the call was an acceptance, the consent it gave and the
// SHA-256 of the submission's canonical JSON. Artefacts are immutable, so the row must be exactly
// what its entry recorded. The submission hash commits to everything the partner reported: the
// notice id, locale, purpose, data types, DTMF sequence, caller hash, recording URI, transcript,
// signature and capture time are checked by hashing the stored columns again (as a device's key is
// checked against its fingerprint), and the DTMF sequence must also say what `accepted` says.
// Not on the chain, so not checked here: `notice_version` (the version published at receipt; an
// acceptance's consent commits to it as consent evidence), `received_by` (the API key that
// submitted it) and `withdrawal_token_sealed` (the sealed token; withdrawal_tokens keeps its hash).
// Checked both ways: each entry's artefact exists and is what it recorded; each artefact has its entry.
import { isAcceptance, submissionHash, type IvrSubmission } from "../../offline/ivr/artifacts.js";
import { ivrArtifactsWithIds, scanIvrArtifacts, type IvrArtifact } from "../../offline/ivr/store.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesAgainstRows, payloadOf, type EvidenceKind } from "./checker.js";

const RECORDED = "offline_ivr.recorded";
const TABLE = "ivr_consent_artifacts";

/** The submission the stored columns make up (a transcript the partner left out is stored as null). */
function submissionOf(row: IvrArtifact): IvrSubmission {
  return {
    noticeId: row.noticeId,
    partnerCallId: row.partnerCallId,
    audioRecordingUri: row.audioRecordingUri,
    ...(row.transcript === null ? {} : { transcript: row.transcript }),
    locale: row.locale,
    dtmfSequence: row.dtmfSequence,
    callerNumberHash: row.callerNumberHash,
    capturedAt: row.capturedAt,
    partnerSignature: row.partnerSignature,
    purpose: row.purpose,
    dataTypes: row.dataTypes,
  };
}

const answerOf = (accepted: unknown) => (accepted === true ? "acceptance" : "refusal");

const stored = (row: IvrArtifact): Record<string, unknown> => ({
  artifact_id: row.artifactId,
  partner_call_id: row.partnerCallId,
  accepted: row.accepted,
  consent_id: row.consentId,
  submission_hash: row.submissionHash,
  // What the reported columns hash to: an edited DTMF sequence, recording URI, transcript, ... no
  // longer matches the submission hash on the chain.
  submission: submissionHash(submissionOf(row)),
  // What the keys pressed mean: a refusal's sequence cannot stand behind an acceptance.
  dtmf_sequence: answerOf(isAcceptance(row.dtmfSequence)),
  received_at: row.receivedAt,
});

function committed(entry: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(entry);
  return {
    // The entry's subject: a payload naming another artefact is found here.
    artifact_id: entry.subjectId,
    partner_call_id: payload.partnerCallId ?? null,
    accepted: payload.accepted ?? null,
    consent_id: payload.consentId ?? null,
    submission_hash: payload.submissionHash ?? null,
    submission: payload.submissionHash ?? null,
    dtmf_sequence: answerOf(payload.accepted),
    received_at: entry.createdAt,
  };
}

export const offlineIvrEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: [RECORDED],
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: [RECORDED],
      // Entry -> row: the artefact exists and is what the entry recorded (its one entry is at hand).
      async checkEntries(entries) {
        await checkEntriesAgainstRows(findings, entries, {
          idField: "artifactId",
          table: TABLE,
          noun: "the IVR artefact",
          load: (ids) => ivrArtifactsWithIds(db, organizationId, ids),
          stored,
          committed,
        });
      },
      // Row -> entry: every artefact has exactly one entry (its content was compared entry -> row).
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanIvrArtifacts(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.artifactId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.artifactId),
            [RECORDED],
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.artifactId);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.artifactId, seq, reason });
            if (own.length === 0) problem(null, "the IVR artefact has no entry in the audit chain");
            else if (own.length > 1) problem(own[1]!.seq, "the IVR artefact has more than one entry");
          }
        }
      },
    };
  },
};
