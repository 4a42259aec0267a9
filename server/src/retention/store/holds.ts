// retention_legal_holds: holds that suspend erasure with a cited basis. Every statement filters by
// organization_id.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

export interface HoldRecord {
  organizationId: string;
  holdId: string;
  principalId: string | null;
  policyId: string | null;
  statute: string;
  citation: string;
  endsAt: number | null;
  createdAt: number;
  createdBy: string;
  releasedAt: number | null;
  releasedBy: string | null;
  releaseReason: string | null;
}

type HoldRow = {
  organization_id: string;
  hold_id: string;
  principal_id: string | null;
  policy_id: string | null;
  statute: string;
  citation: string;
  ends_at: number | string | null;
  created_at: number | string;
  created_by: string;
  released_at: number | string | null;
  released_by: string | null;
  release_reason: string | null;
};

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const holdOf = (r: HoldRow): HoldRecord => ({
  organizationId: r.organization_id,
  holdId: r.hold_id,
  principalId: r.principal_id,
  policyId: r.policy_id,
  statute: r.statute,
  citation: r.citation,
  endsAt: num(r.ends_at),
  createdAt: Number(r.created_at),
  createdBy: r.created_by,
  releasedAt: num(r.released_at),
  releasedBy: r.released_by,
  releaseReason: r.release_reason,
});

export async function insertHold(tx: Queryable, h: HoldRecord): Promise<HoldRecord> {
  const row = await first(
    tx,
    qb
      .insertInto("retention_legal_holds")
      .values({
        organization_id: h.organizationId,
        hold_id: h.holdId,
        principal_id: h.principalId,
        policy_id: h.policyId,
        statute: h.statute,
        citation: h.citation,
        ends_at: h.endsAt,
        created_at: h.createdAt,
        created_by: h.createdBy,
        released_at: null,
        released_by: null,
        release_reason: null,
      })
      .returningAll(),
  );
  return holdOf(row!);
}

export async function findHold(
  db: Queryable,
  organizationId: string,
  holdId: string,
): Promise<HoldRecord | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("retention_legal_holds")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("hold_id", "=", holdId),
  );
  return row && holdOf(row);
}

/**
 * Releases an unreleased hold; undefined when there is no such unreleased hold (none, or already
 * released). One conditional UPDATE, so of two concurrent releases exactly one succeeds.
 */
export async function markHoldReleased(
  tx: Queryable,
  input: { organizationId: string; holdId: string; releasedAt: number; releasedBy: string; reason: string },
): Promise<HoldRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("retention_legal_holds")
      .set({ released_at: input.releasedAt, released_by: input.releasedBy, release_reason: input.reason })
      .where("organization_id", "=", input.organizationId)
      .where("hold_id", "=", input.holdId)
      .where("released_at", "is", null)
      .returningAll(),
  );
  return row && holdOf(row);
}

/** A page of the organisation's holds, newest first, after `after` (created_at, hold_id). */
export async function listHolds(
  db: Queryable,
  organizationId: string,
  read: {
    state?: "active" | "inactive" | undefined;
    now: number;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<HoldRecord[]> {
  let query = qb
    .selectFrom("retention_legal_holds")
    .selectAll()
    .where("organization_id", "=", organizationId);
  if (read.state === "active")
    query = query
      .where("released_at", "is", null)
      .where((eb) => eb.or([eb("ends_at", "is", null), eb("ends_at", ">", read.now)]));
  if (read.state === "inactive")
    query = query.where((eb) => eb.or([eb("released_at", "is not", null), eb("ends_at", "<=", read.now)]));
  const after = read.after;
  if (after) query = query.where((eb) => eb(eb.refTuple("created_at", "hold_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("hold_id", "desc").limit(read.limit),
  );
  return found.map(holdOf);
}

/** The organisation's holds in force at `now` (unreleased, not past their end). */
export async function activeHolds(db: Queryable, organizationId: string, now: number): Promise<HoldRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_legal_holds")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("released_at", "is", null)
      .where((eb) => eb.or([eb("ends_at", "is", null), eb("ends_at", ">", now)]))
      .orderBy("created_at")
      .orderBy("hold_id"),
  );
  return found.map(holdOf);
}

export async function holdsWithIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, HoldRecord>> {
  if (ids.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("retention_legal_holds")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("hold_id", "in", [...ids]),
  );
  return new Map(found.map((r) => [r.hold_id, holdOf(r)]));
}

export async function scanHolds(
  db: Queryable,
  organizationId: string,
  after: string,
  limit: number,
): Promise<HoldRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_legal_holds")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("hold_id", ">", after)
      .orderBy("hold_id")
      .limit(limit),
  );
  return found.map(holdOf);
}
