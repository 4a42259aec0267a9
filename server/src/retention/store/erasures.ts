// retention_scheduled_erasures: the erasure schedule. Every statement filters by organization_id,
// except the sweep's notice claim, which works across organisations and returns each row's
// organisation. "Held" is never stored: it is whether a legal hold in force covers the row, asked
// of retention_legal_holds at the moment of the read, so releasing a hold needs no second write.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows, sql } from "../../db/query.js";
import type { AnchorEvent } from "./policies.js";

export type ErasureStatus = "scheduled" | "cancelled" | "executed";

export interface ErasureRecord {
  organizationId: string;
  scheduledErasureId: string;
  policyId: string;
  principalId: string;
  anchorEvent: AnchorEvent;
  anchorAt: number;
  scheduledFor: number;
  noticeHours: number;
  status: ErasureStatus;
  createdAt: number;
  preNotificationSentAt: number | null;
  notificationId: string | null;
  dueAt: number | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  /** Who cancelled it by hand, and why; null for the sweep's cancellations. */
  cancelledBy: string | null;
  cancelNote: string | null;
  executedAt: number | null;
  executedBy: string | null;
}

type ErasureRow = {
  organization_id: string;
  scheduled_erasure_id: string;
  policy_id: string;
  principal_id: string;
  anchor_event: string;
  anchor_at: number | string;
  scheduled_for: number | string;
  notice_hours: number;
  status: string;
  created_at: number | string;
  pre_notification_sent_at: number | string | null;
  notification_id: string | null;
  due_at: number | string | null;
  cancelled_at: number | string | null;
  cancel_reason: string | null;
  cancelled_by: string | null;
  cancel_note: string | null;
  executed_at: number | string | null;
  executed_by: string | null;
};

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const erasureOf = (r: ErasureRow): ErasureRecord => ({
  organizationId: r.organization_id,
  scheduledErasureId: r.scheduled_erasure_id,
  policyId: r.policy_id,
  principalId: r.principal_id,
  anchorEvent: r.anchor_event as AnchorEvent,
  anchorAt: Number(r.anchor_at),
  scheduledFor: Number(r.scheduled_for),
  noticeHours: r.notice_hours,
  status: r.status as ErasureStatus,
  createdAt: Number(r.created_at),
  preNotificationSentAt: num(r.pre_notification_sent_at),
  notificationId: r.notification_id,
  dueAt: num(r.due_at),
  cancelledAt: num(r.cancelled_at),
  cancelReason: r.cancel_reason,
  cancelledBy: r.cancelled_by,
  cancelNote: r.cancel_note,
  executedAt: num(r.executed_at),
  executedBy: r.executed_by,
});

/** Whether a legal hold in force at `now` covers the row (its principal, its policy, or both). */
const heldAt = (now: number) =>
  sql<boolean>`EXISTS (SELECT 1 FROM retention_legal_holds h
    WHERE h.organization_id = retention_scheduled_erasures.organization_id
      AND h.released_at IS NULL AND (h.ends_at IS NULL OR h.ends_at > ${now})
      AND (h.principal_id IS NULL OR h.principal_id = retention_scheduled_erasures.principal_id)
      AND (h.policy_id IS NULL OR h.policy_id = retention_scheduled_erasures.policy_id))`;

export interface NewErasure {
  organizationId: string;
  scheduledErasureId: string;
  policyId: string;
  principalId: string;
  anchorEvent: AnchorEvent;
  anchorAt: number;
  scheduledFor: number;
  noticeHours: number;
  createdAt: number;
}

/**
 * Schedules the erasure; undefined when this window is already scheduled (whatever became of it)
 * or the principal already has an open erasure under the policy. ON CONFLICT on the two unique
 * indexes rather than a read first, so two sweeps racing create one row and never a 500.
 */
