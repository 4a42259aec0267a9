// Retention-register evidence (retention/ writes it): each retention_policies row has one
// `retention.policy_created` entry, an entry per change (`retention.policy_updated`, carrying the
// terms after it) and at most one `retention.policy_archived`; each retention_legal_holds row one
// `retention.hold_placed` and at most one `retention.hold_released`; each
// retention_scheduled_erasures row one `retention.erasure_scheduled` and at most one each of
// `retention.erasure_notified`, `retention.erasure_cancelled` and `retention.erasure_executed`.
// Checked both ways: each entry's row exists; each row is the state its entries give (the entry's
// time is the time of the change). Reported events (retention_events) are not on the chain.
import { erasuresWithIds, scanErasures, type ErasureRecord } from "../../retention/store/erasures.js";
import { holdsWithIds, scanHolds, type HoldRecord } from "../../retention/store/holds.js";
import { policiesWithIds, scanPolicies, type PolicyRecord } from "../../retention/store/policies.js";
import type { Queryable } from "../../db/database.js";
import { differences, type Findings } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type CheckContext, type EvidenceKind } from "./checker.js";

const POLICY_TYPES = ["retention.policy_created", "retention.policy_updated", "retention.policy_archived"];
const HOLD_TYPES = ["retention.hold_placed", "retention.hold_released"];
const ERASURE_TYPES = [
  "retention.erasure_scheduled",
  "retention.erasure_notified",
  "retention.erasure_cancelled",
  "retention.erasure_executed",
];

const actorIdOf = (entry: StoredAuditEntry | undefined): unknown => {
  const actor = entry && payloadOf(entry).actor;
  return typeof actor === "object" && actor !== null ? ((actor as { id?: unknown }).id ?? null) : null;
};

/** How one table's rows are read and judged against their entries. */
interface Register<Row> {
  table: string;
  idField: string;
  types: readonly string[];
  idOf(row: Row): string;
  load(db: Queryable, organizationId: string, ids: string[]): Promise<Map<string, Row>>;
  scan(db: Queryable, organizationId: string, after: string, limit: number): Promise<Row[]>;
  /** Problems with the row's entries (missing, repeated), or its stored and committed state. */
  judge(
    row: Row,
    entries: StoredAuditEntry[],
  ): {
    problem?: { seq: number | null; reason: string };
    stored?: Record<string, unknown>;
    committed?: Record<string, unknown>;
    seq?: number;
  };
}

const only = (entries: StoredAuditEntry[], type: string) => entries.filter((e) => e.entryType === type);

const policies: Register<PolicyRecord> = {
  table: "retention_policies",
  idField: "policyId",
  types: POLICY_TYPES,
  idOf: (r) => r.policyId,
  load: policiesWithIds,
  scan: scanPolicies,
  judge(row, entries) {
    const [created, ...extraCreated] = only(entries, POLICY_TYPES[0]!);
    const updates = only(entries, POLICY_TYPES[1]!);
    const [archived, ...extraArchived] = only(entries, POLICY_TYPES[2]!);
    if (!created)
      return { problem: { seq: null, reason: "the policy has no creation entry in the audit chain" } };
    if (extraCreated.length > 0)
      return {
        problem: { seq: extraCreated[0]!.seq, reason: "the policy has more than one creation entry" },
      };
    if (extraArchived.length > 0)
      return {
        problem: { seq: extraArchived[0]!.seq, reason: "the policy has more than one archiving entry" },
      };
    const last = updates[updates.length - 1] ?? created;
    const terms = payloadOf(last);
    const base = payloadOf(created);
    return {
      seq: (archived ?? last).seq,
      stored: {
        name: row.name,
        purpose: row.purpose,
        activity_id: row.activityId,
        anchor_event: row.anchorEvent,
        duration_days: row.durationDays,
        notice_hours: row.noticeHours,
        window_floor_at: row.windowFloorAt,
        preset: row.preset,
        created_at: row.createdAt,
        created_by: row.createdBy,
        updated_at: row.updatedAt,
        updated_by: row.updatedBy,
        archived_at: row.archivedAt,
        archived_by: row.archivedBy,
      },
      committed: {
        name: terms.name ?? null,
        purpose: base.purpose ?? null,
        activity_id: base.activityId ?? null,
        anchor_event: base.anchorEvent ?? null,
        duration_days: terms.durationDays ?? null,
        notice_hours: terms.noticeHours ?? null,
        window_floor_at: terms.windowFloorAt ?? null,
        preset: base.preset ?? null,
        created_at: created.createdAt,
        created_by: actorIdOf(created),
        updated_at: last.createdAt,
        updated_by: actorIdOf(last),
        archived_at: archived?.createdAt ?? null,
        archived_by: archived ? actorIdOf(archived) : null,
      },
    };
  },
};

