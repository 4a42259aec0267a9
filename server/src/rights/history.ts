// Who moved what, when and why. Every move of a DSR, grievance or nomination is written to
// rights_transitions, appended to the organisation's audit chain and (for the moves processors
// care about) put in the webhook outbox — all through the caller's transaction, so a move, its
// evidence and its events exist together or not at all.
import { appendAuditEntries } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import type { Credential } from "../lib/credentials.js";
import { newId } from "../lib/ids.js";
import { groupBy } from "../lib/group-by.js";
import {
  insertTransitions,
  listStoredTransitions,
  type ActorKind,
  type StoredTransition,
  type SubjectKind,
} from "./store/transitions.js";

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
    case "operator":
      // No rights route accepts the operator token (its routes are the operator's own).
      throw new Error("the operator credential does not act on rights records");
  }
}

export interface TransitionInput {
  organizationId: string;
  subjectKind: SubjectKind;
  subjectId: string;
  /**
   * The principal whose DSR, grievance or nomination it is. Every move's entry carries it, so the
   * chain commits whose record it is and `guard audit verify` finds a record moved to someone else.
   */
  principalId: string;
  from: string | null;
  to: string;
  actor: Actor;
  reason?: string | null | undefined;
  /** Extra facts for the audit entry (ids and codes only, never personal data). */
  evidence?: Record<string, unknown>;
}

export type Transition = StoredTransition;

/**
 * Records one move and appends it to the organisation's audit chain. The chain entry carries ids
 * (the record's principal among them), statuses and the actor, never free text: the chain is
 * immutable, while `reason` may name the principal and is redacted on erasure.
 */
export async function recordTransition(tx: Queryable, input: TransitionInput, now: number): Promise<void> {
  await recordTransitions(tx, [input], now);
}

/**
 * Records moves (of any organisations, as a group of filings has them) in a fixed number of
 * statements: one for the moves, one per organisation for their chain entries, in the order given.
 */
export async function recordTransitions(
  tx: Queryable,
  inputs: readonly TransitionInput[],
  now: number,
): Promise<void> {
  const moves = inputs.map((input) => ({ input, transitionId: newId("trn") }));
  await insertTransitions(
    tx,
    moves.map(({ input, transitionId }) => ({
      organizationId: input.organizationId,
      transitionId,
      subjectKind: input.subjectKind,
      subjectId: input.subjectId,
      from: input.from,
      to: input.to,
      actorKind: input.actor.kind,
      actorId: input.actor.id,
      reason: input.reason ?? null,
      at: now,
    })),
  );
  for (const [organizationId, ofOrganization] of groupBy(moves, (m) => m.input.organizationId)) {
    await appendAuditEntries(
      tx,
      organizationId,
      ofOrganization.map(({ input, transitionId }) => ({
        entryType: `${input.subjectKind}.transition`,
        subjectId: input.subjectId,
        payload: {
          transitionId,
          principalId: input.principalId,
          from: input.from,
          to: input.to,
          actorKind: input.actor.kind,
          actorId: input.actor.id,
          ...input.evidence,
        },
      })),
      now,
    );
  }
}

/** The moves of one DSR, grievance or nomination, oldest first (what staff see as its history). */
export const listTransitions = listStoredTransitions;