export async function insertErasure(tx: Queryable, e: NewErasure): Promise<ErasureRecord | undefined> {
  const row = await first(
    tx,
    qb
      .insertInto("retention_scheduled_erasures")
      .values({
        organization_id: e.organizationId,
        scheduled_erasure_id: e.scheduledErasureId,
        policy_id: e.policyId,
        principal_id: e.principalId,
        anchor_event: e.anchorEvent,
        anchor_at: e.anchorAt,
        scheduled_for: e.scheduledFor,
        notice_hours: e.noticeHours,
        status: "scheduled",
        created_at: e.createdAt,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll(),
  );
  return row && erasureOf(row);
}

export async function findErasure(
  db: Queryable,
  organizationId: string,
  scheduledErasureId: string,
  now: number,
  options: { forUpdate?: boolean } = {},
): Promise<(ErasureRecord & { held: boolean }) | undefined> {
  let query = qb
    .selectFrom("retention_scheduled_erasures")
    .selectAll()
    .select(heldAt(now).as("held"))
    .where("organization_id", "=", organizationId)
    .where("scheduled_erasure_id", "=", scheduledErasureId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await first(db, query);
  return row && { ...erasureOf(row), held: row.held === true };
}

/**
 * Locks up to `limit` open, unheld erasures (of every organisation) whose pre-notification is owed
 * at `now` (scheduled_for minus the notice hours), earliest first. SKIP LOCKED: instances sweeping
 * at once take different rows; the caller notifies and marks each in the same transaction.
 */
export async function lockErasuresOwedNotice(
  tx: Queryable,
  now: number,
  limit: number,
  skipOrganizations: readonly string[] = [],
): Promise<ErasureRecord[]> {
  const found = await rows(
    tx,
    qb
      .selectFrom("retention_scheduled_erasures")
      .selectAll()
      .$if(skipOrganizations.length > 0, (q) => q.where("organization_id", "not in", skipOrganizations))
      .where("status", "=", "scheduled")
      .where("pre_notification_sent_at", "is", null)
      .where(sql<boolean>`scheduled_for - notice_hours::bigint * 3600000 <= ${now}`)
      .where(sql<boolean>`NOT ${heldAt(now)}`)
      .orderBy("scheduled_for")
      .limit(limit)
      .forUpdate()
      .skipLocked(),
  );
  return found.map(erasureOf);
}

export async function markNotified(
  tx: Queryable,
  input: {
    organizationId: string;
    scheduledErasureId: string;
    sentAt: number;
    notificationId: string;
    dueAt: number;
  },
): Promise<ErasureRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("retention_scheduled_erasures")
      .set({
        pre_notification_sent_at: input.sentAt,
        notification_id: input.notificationId,
        due_at: input.dueAt,
      })
      .where("organization_id", "=", input.organizationId)
      .where("scheduled_erasure_id", "=", input.scheduledErasureId)
      .where("status", "=", "scheduled")
      .where("pre_notification_sent_at", "is", null)
      .returningAll(),
  );
  return row && erasureOf(row);
}

/** Cancels an open erasure; undefined when it is not open (any more). */
export async function markCancelled(
  tx: Queryable,
  input: {
    organizationId: string;
    scheduledErasureId: string;
    cancelledAt: number;
    reason: string;
    by?: { actorId: string; note: string } | undefined;
  },
): Promise<ErasureRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("retention_scheduled_erasures")
      .set({
        status: "cancelled",
        cancelled_at: input.cancelledAt,
        cancel_reason: input.reason,
        cancelled_by: input.by?.actorId ?? null,
        cancel_note: input.by?.note ?? null,
      })
      .where("organization_id", "=", input.organizationId)
      .where("scheduled_erasure_id", "=", input.scheduledErasureId)
      .where("status", "=", "scheduled")
      .returningAll(),
  );
  return row && erasureOf(row);
}

/** Marks an open, notified erasure executed; undefined when it is not. */
export async function markExecuted(
  tx: Queryable,
  input: { organizationId: string; scheduledErasureId: string; executedAt: number; executedBy: string },
): Promise<ErasureRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("retention_scheduled_erasures")
      .set({ status: "executed", executed_at: input.executedAt, executed_by: input.executedBy })
      .where("organization_id", "=", input.organizationId)
      .where("scheduled_erasure_id", "=", input.scheduledErasureId)
      .where("status", "=", "scheduled")
      .where("due_at", "is not", null)
      .returningAll(),
  );
  return row && erasureOf(row);
}

