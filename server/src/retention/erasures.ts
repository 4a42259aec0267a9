// The erasure schedule's rules: scheduling a principal's erasure under a policy, the
// pre-notification (DPDP Rules 2025 r.8(2): at least 48 hours before), cancelling, the due list the
// fiduciary's backend polls, and its confirmation that it erased. Every change is on the audit chain
// and raises its webhook event in the same transaction.
import { findPrincipalRow, findPrincipalsByIds } from "../accounts/store.js";
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import type { Notifier } from "../notifications/notifier.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { anchorOf, factsOf } from "./anchors.js";
import { DAY_MS, epochMs, HOUR_MS, oneOf, text, type RetentionActor } from "./common.js";
import {
  findErasure,
  insertErasure,
  listDueErasures,
  listErasures,
  markCancelled,
  markExecuted,
  markNotified,
  openErasuresOfPolicy,
  type ErasureRecord,
  type ErasureState,
} from "./store/erasures.js";
import { activePolicies, findPolicy, type AnchorEvent, type PolicyRecord } from "./store/policies.js";

export const ERASURE_STATES: readonly ErasureState[] = ["scheduled", "held", "due", "cancelled", "executed"];

/** Why an erasure was cancelled. */
export type CancelReason =
  "principal_activity" | "anchor_changed" | "policy_changed" | "policy_archived" | "staff_cancelled";

/** The longest note a staff cancellation carries (the hold release reason's limit). */
export const MAX_CANCEL_NOTE_LENGTH = 500;

export interface ErasureWire {
  scheduledErasureId: string;
  policyId: string;
  userId: string;
  anchorEvent: AnchorEvent;
  anchorAt: number;
  scheduledFor: number;
  noticeHours: number;
  status: ErasureState;
  createdAt: number;
  preNotificationSentAt: number | null;
  dueAt: number | null;
  cancelledAt: number | null;
  cancelReason: string | null;
  cancelledBy: string | null;
  cancelNote: string | null;
  executedAt: number | null;
  executedBy: string | null;
}

/** Where an erasure stands at `now`: `held` and `due` are computed, never stored. */
export function stateOf(e: ErasureRecord & { held: boolean }, now: number): ErasureState {
  if (e.status !== "scheduled") return e.status;
  if (e.held) return "held";
  return e.dueAt !== null && e.dueAt <= now ? "due" : "scheduled";
}

export const erasureToWire = (
  e: ErasureRecord & { held: boolean },
  externalId: string,
  now: number,
): ErasureWire => ({
  scheduledErasureId: e.scheduledErasureId,
  policyId: e.policyId,
  userId: externalId,
  anchorEvent: e.anchorEvent,
  anchorAt: e.anchorAt,
  scheduledFor: e.scheduledFor,
  noticeHours: e.noticeHours,
  status: stateOf(e, now),
  createdAt: e.createdAt,
  preNotificationSentAt: e.preNotificationSentAt,
  dueAt: e.dueAt,
  cancelledAt: e.cancelledAt,
  cancelReason: e.cancelReason,
  cancelledBy: e.cancelledBy,
  cancelNote: e.cancelNote,
  executedAt: e.executedAt,
  executedBy: e.executedBy,
});

/** The externalIds of these records' principals, by principal id. */
export async function externalIdsOf(
  db: Queryable,
  organizationId: string,
  records: readonly { principalId: string }[],
): Promise<Map<string, string>> {
  const found = await findPrincipalsByIds(
    db,
    [...new Set(records.map((r) => r.principalId))].map((principalId) => ({ organizationId, principalId })),
  );
  return new Map(found.map((p) => [p.principalId, p.externalId]));
}

/** When a window anchored at `anchorAt` under the policy elapses. */
export const scheduledForOf = (policy: PolicyRecord, anchorAt: number) =>
  anchorAt + policy.durationDays * DAY_MS;

/**
 * Schedules the principal's erasure in `tx`, with its chain entry; undefined when that window is
 * already scheduled or she has an open erasure under the policy (another sweep got there first).
 */
