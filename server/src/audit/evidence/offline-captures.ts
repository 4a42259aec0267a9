// Offline capture evidence (offline/captures/captures.ts writes it): each offline_capture_sessions row
// has one outcome entry (`offline_capture.verified`, `.quarantined` or `.rejected`; its time is the
// receipt) naming the client session id, device, reason, consents, the canonical string's SHA-256 and
// the SHA-256 of the rest of the stored evidence (notice, grants, handle, signature, ...), and, once
// a staff member reviewed it, one `offline_capture.released` or `offline_capture.review_rejected`
// entry (who, why, and for a release the consents it gave; its time is the review). Checked both
// ways: each entry's session exists; each row is the state its entries give.
import {
  captureEvidenceSha256,
  capturesWithIds,
  scanCaptures,
  type CaptureRecord,
} from "../../offline/captures/store.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type EvidenceKind } from "./checker.js";

const OUTCOMES = ["offline_capture.verified", "offline_capture.quarantined", "offline_capture.rejected"];
const RELEASED = "offline_capture.released";
const REVIEW_REJECTED = "offline_capture.review_rejected";
const ENTRY_TYPES = [...OUTCOMES, RELEASED, REVIEW_REJECTED];
const TABLE = "offline_capture_sessions";

const stored = (row: CaptureRecord): Record<string, unknown> => ({
  client_session_id: row.clientSessionId,
  device_id: row.deviceId,
  status: row.status,
  reason: row.reason,
  received_at: row.receivedAt,
  // The row's pointer to its outcome entry: a re-pointed row would otherwise go unnoticed.
  audit_ref: row.auditRef,
  canonical_sha256: row.canonicalSha256,
  // What the other evidence columns hash to: an edited grant, handle or signature no longer matches.
  evidence: captureEvidenceSha256(row),
  consent_ids: row.consentIds,
  review_status: row.reviewStatus,
  reviewed_by: row.reviewedBy,
  reviewed_at: row.reviewedAt,
  review_note: row.reviewNote,
});

function committed(outcome: StoredAuditEntry, review: StoredAuditEntry | undefined): Record<string, unknown> {
  const payload = payloadOf(outcome);
  const reviewed = review && payloadOf(review);
  const released = review?.entryType === RELEASED;
  return {
    client_session_id: payload.clientSessionId ?? null,
    device_id: payload.deviceId ?? null,
    status: outcome.entryType.slice("offline_capture.".length),
    reason: payload.reason ?? null,
    received_at: outcome.createdAt,
    audit_ref: outcome.entryRef,
    canonical_sha256: payload.canonicalSha256 ?? null,
    evidence: payload.evidenceSha256 ?? null,
    consent_ids: (released ? reviewed?.consentIds : payload.consentIds) ?? null,
    review_status: review ? (released ? "released" : "rejected_by_staff") : null,
    reviewed_by: reviewed?.reviewedBy ?? null,
    reviewed_at: review?.createdAt ?? null,
    review_note: reviewed?.note ?? null,
  };
}

export const offlineCaptureEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: ENTRY_TYPES,
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: ENTRY_TYPES,
      // Entry -> row: the session each entry names exists (its content is compared in checkRows,
      // where all of a session's entries are at hand).
      async checkEntries(entries) {
        await checkEntriesNameRows(findings, entries, {
          idField: "sessionId",
          table: TABLE,
          noun: "capture session",
          load: (ids) => capturesWithIds(db, organizationId, ids),
        });
      },
      // Row -> entries: every session has exactly one outcome entry, at most one review entry, and is
      // the state they give.
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanCaptures(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.sessionId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.sessionId),
            ENTRY_TYPES,
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.sessionId);
            const outcomes = own.filter((e) => OUTCOMES.includes(e.entryType));
            const reviews = own.filter((e) => e.entryType === RELEASED || e.entryType === REVIEW_REJECTED);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.sessionId, seq, reason });
            const outcome = outcomes[0];
            if (!outcome) {
              problem(null, "the capture session has no outcome entry in the audit chain");
              continue;
            }
            if (outcomes.length > 1)
              problem(outcomes[1]!.seq, "the capture session has more than one outcome entry");
            if (reviews.length > 1)
              problem(reviews[1]!.seq, "the capture session has more than one review entry");
            const review = reviews[0];
            const differ = differences(stored(row), committed(outcome, review));
            if (differ.length > 0) problem((review ?? outcome).seq, differ.join("; "));
          }
        }
      },
    };
  },
};
