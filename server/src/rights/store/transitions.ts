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

export interface NewTransition {
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
}

/** Records moves (of any organisations) in one statement. */
export async function insertTransitions(tx: Queryable, inputs: readonly NewTransition[]): Promise<void> {
  if (inputs.length === 0) return;
  await execute(
    tx,
    qb.insertInto("rights_transitions").values(
      inputs.map((input) => ({
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
      })),
    ),
    inputs.length === 1 ? { preparedAs: "rights_transition_insert" } : {},
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

/** A move as `guard audit verify` compares it with its chain entry. */
export interface AuditedTransition {
  transitionId: string;
  subjectKind: string;
  subjectId: string;
  from: string | null;
  to: string;
  actorKind: string;
  actorId: string | null;
  at: number;
}

const AUDITED_COLUMNS = [
  "transition_id",
  "subject_kind",
  "subject_id",
  "from_status",
  "to_status",
  "actor_kind",
  "actor_id",
  "occurred_at",
] as const;

const toAudited = (r: {
  transition_id: string;
  subject_kind: string;
  subject_id: string;
  from_status: string | null;
  to_status: string;
  actor_kind: string;
  actor_id: string | null;
  occurred_at: number;
}): AuditedTransition => ({
  transitionId: r.transition_id,
  subjectKind: r.subject_kind,
  subjectId: r.subject_id,
  from: r.from_status,
  to: r.to_status,
  actorKind: r.actor_kind,
  actorId: r.actor_id,
  at: r.occurred_at,
});

/** The moves with these ids (audit verify: the rows the chain's entries name). */
export async function transitionsWithIds(
  db: Queryable,
  organizationId: string,
  transitionIds: readonly string[],
): Promise<AuditedTransition[]> {
  if (transitionIds.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("rights_transitions")
      .select(AUDITED_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("transition_id", "in", transitionIds),
  );
  return found.map(toAudited);
}

/** Up to `limit` moves with ids after `afterTransitionId`, by id (audit verify's keyset scan). */
export async function scanTransitions(
  db: Queryable,
  organizationId: string,
  afterTransitionId: string,
  limit: number,
): Promise<AuditedTransition[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("rights_transitions")
      .select(AUDITED_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("transition_id", ">", afterTransitionId)
      .orderBy("transition_id")
      .limit(limit),
  );
  return found.map(toAudited);
}
