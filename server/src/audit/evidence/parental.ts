// Parental-verification evidence (consent/parental-verification.ts writes it): every
// parental_verifications row has a `parental_verification.recorded` entry about its principal
// carrying every column but the organisation. Checked both ways: each entry's row exists and holds
// what the entry recorded; each row has its entry.
import {
  parentalVerificationsWithIds,
  scanParentalVerifications,
  type AuditedParentalVerification,
} from "../../consent/store.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesAgainstRows, payloadOf, type EvidenceKind } from "./checker.js";

const ENTRY_TYPE = "parental_verification.recorded";
const TABLE = "parental_verifications";

const stored = (row: AuditedParentalVerification): Record<string, unknown> => ({
  principal_id: row.principalId,
  provider: row.provider,
  token_hash: row.tokenHash,
  parent_reference_hash: row.parentReferenceHash,
  verified_at: row.verifiedAt,
});

function committed(entry: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(entry);
  return {
    principal_id: entry.subjectId,
    provider: payload.provider ?? null,
    token_hash: payload.tokenHash ?? null,
    parent_reference_hash: payload.parentReferenceHash ?? null,
    verified_at: payload.verifiedAt ?? null,
  };
}

export const parentalEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: [ENTRY_TYPE],
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: [ENTRY_TYPE],
      async checkEntries(entries) {
        await checkEntriesAgainstRows(findings, entries, {
          idField: "verificationId",
          table: TABLE,
          noun: "the verification",
          load: async (ids) =>
            new Map(
              (await parentalVerificationsWithIds(db, organizationId, ids)).map((r) => [r.verificationId, r]),
            ),
          stored,
          committed,
        });
      },
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanParentalVerifications(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.verificationId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            [...new Set(rows.map((r) => r.principalId))],
            [ENTRY_TYPE],
          );
          const chained = new Set(entries.map((e) => String(payloadOf(e).verificationId)));
          for (const row of rows.filter((r) => !chained.has(r.verificationId))) {
            findings.add({
              table: TABLE,
              recordId: row.verificationId,
              seq: null,
              reason: `the verification of principal ${row.principalId} has no entry in the audit chain`,
            });
          }
        }
      },
    };
  },
};
