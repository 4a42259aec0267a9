// Breach-register evidence (breaches/register.ts and breaches/principals.ts write it). Each breaches
// row has one `breach.recorded` entry (discovery and occurrence times, drill, both deadlines, a
// digest of its text, who; its time is the row's creation), then `breach.updated` entries (the
// Board and CERT-In report times as they stand after the change, the text digest, the status),
// `breach.principals_added` entries (the principal ids added, at the entry's time) and
// `breach.principals_notified` entries (who was told with which notification, at the entry's time,
// and reportedToUserAt once everyone was). Checked both ways: each entry's breach exists; each
// breach and each of its affected-principal rows is the state its entries give. The text is not on
// the chain; its SHA-256 digest is, so text edited outside Guard is found too.
import { breachTextDigest } from "../../breaches/register.js";
import { pageAffectedPrincipals, type AffectedPrincipal } from "../../breaches/store/affected.js";
import { breachesWithIds, scanBreaches, type BreachRecord } from "../../breaches/store/breaches.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type CheckContext, type EvidenceKind } from "./checker.js";

const RECORDED = "breach.recorded";
const UPDATED = "breach.updated";
const ADDED = "breach.principals_added";
const NOTIFIED = "breach.principals_notified";
const ENTRY_TYPES = [RECORDED, UPDATED, ADDED, NOTIFIED];
const TABLE = "breaches";
const AFFECTED = "breach_affected_principals";

const actorIdOf = (entry: StoredAuditEntry): unknown => {
  const actor = payloadOf(entry).actor;
  return typeof actor === "object" && actor !== null ? ((actor as { id?: unknown }).id ?? null) : null;
};

const stored = (row: BreachRecord): Record<string, unknown> => ({
  discovered_at: row.discoveredAt,
  occurred_at: row.occurredAt,
  drill: row.drill,
  principal_notification_due_at: row.principalNotificationDueAt,
  board_due_at: row.boardDueAt,
  text: breachTextDigest(row),
  reported_to_user_at: row.reportedToUserAt,
  reported_to_board_at: row.reportedToBoardAt,
  detailed_report_submitted_at: row.detailedReportSubmittedAt,
  cert_in_report_submitted_at: row.certInReportSubmittedAt,
  status: row.status,
  recorded_by: row.recordedBy,
  created_at: row.createdAt,
});

/** The breach and its principals as the chain gives them. */
interface ChainState {
  breach: Record<string, unknown>;
  principals: Map<string, { added_at: number; notified_at: number | null; notification_id: unknown }>;
  /** Principals the chain names twice (added twice, or told twice): each a finding. */
  repeated: { seq: number; reason: string }[];
}

function chainState(recorded: StoredAuditEntry, later: readonly StoredAuditEntry[]): ChainState {
  const first = payloadOf(recorded);
  const breach: Record<string, unknown> = {
    discovered_at: first.discoveredAt ?? null,
    occurred_at: first.occurredAt ?? null,
    drill: first.drill ?? null,
    principal_notification_due_at: first.principalNotificationDueAt ?? null,
    board_due_at: first.boardDueAt ?? null,
    text: first.textDigest ?? null,
    reported_to_user_at: null,
    reported_to_board_at: null,
    detailed_report_submitted_at: null,
    cert_in_report_submitted_at: null,
    status: first.status ?? null,
    recorded_by: actorIdOf(recorded),
    created_at: recorded.createdAt,
  };
  const principals: ChainState["principals"] = new Map();
  const repeated: ChainState["repeated"] = [];
  for (const entry of later) {
    const payload = payloadOf(entry);
    if (entry.entryType === UPDATED) {
      breach.reported_to_board_at = payload.reportedToBoardAt ?? null;
      breach.detailed_report_submitted_at = payload.detailedReportSubmittedAt ?? null;
      breach.cert_in_report_submitted_at = payload.certInReportSubmittedAt ?? null;
      breach.text = payload.textDigest ?? null;
      breach.status = payload.status ?? null;
    } else if (entry.entryType === ADDED) {
      const ids = Array.isArray(payload.principalIds) ? payload.principalIds : [];
      for (const id of ids) {
        if (typeof id !== "string") continue;
        if (principals.has(id)) repeated.push({ seq: entry.seq, reason: `principal ${id} is added twice` });
        else principals.set(id, { added_at: entry.createdAt, notified_at: null, notification_id: null });
      }
    } else if (entry.entryType === NOTIFIED) {
      const told = Array.isArray(payload.notified) ? payload.notified : [];
      for (const item of told) {
        const { principalId, notificationId } = (item ?? {}) as {
          principalId?: unknown;
          notificationId?: unknown;
        };
        const state = typeof principalId === "string" ? principals.get(principalId) : undefined;
        if (!state) {
          repeated.push({
            seq: entry.seq,
            reason: `a principal told is not among those added: ${String(principalId)}`,
          });
        } else if (state.notified_at !== null) {
          repeated.push({ seq: entry.seq, reason: `principal ${String(principalId)} is told twice` });
        } else {
          state.notified_at = entry.createdAt;
          state.notification_id = notificationId ?? null;
        }
      }
      if (breach.reported_to_user_at === null && typeof payload.reportedToUserAt === "number")
        breach.reported_to_user_at = payload.reportedToUserAt;
      breach.status = payload.status ?? null;
    }
  }
  return { breach, principals, repeated };
}