export async function scheduleErasure(
  tx: Queryable,
  policy: PolicyRecord,
  principalId: string,
  anchorAt: number,
  now: number,
): Promise<ErasureRecord | undefined> {
  const erasure = await insertErasure(tx, {
    organizationId: policy.organizationId,
    scheduledErasureId: newId("rse"),
    policyId: policy.policyId,
    principalId,
    anchorEvent: policy.anchorEvent,
    anchorAt,
    scheduledFor: scheduledForOf(policy, anchorAt),
    noticeHours: policy.noticeHours,
    createdAt: now,
  });
  if (!erasure) return undefined;
  await appendAuditEntry(
    tx,
    {
      organizationId: erasure.organizationId,
      entryType: "retention.erasure_scheduled",
      subjectId: erasure.scheduledErasureId,
      payload: {
        scheduledErasureId: erasure.scheduledErasureId,
        policyId: erasure.policyId,
        principalId: erasure.principalId,
        anchorEvent: erasure.anchorEvent,
        anchorAt: erasure.anchorAt,
        scheduledFor: erasure.scheduledFor,
        noticeHours: erasure.noticeHours,
      },
    },
    now,
  );
  return erasure;
}

const formatTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, " UTC");

/**
 * Sends the pre-notification of a locked, open erasure through the notifier and records it: the
 * erasure becomes due at the later of its window's end and the notice's time plus its notice
 * hours, so it is never due less than the notice period after the principal was told.
 */
export async function notifyErasure(
  tx: Queryable,
  notifier: Notifier,
  erasure: ErasureRecord,
  now: number,
): Promise<ErasureRecord | undefined> {
  const dueAt = Math.max(erasure.scheduledFor, now + erasure.noticeHours * HOUR_MS);
  const { notificationId } = await notifier.notify(
    tx,
    {
      organizationId: erasure.organizationId,
      principalId: erasure.principalId,
      kind: "retention.pre_erasure",
      subjectId: erasure.scheduledErasureId,
      message: {
        subject: "Your personal data will be erased",
        body:
          `The personal data we hold about you will be erased on or after ${formatTime(dueAt)}, ` +
          "because the period for which we may keep it has ended. If you wish us to keep it, log in " +
          "or contact us before then.",
      },
    },
    now,
  );
  const notified = await markNotified(tx, {
    organizationId: erasure.organizationId,
    scheduledErasureId: erasure.scheduledErasureId,
    sentAt: now,
    notificationId,
    dueAt,
  });
  if (!notified) return undefined;
  await appendAuditEntry(
    tx,
    {
      organizationId: notified.organizationId,
      entryType: "retention.erasure_notified",
      subjectId: notified.scheduledErasureId,
      payload: { scheduledErasureId: notified.scheduledErasureId, notificationId, dueAt },
    },
    now,
  );
  const externalIds = await externalIdsOf(tx, notified.organizationId, [notified]);
  await enqueueEvent(
    tx,
    {
      organizationId: notified.organizationId,
      eventType: "retention.pre_notified",
      payload: {
        scheduledErasureId: notified.scheduledErasureId,
        policyId: notified.policyId,
        externalId: externalIds.get(notified.principalId) ?? null,
        scheduledFor: notified.scheduledFor,
        preNotificationSentAt: now,
        dueAt,
      },
    },
    now,
  );
  return notified;
}

/**
 * Cancels an open erasure in `tx` with its chain entry and event; undefined when not open. A staff
 * cancellation (`by`) puts who and why on the chain and the row; the event carries the reason code
 * only, never the note (free text stays out of webhook payloads).
 */
