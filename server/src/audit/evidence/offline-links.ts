// QR consent link evidence (offline/links/links.ts writes it). Each offline_consent_links row has one
// `offline_link.created` entry (notice, purpose, data types, label, who; its time is the creation
// time) and, once disabled, one `offline_link.disabled` entry (who; its time is the disabling time).
// Each offline_link_responses row (a principal's answer on the link's page) has one
// `offline_link.accepted` or `offline_link.declined` entry giving what was shown (notice version,
// language), the hash of the page's nonce and the consent an acceptance gave; its time is the
// answer's. A link's entry also commits to its token's hash. Checked both ways: each
// entry's row exists and holds what the entry recorded; each row has its entries. (The consent an
// acceptance gave is checked as consent evidence; the sealed withdrawal token is not evidence.)
import {
  linksWithIds,
  responsesWithIds,
  scanLinks,
  scanResponses,
  type LinkRecord,
  type ResponseRecord,
} from "../../offline/links/store.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesAgainstRows, checkEntriesNameRows, payloadOf, type EvidenceKind } from "./checker.js";

const CREATED = "offline_link.created";
const DISABLED = "offline_link.disabled";
const ACCEPTED = "offline_link.accepted";
const DECLINED = "offline_link.declined";
const LINKS = "offline_consent_links";
const RESPONSES = "offline_link_responses";

const storedLink = (row: LinkRecord): Record<string, unknown> => ({
  token_hash: row.tokenHash,
  notice_id: row.noticeId,
  purpose: row.purpose,
  data_types: row.dataTypes,
  label: row.label,
  created_at: row.createdAt,
  created_by: row.createdBy,
  disabled_at: row.disabledAt,
  disabled_by: row.disabledBy,
});

function committedLink(
  created: StoredAuditEntry,
  disabled: StoredAuditEntry | undefined,
): Record<string, unknown> {
  const payload = payloadOf(created);
  return {
    token_hash: payload.tokenHash ?? null,
    notice_id: payload.noticeId ?? null,
    purpose: payload.purpose ?? null,
    data_types: payload.dataTypes ?? null,
    label: payload.label ?? null,
    created_at: created.createdAt,
    created_by: payload.actor ?? null,
    disabled_at: disabled?.createdAt ?? null,
    disabled_by: disabled ? (payloadOf(disabled).actor ?? null) : null,
  };
}

const storedResponse = (row: ResponseRecord): Record<string, unknown> => ({
  link_id: row.linkId,
  nonce_hash: row.nonceHash,
  notice_id: row.noticeId,
  notice_version: row.noticeVersion,
  locale: row.locale,
  decision: row.decision,
  consent_id: row.consentId,
  responded_at: row.respondedAt,
});

function committedResponse(entry: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(entry);
  return {
    link_id: payload.linkId ?? null,
    nonce_hash: payload.nonceHash ?? null,
    notice_id: payload.noticeId ?? null,
    notice_version: payload.noticeVersion ?? null,
    locale: payload.locale ?? null,
    decision: entry.entryType === ACCEPTED ? "accepted" : "declined",
    consent_id: payload.consentId ?? null,
    responded_at: entry.createdAt,
  };
}

export const offlineLinkEvidence: EvidenceKind = {
  tables: [LINKS, RESPONSES],
  entryTypes: [CREATED, DISABLED, ACCEPTED, DECLINED],
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: [CREATED, DISABLED, ACCEPTED, DECLINED],
      async checkEntries(entries) {
        // Entry -> row, links: the link each entry names exists (content is compared in checkRows,
        // where both of a link's entries are at hand).
        const linkEntries = entries.filter((e) => e.entryType === CREATED || e.entryType === DISABLED);
        await checkEntriesNameRows(findings, linkEntries, {
          idField: "linkId",
          table: LINKS,
          noun: "link",
          load: (ids) => linksWithIds(db, organizationId, ids),
        });
        // Entry -> row, answers: the answer exists and is what the entry recorded.
        await checkEntriesAgainstRows(
          findings,
          entries.filter((e) => e.entryType === ACCEPTED || e.entryType === DECLINED),
          {
            idField: "responseId",
            table: RESPONSES,
            noun: "the link answer",
            load: (responseIds) => responsesWithIds(db, organizationId, responseIds),
            stored: storedResponse,
            committed: committedResponse,
          },
        );
      },
      async checkRows() {
        // Row -> entries, links: exactly one creation, at most one disabling, and the state they give.
        let after = "";
        for (;;) {
          const rows = await scanLinks(db, organizationId, after, context.pageSize);
          if (rows.length === 0) break;
          after = rows[rows.length - 1]!.linkId;
          context.checked(LINKS, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.linkId),
            [CREATED, DISABLED],
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.linkId);
            const created = own.filter((e) => e.entryType === CREATED);
            const disabled = own.filter((e) => e.entryType === DISABLED);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: LINKS, recordId: row.linkId, seq, reason });
            if (!created[0]) {
              problem(null, "the link has no creation entry in the audit chain");
              continue;
            }
            if (created.length > 1) problem(created[1]!.seq, "the link has more than one creation entry");
            if (disabled.length > 1) problem(disabled[1]!.seq, "the link has more than one disabling entry");
            const differ = differences(storedLink(row), committedLink(created[0], disabled[0]));
            if (differ.length > 0) problem((disabled[0] ?? created[0]).seq, differ.join("; "));
          }
        }
        // Row -> entry, answers: exactly one entry each (its content was compared entry -> row).
        after = "";
        for (;;) {
          const rows = await scanResponses(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.responseId;
          context.checked(RESPONSES, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.responseId),
            [ACCEPTED, DECLINED],
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.responseId);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: RESPONSES, recordId: row.responseId, seq, reason });
            if (own.length === 0) problem(null, "the link answer has no entry in the audit chain");
            else if (own.length > 1) problem(own[1]!.seq, "the link answer has more than one entry");
          }
        }
      },
    };
  },
};