const holds: Register<HoldRecord> = {
  table: "retention_legal_holds",
  idField: "holdId",
  types: HOLD_TYPES,
  idOf: (r) => r.holdId,
  load: holdsWithIds,
  scan: scanHolds,
  judge(row, entries) {
    const [placed, ...extraPlaced] = only(entries, HOLD_TYPES[0]!);
    const [released, ...extraReleased] = only(entries, HOLD_TYPES[1]!);
    if (!placed) return { problem: { seq: null, reason: "the hold has no entry in the audit chain" } };
    if (extraPlaced.length > 0)
      return { problem: { seq: extraPlaced[0]!.seq, reason: "the hold has more than one placing entry" } };
    if (extraReleased.length > 0)
      return { problem: { seq: extraReleased[0]!.seq, reason: "the hold has more than one release entry" } };
    const p = payloadOf(placed);
    return {
      seq: (released ?? placed).seq,
      stored: {
        principal_id: row.principalId,
        policy_id: row.policyId,
        statute: row.statute,
        citation: row.citation,
        ends_at: row.endsAt,
        created_at: row.createdAt,
        created_by: row.createdBy,
        released_at: row.releasedAt,
        released_by: row.releasedBy,
        release_reason: row.releaseReason,
      },
      committed: {
        principal_id: p.principalId ?? null,
        policy_id: p.policyId ?? null,
        statute: p.statute ?? null,
        citation: p.citation ?? null,
        ends_at: p.endsAt ?? null,
        created_at: placed.createdAt,
        created_by: actorIdOf(placed),
        released_at: released?.createdAt ?? null,
        released_by: released ? actorIdOf(released) : null,
        release_reason: released ? (payloadOf(released).reason ?? null) : null,
      },
    };
  },
};