export async function cancelErasure(
  tx: Queryable,
  erasure: ErasureRecord,
  reason: CancelReason,
  now: number,
  by?: { actor: RetentionActor; note: string },
): Promise<ErasureRecord | undefined> {
  const cancelled = await markCancelled(tx, {
    organizationId: erasure.organizationId,
    scheduledErasureId: erasure.scheduledErasureId,
    cancelledAt: now,
    reason,
    by: by && { actorId: by.actor.id, note: by.note },
  });
  if (!cancelled) return undefined;
  await appendAuditEntry(
    tx,
    {
      organizationId: cancelled.organizationId,
      entryType: "retention.erasure_cancelled",
      subjectId: cancelled.scheduledErasureId,
      payload: {
        scheduledErasureId: cancelled.scheduledErasureId,
        reason,
        ...(by ? { note: by.note, actor: { kind: by.actor.kind, id: by.actor.id } } : {}),
      },
    },
    now,
  );
  const externalIds = await externalIdsOf(tx, cancelled.organizationId, [cancelled]);
  await enqueueEvent(
    tx,
    {
      organizationId: cancelled.organizationId,
      eventType: "retention.erasure_cancelled",
      payload: {
        scheduledErasureId: cancelled.scheduledErasureId,
        policyId: cancelled.policyId,
        externalId: externalIds.get(cancelled.principalId) ?? null,
        reason,
        cancelledAt: now,
      },
    },
    now,
  );
  return cancelled;
}

/**
 * Staff cancel one erasure by hand (in `tx`), with a note saying why: the window it was scheduled
 * for is never scheduled again (the sweep schedules the principal's next window, after her next
 * activity). Cancelling a cancelled erasure answers it unchanged and records nothing; an executed
 * one is CONFLICT; another organisation's id is NOT_FOUND.
 */
export async function cancelByStaff(
  tx: Queryable,
  input: { organizationId: string; scheduledErasureId: string; reason: unknown; actor: RetentionActor },
  now: number,
): Promise<ErasureWire> {
  const note = text(input.reason, "reason", MAX_CANCEL_NOTE_LENGTH);
  const erasure = await findErasure(tx, input.organizationId, input.scheduledErasureId, now, {
    forUpdate: true,
  });
  if (!erasure) throw notFound(`No scheduled erasure ${input.scheduledErasureId} in this organisation`);
  if (erasure.status === "executed")
    throw new Failure(
      "CONFLICT",
      `Scheduled erasure ${erasure.scheduledErasureId} was executed at ${formatTime(erasure.executedAt!)}; it cannot be cancelled`,
    );
  let current: ErasureRecord & { held: boolean } = erasure;
  if (erasure.status === "scheduled") {
    const cancelled = await cancelErasure(tx, erasure, "staff_cancelled", now, { actor: input.actor, note });
    if (!cancelled) throw new Error("an open erasure locked for update could not be cancelled");
    current = { ...cancelled, held: erasure.held };
  }
  const externalIds = await externalIdsOf(tx, current.organizationId, [current]);
  return erasureToWire(current, externalIds.get(current.principalId) ?? "", now);
}

export async function cancelOpenErasuresOfPolicy(
  tx: Queryable,
  policy: PolicyRecord,
  reason: CancelReason,
  now: number,
): Promise<number> {
  let count = 0;
  for (const erasure of await openErasuresOfPolicy(tx, policy.organizationId, policy.policyId))
    if (await cancelErasure(tx, erasure, reason, now)) count++;
  return count;
}

/**
 * Why an open erasure no longer stands, or undefined when it does: its policy was archived or its
 * terms changed (a sweep that read the policy before the change may have scheduled under the old
 * ones), or the window the principal's data gives now is not the one it was scheduled for (she
 * came back, re-consented, or a later event was reported).
 */
export function staleReason(
  erasure: ErasureRecord,
  policy: PolicyRecord | undefined,
  currentAnchor: number | null,
): CancelReason | undefined {
  if (!policy || policy.archivedAt !== null) return "policy_archived";
  if (currentAnchor === erasure.anchorAt)
    return scheduledForOf(policy, currentAnchor) === erasure.scheduledFor ? undefined : "policy_changed";
  return erasure.anchorEvent === "last_interaction" || erasure.anchorEvent === "consent_withdrawn"
    ? "principal_activity"
    : "anchor_changed";
}

/**
 * For each erasure, the reason it no longer stands (see staleReason), by id; current ones left out.
 * `policies` holds the erasures' policies (a policy missing from it counts as archived).
 */