const storedAffected = (row: AffectedPrincipal): Record<string, unknown> => ({
  added_at: row.addedAt,
  notified_at: row.notifiedAt,
  notification_id: row.notificationId,
});

/** Every affected-principal row of the breach against the chain's list, in keyset pages. */
async function checkAffected(
  context: CheckContext,
  breachId: string,
  state: ChainState,
  seq: number,
): Promise<void> {
  const { db, organizationId, findings } = context;
  const seen = new Set<string>();
  let after = "";
  for (;;) {
    const rows = await pageAffectedPrincipals(db, organizationId, breachId, after, context.pageSize);
    if (rows.length === 0) break;
    after = rows[rows.length - 1]!.principalId;
    context.checked(AFFECTED, rows.length);
    for (const row of rows) {
      seen.add(row.principalId);
      const recordId = `${breachId}/${row.principalId}`;
      const expected = state.principals.get(row.principalId);
      if (!expected) {
        findings.add({
          table: AFFECTED,
          recordId,
          seq,
          reason: "the principal is on the breach with no entry adding it",
        });
        continue;
      }
      const differ = differences(storedAffected(row), expected);
      if (differ.length > 0) findings.add({ table: AFFECTED, recordId, seq, reason: differ.join("; ") });
    }
  }
  for (const principalId of state.principals.keys()) {
    if (!seen.has(principalId))
      findings.add({
        table: AFFECTED,
        recordId: `${breachId}/${principalId}`,
        seq,
        reason: `the affected principal recorded in the chain is missing from ${AFFECTED}`,
      });
  }
}

export const breachEvidence: EvidenceKind = {
  tables: [TABLE, AFFECTED],
  entryTypes: ENTRY_TYPES,
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: ENTRY_TYPES,
      // Entry -> row: the breach each entry names exists (content is compared in checkRows, where
      // all of a breach's entries are at hand).
      async checkEntries(entries) {
        await checkEntriesNameRows(findings, entries, {
          idField: "breachId",
          table: TABLE,
          noun: "breach",
          load: (ids) => breachesWithIds(db, organizationId, ids),
        });
      },
      // Row -> entries: every breach has exactly one recording entry and is the state its entries
      // give, and so is each of its affected principals.
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanBreaches(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.breachId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.breachId),
            ENTRY_TYPES,
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.breachId);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.breachId, seq, reason });
            const recordings = own.filter((e) => e.entryType === RECORDED);
            const recorded = recordings[0];
            if (!recorded) {
              problem(null, "the breach has no recording entry in the audit chain");
              continue;
            }
            if (recordings.length > 1)
              problem(recordings[1]!.seq, "the breach has more than one recording entry");
            const state = chainState(
              recorded,
              own.filter((e) => e.entryType !== RECORDED),
            );
            const last = own[own.length - 1]!.seq;
            for (const r of state.repeated) problem(r.seq, r.reason);
            const differ = differences(stored(row), state.breach);
            if (differ.length > 0) problem(last, differ.join("; "));
            await checkAffected(context, row.breachId, state, last);
          }
        }
      },
    };
  },
};
