// Legal holds: a cited legal basis (a statute and the text relied on) that suspends erasure of one
// principal's data, of everything under one policy, or of one principal under one policy, until it
// is released or its end date passes. While a hold is in force the sweep schedules and notifies
// nothing it covers and the due list leaves its erasures off; releasing it lets them proceed (the
// pre-notification then goes out, and the erasure is due its notice hours later).
import { findPrincipalRow, findPrincipalsByIds } from "../accounts/store.js";
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { epochMs, oneOf, text, type RetentionActor } from "./common.js";
import { findHold, insertHold, listHolds, markHoldReleased, type HoldRecord } from "./store/holds.js";
import { findPolicy } from "./store/policies.js";

export const MAX_STATUTE_LENGTH = 300;
export const MAX_CITATION_LENGTH = 2000;
export const MAX_RELEASE_REASON_LENGTH = 500;
export const HOLD_STATES = ["active", "inactive"] as const;

export interface HoldWire {
  holdId: string;
  userId: string | null;
  policyId: string | null;
  statute: string;
  citation: string;
  endsAt: number | null;
  active: boolean;
  createdAt: number;
  createdBy: string;
  releasedAt: number | null;
  releasedBy: string | null;
  releaseReason: string | null;
}

export const isHoldActive = (h: HoldRecord, now: number) =>
  h.releasedAt === null && (h.endsAt === null || h.endsAt > now);

export const holdToWire = (h: HoldRecord, externalId: string | null, now: number): HoldWire => ({
  holdId: h.holdId,
  userId: externalId,
  policyId: h.policyId,
  statute: h.statute,
  citation: h.citation,
  endsAt: h.endsAt,
  active: isHoldActive(h, now),
  createdAt: h.createdAt,
  createdBy: h.createdBy,
  releasedAt: h.releasedAt,
  releasedBy: h.releasedBy,
  releaseReason: h.releaseReason,
});

/** The holds with their principals' externalIds, as the contract shows them. */
export async function holdsToWire(
  db: Queryable,
  organizationId: string,
  holds: readonly HoldRecord[],
  now: number,
): Promise<HoldWire[]> {
  const principals = await findPrincipalsByIds(
    db,
    holds.flatMap((h) => (h.principalId ? [{ organizationId, principalId: h.principalId }] : [])),
  );
  const externalIds = new Map(principals.map((p) => [p.principalId, p.externalId]));
  return holds.map((h) =>
    holdToWire(h, h.principalId ? (externalIds.get(h.principalId) ?? null) : null, now),
  );
}

export interface PlaceHoldInput {
  organizationId: string;
  body: { userId?: unknown; policyId?: unknown; statute?: unknown; citation?: unknown; endsAt?: unknown };
  actor: RetentionActor;
}

/**
 * Places a hold in `tx`. At least one of `userId` (the principal's externalId, known to Guard) and
 * `policyId` (one of the organisation's policies); an unknown one is NOT_FOUND. `endsAt`, when
 * given, is in the future.
 */
export async function placeHold(tx: Queryable, input: PlaceHoldInput, now: number): Promise<HoldRecord> {
  const body = input.body;
  if (body.userId === undefined && body.policyId === undefined)
    throw validationError("userId", "give userId, policyId or both: what the hold covers");
  const statute = text(body.statute, "statute", MAX_STATUTE_LENGTH);
  const citation = text(body.citation, "citation", MAX_CITATION_LENGTH);
  const endsAt = body.endsAt === undefined || body.endsAt === null ? null : epochMs(body.endsAt, "endsAt");
  if (endsAt !== null && endsAt <= now) throw validationError("endsAt", "endsAt must be in the future");
  let principalId: string | null = null;
  if (body.userId !== undefined) {
    const userId = text(body.userId, "userId", 200);
    const principal = await findPrincipalRow(tx, input.organizationId, { externalId: userId });
    if (!principal) throw notFound(`No principal with userId ${userId} in this organisation`);
    principalId = principal.principalId;
  }
  let policyId: string | null = null;
  if (body.policyId !== undefined) {
    policyId = text(body.policyId, "policyId", 100);
    if (!(await findPolicy(tx, input.organizationId, policyId)))
      throw notFound(`No retention policy ${policyId} in this organisation`);
  }
  const hold = await insertHold(tx, {
    organizationId: input.organizationId,
    holdId: newId("rlh"),
    principalId,
    policyId,
    statute,
    citation,
    endsAt,
    createdAt: now,
    createdBy: input.actor.id,
    releasedAt: null,
    releasedBy: null,
    releaseReason: null,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: hold.organizationId,
      entryType: "retention.hold_placed",
      subjectId: hold.holdId,
      payload: {
        holdId: hold.holdId,
        principalId,
        policyId,
        statute,
        citation,
        endsAt,
        actor: { kind: input.actor.kind, id: input.actor.id },
      },
    },
    now,
  );
  return hold;
}

/** Releases a hold in `tx`; NOT_FOUND for an unknown id, CONFLICT when already released. */
export async function releaseHold(
  tx: Queryable,
  input: { organizationId: string; holdId: string; reason: unknown; actor: RetentionActor },
  now: number,
): Promise<HoldRecord> {
  const reason = text(input.reason, "reason", MAX_RELEASE_REASON_LENGTH);
  const hold = await markHoldReleased(tx, {
    organizationId: input.organizationId,
    holdId: input.holdId,
    releasedAt: now,
    releasedBy: input.actor.id,
    reason,
  });
  if (!hold) {
    const existing = await findHold(tx, input.organizationId, input.holdId);
    if (!existing) throw notFound(`No legal hold ${input.holdId} in this organisation`);
    throw new Failure("CONFLICT", `Legal hold ${input.holdId} was already released`);
  }
  await appendAuditEntry(
    tx,
    {
      organizationId: hold.organizationId,
      entryType: "retention.hold_released",
      subjectId: hold.holdId,
      payload: { holdId: hold.holdId, reason, actor: { kind: input.actor.kind, id: input.actor.id } },
    },
    now,
  );
  return hold;
}

export async function pageHolds(
  db: Queryable,
  organizationId: string,
  query: PageRequest & { status?: unknown },
  now: number,
): Promise<Page<HoldRecord>> {
  const state = query.status === undefined ? undefined : oneOf(query.status, "status", HOLD_STATES);
  return keysetPage(
    query,
    {
      scope: pageScope("listLegalHolds", organizationId, state ?? "all"),
      shape: ["number", "string"],
      keyOf: (h: HoldRecord): [number, string] => [h.createdAt, h.holdId],
    },
    (after, limit) => listHolds(db, organizationId, { state, now, after, limit }),
  );
}