export async function staleErasures(
  db: Queryable,
  organizationId: string,
  erasures: readonly ErasureRecord[],
  policies: ReadonlyMap<string, PolicyRecord>,
): Promise<Map<string, CancelReason>> {
  const facts = await factsOf(
    db,
    organizationId,
    erasures.map((e) => e.principalId),
  );
  const out = new Map<string, CancelReason>();
  for (const erasure of erasures) {
    const policy = policies.get(erasure.policyId);
    const principal = facts.get(erasure.principalId);
    const anchor = policy && principal ? anchorOf(policy, principal) : null;
    const reason = staleReason(erasure, policy, anchor);
    if (reason) out.set(erasure.scheduledErasureId, reason);
  }
  return out;
}

export interface DueRetentionWire {
  scheduledErasureId: string;
  userId: string;
  scheduledFor: number;
  reason: string;
  preNotificationSentAt?: number;
  policyId: string;
  dueAt: number;
}

/**
 * One page of the organisation's due erasures (open, notified, due, not held), earliest due first.
 * An erasure whose principal came back since the last sweep is left off here already (the sweep
 * cancels it), so the backend is never handed one it must not execute.
 */
export async function pageDueErasures(
  db: Queryable,
  organizationId: string,
  query: PageRequest,
  now: number,
): Promise<Page<DueRetentionWire>> {
  const page = await keysetPage(
    query,
    {
      scope: pageScope("listDueRetentions", organizationId),
      shape: ["number", "string"],
      keyOf: (e: ErasureRecord): [number, string] => [e.dueAt ?? 0, e.scheduledErasureId],
    },
    (after, limit) => listDueErasures(db, organizationId, { now, after, limit }),
  );
  const policies = new Map((await activePolicies(db, organizationId)).map((p) => [p.policyId, p]));
  const stale = await staleErasures(db, organizationId, page.items, policies);
  const externalIds = await externalIdsOf(db, organizationId, page.items);
  return {
    items: page.items
      .filter((e) => !stale.has(e.scheduledErasureId))
      .map((e) => ({
        scheduledErasureId: e.scheduledErasureId,
        userId: externalIds.get(e.principalId) ?? "",
        scheduledFor: e.scheduledFor,
        reason: e.anchorEvent,
        ...(e.preNotificationSentAt !== null ? { preNotificationSentAt: e.preNotificationSentAt } : {}),
        policyId: e.policyId,
        dueAt: e.dueAt ?? e.scheduledFor,
      })),
    nextCursor: page.nextCursor,
  };
}

export interface ErasureListQuery extends PageRequest {
  status?: unknown;
  policyId?: string | undefined;
  externalId?: string | undefined;
}

/** One page of the organisation's erasures in every state, newest first, with filters. */
export async function pageErasures(
  db: Queryable,
  organizationId: string,
  query: ErasureListQuery,
  now: number,
): Promise<Page<ErasureWire>> {
  const state = query.status === undefined ? undefined : oneOf(query.status, "status", ERASURE_STATES);
  let principalId: string | undefined;
  if (query.externalId !== undefined) {
    const principal = await findPrincipalRow(db, organizationId, { externalId: query.externalId });
    if (!principal) return { items: [], nextCursor: null };
    principalId = principal.principalId;
  }
  const page = await keysetPage(
    query,
    {
      scope: pageScope(
        "listScheduledErasures",
        organizationId,
        state ?? "all",
        query.policyId ?? "",
        principalId ?? "",
      ),
      shape: ["number", "string"],
      keyOf: (e: ErasureRecord): [number, string] => [e.createdAt, e.scheduledErasureId],
    },
    (after, limit) =>
      listErasures(db, organizationId, { now, state, policyId: query.policyId, principalId, after, limit }),
  );
  const externalIds = await externalIdsOf(db, organizationId, page.items);
  return {
    items: page.items.map((e) => erasureToWire(e, externalIds.get(e.principalId) ?? "", now)),
    nextCursor: page.nextCursor,
  };
}

export interface ExecutedAnswer {
  scheduledErasureId: string;
  status: "executed";
  executedAt: number;
}