/** Up to `limit` of the organisation's open erasures with ids after `after`, by id (the sweep's walk). */
export async function openErasures(
  db: Queryable,
  organizationId: string,
  after: string,
  limit: number,
): Promise<ErasureRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_scheduled_erasures")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("status", "=", "scheduled")
      .where("scheduled_erasure_id", ">", after)
      .orderBy("scheduled_erasure_id")
      .limit(limit),
  );
  return found.map(erasureOf);
}

/** The organisation's open erasures under one policy (a policy change cancels them). */
export async function openErasuresOfPolicy(
  db: Queryable,
  organizationId: string,
  policyId: string,
): Promise<ErasureRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_scheduled_erasures")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("policy_id", "=", policyId)
      .where("status", "=", "scheduled")
      .orderBy("scheduled_erasure_id"),
  );
  return found.map(erasureOf);
}

/**
 * A page of the organisation's due erasures at `now` (open, notified, past due_at, not held),
 * earliest due first, after `after` (due_at, id).
 */
export async function listDueErasures(
  db: Queryable,
  organizationId: string,
  read: { now: number; after?: readonly [number, string] | undefined; limit: number },
): Promise<ErasureRecord[]> {
  let query = qb
    .selectFrom("retention_scheduled_erasures")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("status", "=", "scheduled")
    .where("due_at", "<=", read.now)
    .where(sql<boolean>`NOT ${heldAt(read.now)}`);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("due_at", "scheduled_erasure_id"), ">", eb.tuple(...after)));
  const found = await rows(db, query.orderBy("due_at").orderBy("scheduled_erasure_id").limit(read.limit));
  return found.map(erasureOf);
}

export type ErasureState = "scheduled" | "held" | "due" | "cancelled" | "executed";

/** A page of the organisation's erasures, newest first, with filters; each with whether it is held. */
export async function listErasures(
  db: Queryable,
  organizationId: string,
  read: {
    now: number;
    state?: ErasureState | undefined;
    policyId?: string | undefined;
    principalId?: string | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<(ErasureRecord & { held: boolean })[]> {
  let query = qb
    .selectFrom("retention_scheduled_erasures")
    .selectAll()
    .select(heldAt(read.now).as("held"))
    .where("organization_id", "=", organizationId);
  if (read.policyId !== undefined) query = query.where("policy_id", "=", read.policyId);
  if (read.principalId !== undefined) query = query.where("principal_id", "=", read.principalId);
  switch (read.state) {
    case "cancelled":
    case "executed":
      query = query.where("status", "=", read.state);
      break;
    case "held":
      query = query.where("status", "=", "scheduled").where(heldAt(read.now));
      break;
    case "due":
      query = query
        .where("status", "=", "scheduled")
        .where("due_at", "<=", read.now)
        .where(sql<boolean>`NOT ${heldAt(read.now)}`);
      break;
    case "scheduled":
      query = query
        .where("status", "=", "scheduled")
        .where((eb) => eb.or([eb("due_at", "is", null), eb("due_at", ">", read.now)]))
        .where(sql<boolean>`NOT ${heldAt(read.now)}`);
      break;
    default:
      break;
  }
  const after = read.after;
  if (after)
    query = query.where((eb) =>
      eb(eb.refTuple("created_at", "scheduled_erasure_id"), "<", eb.tuple(...after)),
    );
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("scheduled_erasure_id", "desc").limit(read.limit),
  );
  return found.map((r) => ({ ...erasureOf(r), held: r.held === true }));
}

export async function erasuresWithIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, ErasureRecord>> {
  if (ids.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("retention_scheduled_erasures")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("scheduled_erasure_id", "in", [...ids]),
  );
  return new Map(found.map((r) => [r.scheduled_erasure_id, erasureOf(r)]));
}

export async function scanErasures(
  db: Queryable,
  organizationId: string,
  after: string,
  limit: number,
): Promise<ErasureRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_scheduled_erasures")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("scheduled_erasure_id", ">", after)
      .orderBy("scheduled_erasure_id")
      .limit(limit),
  );
  return found.map(erasureOf);
}
