// Events the fiduciary reports because Guard cannot observe them: an account closed and a purpose
// served start windows (the `account_closed` and `purpose_served` anchors); an interaction (the
// principal logged in or contacted the fiduciary) is activity, which cancels an inactivity erasure
// and restarts the window (DPDP Rules 2025 r.8(2): "unless she logs in or contacts").
import { findPrincipalRow } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { epochMs, oneOf, text, type RetentionActor } from "./common.js";
import { MAX_PURPOSE_LENGTH } from "./policies.js";
import {
  insertRetentionEvent,
  RETENTION_EVENT_KINDS,
  type RetentionEventKind,
  type RetentionEventRecord,
} from "./store/events.js";

export interface RetentionEventWire {
  eventId: string;
  userId: string;
  kind: RetentionEventKind;
  purpose: string | null;
  occurredAt: number;
  recordedAt: number;
}

/**
 * Records an event in `tx`. `occurredAt` defaults to now and may not be in the future; the
 * principal (`userId`, her externalId) must be known to Guard (NOT_FOUND otherwise); `purpose` is
 * required for `purpose_served` and refused for the other kinds.
 */
export async function recordRetentionEvent(
  tx: Queryable,
  input: {
    organizationId: string;
    body: { userId?: unknown; kind?: unknown; purpose?: unknown; occurredAt?: unknown };
    actor: RetentionActor;
  },
  now: number,
): Promise<RetentionEventWire> {
  const { body } = input;
  const userId = text(body.userId, "userId", 200);
  const kind = oneOf(body.kind, "kind", RETENTION_EVENT_KINDS);
  let purpose: string | null = null;
  if (kind === "purpose_served") purpose = text(body.purpose, "purpose", MAX_PURPOSE_LENGTH);
  else if (body.purpose !== undefined)
    throw validationError("purpose", "purpose is given only with kind purpose_served");
  const occurredAt = body.occurredAt === undefined ? now : epochMs(body.occurredAt, "occurredAt");
  if (occurredAt > now) throw validationError("occurredAt", "occurredAt must not be in the future");
  const principal = await findPrincipalRow(tx, input.organizationId, { externalId: userId });
  if (!principal) throw notFound(`No principal with userId ${userId} in this organisation`);
  const record: RetentionEventRecord = {
    organizationId: input.organizationId,
    eventId: newId("rte"),
    principalId: principal.principalId,
    kind,
    purpose,
    occurredAt,
    recordedAt: now,
    recordedBy: input.actor.id,
  };
  await insertRetentionEvent(tx, record);
  return { eventId: record.eventId, userId, kind, purpose, occurredAt, recordedAt: now };
}