/**
 * The fiduciary's backend confirms it erased (in `tx`). Repeating it answers the first
 * confirmation. NOT_FOUND for another organisation's id; CONFLICT for an erasure that was
 * cancelled, is held, is not due yet, or whose principal came back since the last sweep.
 */
export async function confirmExecuted(
  tx: Queryable,
  input: { organizationId: string; scheduledErasureId: string; executedAt?: unknown; actor: RetentionActor },
  now: number,
): Promise<ExecutedAnswer> {
  const executedAt = input.executedAt === undefined ? now : epochMs(input.executedAt, "executedAt");
  const erasure = await findErasure(tx, input.organizationId, input.scheduledErasureId, now, {
    forUpdate: true,
  });
  if (!erasure) throw notFound(`No scheduled erasure ${input.scheduledErasureId} in this organisation`);
  if (erasure.status === "executed")
    return {
      scheduledErasureId: erasure.scheduledErasureId,
      status: "executed",
      executedAt: erasure.executedAt!,
    };
  if (erasure.status === "cancelled")
    throw new Failure(
      "CONFLICT",
      `Scheduled erasure ${erasure.scheduledErasureId} was cancelled (${erasure.cancelReason}) and must not be executed`,
    );
  if (erasure.held)
    throw new Failure(
      "CONFLICT",
      `Scheduled erasure ${erasure.scheduledErasureId} is held by a legal hold and must not be executed`,
    );
  if (erasure.dueAt === null || erasure.dueAt > now)
    throw new Failure(
      "CONFLICT",
      erasure.dueAt === null
        ? `Scheduled erasure ${erasure.scheduledErasureId} is not due: the principal has not been notified yet`
        : `Scheduled erasure ${erasure.scheduledErasureId} is not due until ${formatTime(erasure.dueAt)}`,
    );
  if (executedAt > now) throw validationError("executedAt", "executedAt must not be in the future");
  if (executedAt < erasure.scheduledFor)
    throw validationError(
      "executedAt",
      `executedAt must not be before scheduledFor (${erasure.scheduledFor}, ${formatTime(erasure.scheduledFor)})`,
    );
  if (executedAt < erasure.dueAt)
    throw validationError(
      "executedAt",
      `executedAt must not be before the erasure was due (${erasure.dueAt}: the notice period after the pre-notification)`,
    );
  const policy = await findPolicy(tx, erasure.organizationId, erasure.policyId);
  const stale = await staleErasures(
    tx,
    erasure.organizationId,
    [erasure],
    new Map(policy ? [[policy.policyId, policy]] : []),
  );
  if (stale.has(erasure.scheduledErasureId))
    throw new Failure(
      "CONFLICT",
      `Scheduled erasure ${erasure.scheduledErasureId} no longer stands (${stale.get(erasure.scheduledErasureId)}): it is being cancelled`,
    );
  const executed = await markExecuted(tx, {
    organizationId: erasure.organizationId,
    scheduledErasureId: erasure.scheduledErasureId,
    executedAt,
    executedBy: input.actor.id,
  });
  if (!executed) throw new Error("an open, notified erasure locked for update could not be marked executed");
  await appendAuditEntry(
    tx,
    {
      organizationId: executed.organizationId,
      entryType: "retention.erasure_executed",
      subjectId: executed.scheduledErasureId,
      payload: {
        scheduledErasureId: executed.scheduledErasureId,
        policyId: executed.policyId,
        principalId: executed.principalId,
        executedAt,
        actor: { kind: input.actor.kind, id: input.actor.id },
      },
    },
    now,
  );
  const externalIds = await externalIdsOf(tx, executed.organizationId, [executed]);
  await enqueueEvent(
    tx,
    {
      organizationId: executed.organizationId,
      eventType: "retention.erasure_executed",
      payload: {
        scheduledErasureId: executed.scheduledErasureId,
        policyId: executed.policyId,
        externalId: externalIds.get(executed.principalId) ?? null,
        scheduledFor: executed.scheduledFor,
        executedAt,
      },
    },
    now,
  );
  return { scheduledErasureId: executed.scheduledErasureId, status: "executed", executedAt };
}
