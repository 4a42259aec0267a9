// Point-of-sale consent request evidence (offline/pos/requests.ts writes it). Each
// pos_consent_requests row has one `offline_pos.created` entry (notice, version, purpose, data
// types, deadline, the API key; its time is the creation time) and then, in chain order, at most one
// of `offline_pos.confirmed` (the consent it gave, the version asked and the version consented to),
// `.declined` (the version shown) or `.expired` (the deadline, who noticed), each dated when it
// happened (an answer's time is `answered_at`), and, only after an expiry, at most one
// `offline_pos.closed` (staff id and note; its time is `closed_at`). Checked both ways: each entry's
// request exists; each row is the state its entries give (status, answered_at, consent_id, closed_*),
// its entries follow the request's life (pending -> confirmed | declined | expired -> closed), an
// answer is dated within the deadline and an expiry after it.
// Not on the chain, so not checked here: `phone_hash` (README: "No phone hash on the chain"; the
// chain holds no personal data, even keyed-hashed), `token_hash` (the receipt token's SHA-256, a
// bearer secret's fingerprint, kept off the chain like the token itself) and
// `withdrawal_token_sealed` (the sealed withdrawal token; withdrawal_tokens keeps its hash). The
// consent a confirmation gave is checked as consent evidence.
import { posRequestsWithIds, scanPosRequests, type PosRequest } from "../../offline/pos/store.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type EvidenceKind } from "./checker.js";

const CREATED = "offline_pos.created";
const CONFIRMED = "offline_pos.confirmed";
const DECLINED = "offline_pos.declined";
const EXPIRED = "offline_pos.expired";
const CLOSED = "offline_pos.closed";
const ENTRY_TYPES = [CREATED, CONFIRMED, DECLINED, EXPIRED, CLOSED];
/** The entries that take a request out of `pending`. */
const OUTCOMES = [CONFIRMED, DECLINED, EXPIRED];
const TABLE = "pos_consent_requests";

const statusOf = (entryType: string) => entryType.slice("offline_pos.".length);

const stored = (row: PosRequest): Record<string, unknown> => ({
  notice_id: row.noticeId,
  notice_version: row.noticeVersion,
  purpose: row.purpose,
  data_types: row.dataTypes,
  created_at: row.createdAt,
  expires_at: row.expiresAt,
  created_by: row.createdBy,
  status: row.status,
  answered_at: row.answeredAt,
  consent_id: row.consentId,
  closed_by: row.closedBy,
  closed_at: row.closedAt,
  close_note: row.closeNote,
});

/** The request's life as its entries (in chain order) give it. */
interface Life {
  created: StoredAuditEntry;
  /** The confirmation, refusal or expiry that ended `pending`. */
  outcome: StoredAuditEntry | undefined;
  closed: StoredAuditEntry | undefined;
}

function committed({ created, outcome, closed }: Life): Record<string, unknown> {
  const payload = payloadOf(created);
  const answered = outcome?.entryType === CONFIRMED || outcome?.entryType === DECLINED;
  return {
    notice_id: payload.noticeId ?? null,
    notice_version: payload.noticeVersion ?? null,
    purpose: payload.purpose ?? null,
    data_types: payload.dataTypes ?? null,
    created_at: created.createdAt,
    expires_at: payload.expiresAt ?? null,
    created_by: payload.createdBy ?? null,
    status: closed ? "closed" : outcome ? statusOf(outcome.entryType) : "pending",
    answered_at: answered ? outcome.createdAt : null,
    consent_id: outcome?.entryType === CONFIRMED ? (payloadOf(outcome).consentId ?? null) : null,
    closed_by: closed ? (payloadOf(closed).closedBy ?? null) : null,
    closed_at: closed?.createdAt ?? null,
    close_note: closed ? (payloadOf(closed).note ?? null) : null,
  };
}

/**
 * Walks a request's entries in chain order through its life (pending -> confirmed | declined |
 * expired -> closed), reporting each entry its state at that point does not allow; undefined when
 * it has no creation entry.
 */
function lifeOf(
  own: readonly StoredAuditEntry[],
  problem: (seq: number | null, reason: string) => void,
): Life | undefined {
  let created: StoredAuditEntry | undefined;
  let outcome: StoredAuditEntry | undefined;
  let closed: StoredAuditEntry | undefined;
  for (const entry of own) {
    const state = closed ? "closed" : outcome ? statusOf(outcome.entryType) : "pending";
    if (entry.entryType === CREATED) {
      if (created) problem(entry.seq, "the request has more than one creation entry");
      else created = entry;
    } else if (!created) {
      problem(entry.seq, `the request's ${entry.entryType} entry comes before its creation entry`);
    } else if (OUTCOMES.includes(entry.entryType)) {
      if (state !== "pending")
        problem(entry.seq, `an ${entry.entryType} entry for a request already ${state}`);
      else outcome = entry;
    } else if (state !== "expired") {
      problem(entry.seq, `an ${entry.entryType} entry for a request ${state}, not expired`);
    } else {
      closed = entry;
    }
  }
  return created && { created, outcome, closed };
}

export const offlinePosEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: ENTRY_TYPES,
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: ENTRY_TYPES,
      // Entry -> row: the request each entry names exists (its content is compared in checkRows,
      // where all of a request's entries are at hand).
      async checkEntries(entries) {
        await checkEntriesNameRows(findings, entries, {
          idField: "requestId",
          table: TABLE,
          noun: "POS request",
          load: (ids) => posRequestsWithIds(db, organizationId, ids),
        });
      },
      // Row -> entries: every request has its creation entry, entries that follow its life, and is
      // the state they give.
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanPosRequests(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.requestId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.requestId),
            ENTRY_TYPES,
          );
          for (const row of rows) {
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.requestId, seq, reason });
            const own = entries.filter((e) => e.subjectId === row.requestId);
            const life = lifeOf(own, problem);
            if (!life) {
              problem(null, "the POS request has no creation entry in the audit chain");
              continue;
            }
            const { created, outcome, closed } = life;
            const deadline = payloadOf(created).expiresAt;
            if (outcome && typeof deadline === "number") {
              // The clock decides: an answer after the deadline expires the request instead, and
              // nothing expires it before.
              if (outcome.entryType === EXPIRED && outcome.createdAt <= deadline)
                problem(outcome.seq, "the request's expiry entry is dated before its deadline");
              if (outcome.entryType !== EXPIRED && outcome.createdAt > deadline)
                problem(outcome.seq, "the request's answer entry is dated after its deadline");
            }
            if (
              outcome?.entryType === CONFIRMED &&
              payloadOf(outcome).requestedNoticeVersion !== payloadOf(created).noticeVersion
            ) {
              problem(
                outcome.seq,
                "the confirmation names another requested notice version than the request",
              );
            }
            const differ = differences(stored(row), committed(life));
            if (differ.length > 0) problem((closed ?? outcome ?? created).seq, differ.join("; "));
          }
        }
      },
    };
  },
};
