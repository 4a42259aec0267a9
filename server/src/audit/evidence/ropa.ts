// Records-of-processing evidence (ropa/activities.ts writes it): each processing_activities row has
// a `ropa.activity_created` entry and one entry per later change (`ropa.activity_updated`,
// `_archived`, `_restored`). Every entry carries the row's whole state after the change: each
// content column by digest (SHA-256 of the value's canonical JSON), createdAt and archivedAt, and
// its time is the row's updated_at. So the latest entry alone verifies the row, and the older ones
// of a long-lived activity may be purged (audit/purge.ts). Checked both ways: each entry's
// activity exists; each row has entries, at most one creation, and is the state its latest gives.
import {
  ACTIVITY_ENTRY_TYPES,
  CONTENT_FIELDS,
  contentDigests,
  ENTRY_CREATED,
  type ContentField,
} from "../../ropa/activities.js";
import {
  processingActivitiesWithIds,
  scanProcessingActivities,
  type ProcessingActivity,
} from "../../ropa/store.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type EvidenceKind } from "./checker.js";

const TABLE = "processing_activities";
const TYPES: readonly string[] = ACTIVITY_ENTRY_TYPES;

const COLUMNS: Record<ContentField, string> = {
  name: "name",
  purpose: "purpose",
  description: "description",
  dataCategories: "data_categories",
  legalBasis: "legal_basis",
  recipients: "recipients",
  storageLocation: "storage_location",
  crossesBorder: "crosses_border",
  destinationCountries: "destination_countries",
};

/** The row's columns as stored: content by digest (the chain holds no values), times as they are. */
function stored(row: ProcessingActivity): Record<string, unknown> {
  const digests = contentDigests(row);
  const out: Record<string, unknown> = {};
  for (const field of CONTENT_FIELDS) out[COLUMNS[field]] = digests[field];
  out.created_at = row.createdAt;
  out.updated_at = row.updatedAt;
  out.archived_at = row.archivedAt;
  return out;
}

/** The same columns as the row's latest entry gives them. */
function committed(latest: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(latest);
  const given = payload.digests;
  const digests = typeof given === "object" && given !== null ? (given as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const field of CONTENT_FIELDS) out[COLUMNS[field]] = digests[field] ?? null;
  out.created_at = payload.createdAt ?? null;
  out.updated_at = latest.createdAt;
  out.archived_at = payload.archivedAt ?? null;
  return out;
}

export const ropaEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: TYPES,
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: TYPES,
      // Entry -> row: the activity each entry names exists (its content is compared in checkRows,
      // against the latest of the activity's entries).
      async checkEntries(entries) {
        await checkEntriesNameRows(findings, entries, {
          idField: "activityId",
          table: TABLE,
          noun: "processing activity",
          load: (ids) => processingActivitiesWithIds(db, organizationId, ids),
        });
      },
      // Row -> entries: every activity is on the chain, created at most once, and is the state its
      // latest entry commits to.
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanProcessingActivities(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.activityId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.activityId),
            TYPES,
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.activityId);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.activityId, seq, reason });
            const latest = own[own.length - 1];
            if (!latest) {
              problem(null, "the processing activity has no entry in the audit chain");
              continue;
            }
            const creations = own.filter((e) => e.entryType === ENTRY_CREATED);
            if (creations.length > 1) problem(creations[1]!.seq, "the processing activity was created twice");
            const differ = differences(stored(row), committed(latest));
            if (differ.length > 0) problem(latest.seq, differ.join("; "));
          }
        }
      },
    };
  },
};
