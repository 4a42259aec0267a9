// Who moved what, when and why. Every move of a DSR, grievance or nomination is written to
// rights_transitions, appended to the organisation's audit chain and (for the moves processors
// care about) put in the webhook outbox — all through the caller's transaction, so a move, its
// evidence and its events exist together or not at all.
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import type { Credential } from "../lib/credentials.js";
import { newId } from "../lib/ids.js";

export type ActorKind = "principal" | "staff" | "service" | "system";

export interface Actor {
  kind: ActorKind;
  /** principal_id, staff_id or api_key_id; null for the system. */
  id: string | null;
}

export function actorOf(credential: Credential): Actor {
  switch (credential.kind) {
    case "principal":
      return { kind: "principal", id: credential.principalId };
    case "staff":
      return { kind: "staff", id: credential.staffId };
    case "service":
      return { kind: "service", id: credential.apiKeyId };
  }
}

export type SubjectKind = "dsr" | "grievance" | "nomination";

export interface TransitionInput {
  organizationId: string;
  subjectKind: SubjectKind;
  subjectId: string;
  from: string | null;
  to: string;
  actor: Actor;
  reason?: string | null | undefined;
  /** Extra facts for the audit entry (ids and codes only, never personal data). */
  evidence?: Record<string, unknown>;
}

export interface Transition {
  from: string | null;
  to: string;
  actorKind: ActorKind;
  actorId: string | null;
  reason: string | null;
  at: number;
}

/**
 * Records one move and appends it to the organisation's audit chain. The chain entry carries ids,
 * statuses and the actor, never free text: the chain is immutable, while `reason` may name the
 * principal and is redacted on erasure.
 */
export async function recordTransition(tx: Queryable, input: TransitionInput, now: number): Promise<void> {
  const transitionId = newId("trn");
  await tx.query(
    `INSERT INTO rights_transitions
       (organization_id, transition_id, subject_kind, subject_id, from_status, to_status, actor_kind, actor_id, reason, occurred_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      input.organizationId,
      transitionId,
      input.subjectKind,
      input.subjectId,
      input.from,
      input.to,
      input.actor.kind,
      input.actor.id,
      input.reason ?? null,
      now,
    ],
  );
  await appendAuditEntry(
    tx,
    {
      organizationId: input.organizationId,
      entryType: `${input.subjectKind}.transition`,
      subjectId: input.subjectId,
      payload: {
        transitionId,
        from: input.from,
        to: input.to,
        actorKind: input.actor.kind,
        actorId: input.actor.id,
        ...input.evidence,
      },
    },
    now,
  );
}

export async function listTransitions(
  db: Queryable,
  organizationId: string,
  subjectKind: SubjectKind,
  subjectId: string,
): Promise<Transition[]> {
  const rows = await db.query<{
    from_status: string | null;
    to_status: string;
    actor_kind: ActorKind;
    actor_id: string | null;
    reason: string | null;
    occurred_at: number;
  }>(
    `SELECT from_status, to_status, actor_kind, actor_id, reason, occurred_at FROM rights_transitions
      WHERE organization_id = $1 AND subject_kind = $2 AND subject_id = $3 ORDER BY seq`,
    [organizationId, subjectKind, subjectId],
  );
  return rows.map((r) => ({
    from: r.from_status,
    to: r.to_status,
    actorKind: r.actor_kind,
    actorId: r.actor_id,
    reason: r.reason,
    at: r.occurred_at,
  }));
}