const erasures: Register<ErasureRecord> = {
  table: "retention_scheduled_erasures",
  idField: "scheduledErasureId",
  types: ERASURE_TYPES,
  idOf: (r) => r.scheduledErasureId,
  load: erasuresWithIds,
  scan: scanErasures,
  judge(row, entries) {
    const lists = ERASURE_TYPES.map((type) => only(entries, type));
    const [scheduled, notified, cancelled, executed] = lists.map((l) => l[0]);
    if (!scheduled)
      return { problem: { seq: null, reason: "the erasure has no scheduling entry in the audit chain" } };
    const repeated = lists.find((l) => l.length > 1);
    if (repeated)
      return {
        problem: {
          seq: repeated[1]!.seq,
          reason: `the erasure has more than one ${repeated[0]!.entryType} entry`,
        },
      };
    if (cancelled && executed)
      return {
        problem: { seq: executed.seq, reason: "the erasure is both cancelled and executed in the chain" },
      };
    const s = payloadOf(scheduled);
    const n = notified && payloadOf(notified);
    return {
      seq: (executed ?? cancelled ?? notified ?? scheduled).seq,
      stored: {
        policy_id: row.policyId,
        principal_id: row.principalId,
        anchor_event: row.anchorEvent,
        anchor_at: row.anchorAt,
        scheduled_for: row.scheduledFor,
        notice_hours: row.noticeHours,
        created_at: row.createdAt,
        status: row.status,
        pre_notification_sent_at: row.preNotificationSentAt,
        notification_id: row.notificationId,
        due_at: row.dueAt,
        cancelled_at: row.cancelledAt,
        cancel_reason: row.cancelReason,
        cancelled_by: row.cancelledBy,
        cancel_note: row.cancelNote,
        executed_at: row.executedAt,
        executed_by: row.executedBy,
      },
      committed: {
        policy_id: s.policyId ?? null,
        principal_id: s.principalId ?? null,
        anchor_event: s.anchorEvent ?? null,
        anchor_at: s.anchorAt ?? null,
        scheduled_for: s.scheduledFor ?? null,
        notice_hours: s.noticeHours ?? null,
        created_at: scheduled.createdAt,
        status: executed ? "executed" : cancelled ? "cancelled" : "scheduled",
        pre_notification_sent_at: notified?.createdAt ?? null,
        notification_id: n ? (n.notificationId ?? null) : null,
        due_at: n ? (n.dueAt ?? null) : null,
        cancelled_at: cancelled?.createdAt ?? null,
        cancel_reason: cancelled ? (payloadOf(cancelled).reason ?? null) : null,
        cancelled_by: actorIdOf(cancelled),
        cancel_note: cancelled ? (payloadOf(cancelled).note ?? null) : null,
        executed_at: executed ? (payloadOf(executed).executedAt ?? null) : null,
        executed_by: executed ? actorIdOf(executed) : null,
      },
    };
  },
};

async function checkEntriesOf<Row>(
  context: CheckContext,
  register: Register<Row>,
  entries: readonly StoredAuditEntry[],
): Promise<void> {
  const own = entries.filter((e) => register.types.includes(e.entryType));
  if (own.length === 0) return;
  await checkEntriesNameRows(context.findings, own, {
    idField: register.idField,
    table: register.table,
    noun: "row",
    load: (ids) => register.load(context.db, context.organizationId, ids),
  });
}

async function checkRowsOf<Row>(
  context: CheckContext,
  register: Register<Row>,
  findings: Findings,
): Promise<void> {
  let after = "";
  for (;;) {
    const rows = await register.scan(context.db, context.organizationId, after, context.pageSize);
    if (rows.length === 0) return;
    after = register.idOf(rows[rows.length - 1]!);
    context.checked(register.table, rows.length);
    const entries = await chainEntriesAbout(
      context.db,
      context.organizationId,
      rows.map(register.idOf),
      register.types,
    );
    for (const row of rows) {
      const id = register.idOf(row);
      const verdict = register.judge(
        row,
        entries.filter((e) => e.subjectId === id),
      );
      if (verdict.problem) {
        findings.add({ table: register.table, recordId: id, ...verdict.problem });
        continue;
      }
      const differ = differences(verdict.stored!, verdict.committed!);
      if (differ.length > 0)
        findings.add({
          table: register.table,
          recordId: id,
          seq: verdict.seq ?? null,
          reason: differ.join("; "),
        });
    }
  }
}

export const retentionEvidence: EvidenceKind = {
  tables: [policies.table, holds.table, erasures.table],
  entryTypes: [...POLICY_TYPES, ...HOLD_TYPES, ...ERASURE_TYPES],
  start(context) {
    return {
      entryTypes: this.entryTypes,
      async checkEntries(entries) {
        await checkEntriesOf(context, policies, entries);
        await checkEntriesOf(context, holds, entries);
        await checkEntriesOf(context, erasures, entries);
      },
      async checkRows() {
        await checkRowsOf(context, policies, context.findings);
        await checkRowsOf(context, holds, context.findings);
        await checkRowsOf(context, erasures, context.findings);
      },
    };
  },
};
