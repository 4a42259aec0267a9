// rights_transitions: every move of a DSR, grievance or nomination (creation included, from null),
// with its actor and reason, in the order they happened (seq). Every statement filters by the
// caller's organization_id.
import type { Queryable } from "../../db/database.js";
import { execute, qb, rows } from "../../db/query.js";

export type SubjectKind = "dsr" | "grievance" | "nomination";
export type ActorKind = "principal" | "staff" | "service" | "system";

export interface StoredTransition {
  from: string | null;
  to: string;
  actorKind: ActorKind;
  actorId: string | null;
  reason: string | null;
  at: number;
}

export async function insertTransition(
  tx: Queryable,
  input: {
    organizationId: string;
    transitionId: string;
    subjectKind: SubjectKind;
    subjectId: string;
    from: string | null;
    to: string;
    actorKind: ActorKind;
    actorId: string | null;
    reason: string | null;
    at: number;
  },
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("rights_transitions").values({
      organization_id: input.organizationId,
      transition_id: input.transitionId,
      subject_kind: input.subjectKind,
      subject_id: input.subjectId,
      from_status: input.from,
      to_status: input.to,
      actor_kind: input.actorKind,
      actor_id: input.actorId,
      reason: input.reason,
      occurred_at: input.at,
    }),
  );
}

/** The moves of one DSR, grievance or nomination, oldest first. */
export async function listStoredTransitions(
  db: Queryable,
  organizationId: string,
  subjectKind: SubjectKind,
  subjectId: string,
): Promise<StoredTransition[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("rights_transitions")
      .select(["from_status", "to_status", "actor_kind", "actor_id", "reason", "occurred_at"])
      .where("organization_id", "=", organizationId)
      .where("subject_kind", "=", subjectKind)
      .where("subject_id", "=", subjectId)
      .orderBy("seq"),
  );
  return found.map((r) => ({
    from: r.from_status,
    to: r.to_status,
    // The table's CHECK constraint holds actor_kind to ActorKind.
    actorKind: r.actor_kind as ActorKind,
    actorId: r.actor_id,
    reason: r.reason,
    at: r.occurred_at,
  }));
}

/** Erasure: replaces every reason in the history of the principal's requests and grievances. */
export async function redactTransitionReasonsOfPrincipal(
  tx: Queryable,
  input: { organizationId: string; principalId: string; redacted: string },
): Promise<void> {
  const { organizationId, principalId } = input;
  await execute(
    tx,
    qb
      .updateTable("rights_transitions")
      .set({ reason: input.redacted })
      .where("organization_id", "=", organizationId)
      .where("reason", "is not", null)
      .where("reason", "<>", input.redacted)
      .where((eb) =>
        eb.or([
          eb.and([
            eb("subject_kind", "=", "grievance"),
            eb(
              "subject_id",
              "in",
              eb
                .selectFrom("grievances")
                .select("grievance_id")
                .where("organization_id", "=", organizationId)
                .where("principal_id", "=", principalId),
            ),
          ]),
          eb.and([
            eb("subject_kind", "=", "dsr"),
            eb(
              "subject_id",
              "in",
              eb
                .selectFrom("dsr_requests")
                .select("request_id")
                .where("organization_id", "=", organizationId)
                .where("principal_id", "=", principalId),
            ),
          ]),
        ]),
      ),
  );
}
