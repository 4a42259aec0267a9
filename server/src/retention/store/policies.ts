// retention_policies: how long an organisation keeps a principal's data for a purpose after an
// anchor event. Every statement filters by organization_id, except the sweep's list of
// organisations with active policies.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

export const ANCHOR_EVENTS = [
  "consent_withdrawn",
  "last_interaction",
  "account_closed",
  "purpose_served",
] as const;
export type AnchorEvent = (typeof ANCHOR_EVENTS)[number];
export const PRESETS = ["ecommerce", "online_gaming", "social_media"] as const;
export type PresetName = (typeof PRESETS)[number];

export interface PolicyRecord {
  organizationId: string;
  policyId: string;
  name: string;
  purpose: string;
  activityId: string | null;
  anchorEvent: AnchorEvent;
  durationDays: number;
  noticeHours: number;
  windowFloorAt: number | null;
  preset: PresetName | null;
  createdAt: number;
  createdBy: string;
  updatedAt: number;
  updatedBy: string;
  archivedAt: number | null;
  archivedBy: string | null;
}

type PolicyRow = {
  organization_id: string;
  policy_id: string;
  name: string;
  purpose: string;
  activity_id: string | null;
  anchor_event: string;
  duration_days: number;
  notice_hours: number;
  window_floor_at: number | string | null;
  preset: string | null;
  created_at: number | string;
  created_by: string;
  updated_at: number | string;
  updated_by: string;
  archived_at: number | string | null;
  archived_by: string | null;
};

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

export const policyOf = (r: PolicyRow): PolicyRecord => ({
  organizationId: r.organization_id,
  policyId: r.policy_id,
  name: r.name,
  purpose: r.purpose,
  activityId: r.activity_id,
  anchorEvent: r.anchor_event as AnchorEvent,
  durationDays: r.duration_days,
  noticeHours: r.notice_hours,
  windowFloorAt: num(r.window_floor_at),
  preset: r.preset as PresetName | null,
  createdAt: Number(r.created_at),
  createdBy: r.created_by,
  updatedAt: Number(r.updated_at),
  updatedBy: r.updated_by,
  archivedAt: num(r.archived_at),
  archivedBy: r.archived_by,
});

export async function insertPolicy(tx: Queryable, p: PolicyRecord): Promise<PolicyRecord> {
  const row = await first(
    tx,
    qb
      .insertInto("retention_policies")
      .values({
        organization_id: p.organizationId,
        policy_id: p.policyId,
        name: p.name,
        purpose: p.purpose,
        activity_id: p.activityId,
        anchor_event: p.anchorEvent,
        duration_days: p.durationDays,
        notice_hours: p.noticeHours,
        window_floor_at: p.windowFloorAt,
        preset: p.preset,
        created_at: p.createdAt,
        created_by: p.createdBy,
        updated_at: p.updatedAt,
        updated_by: p.updatedBy,
        archived_at: p.archivedAt,
        archived_by: p.archivedBy,
      })
      .returningAll(),
  );
  return policyOf(row!);
}

/**
 * The organisation's policy with that id, archived or not; undefined when there is none (another
 * organisation's id included). `forUpdate` locks it until the transaction ends.
 */
export async function findPolicy(
  db: Queryable,
  organizationId: string,
  policyId: string,
  options: { forUpdate?: boolean } = {},
): Promise<PolicyRecord | undefined> {
  let query = qb
    .selectFrom("retention_policies")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("policy_id", "=", policyId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await first(db, query);
  return row && policyOf(row);
}

/** Writes the policy's changeable columns (name, terms, archive) as given. */
export async function updatePolicy(tx: Queryable, p: PolicyRecord): Promise<PolicyRecord> {
  const row = await first(
    tx,
    qb
      .updateTable("retention_policies")
      .set({
        name: p.name,
        duration_days: p.durationDays,
        notice_hours: p.noticeHours,
        window_floor_at: p.windowFloorAt,
        updated_at: p.updatedAt,
        updated_by: p.updatedBy,
        archived_at: p.archivedAt,
        archived_by: p.archivedBy,
      })
      .where("organization_id", "=", p.organizationId)
      .where("policy_id", "=", p.policyId)
      .returningAll(),
  );
  return policyOf(row!);
}

/** A page of the organisation's policies, newest first, after `after` (created_at, policy_id). */
export async function listPolicies(
  db: Queryable,
  organizationId: string,
  read: { includeArchived: boolean; after?: readonly [number, string] | undefined; limit: number },
): Promise<PolicyRecord[]> {
  let query = qb.selectFrom("retention_policies").selectAll().where("organization_id", "=", organizationId);
  if (!read.includeArchived) query = query.where("archived_at", "is", null);
  const after = read.after;
  if (after) query = query.where((eb) => eb(eb.refTuple("created_at", "policy_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("policy_id", "desc").limit(read.limit),
  );
  return found.map(policyOf);
}

/** The organisation's active (unarchived) policies, oldest first (the sweep's work list). */
export async function activePolicies(db: Queryable, organizationId: string): Promise<PolicyRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_policies")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("archived_at", "is", null)
      .orderBy("created_at")
      .orderBy("policy_id"),
  );
  return found.map(policyOf);
}

/** Up to `limit` organisations with ids after `after` that have an active policy (the sweep's walk). */
export async function organizationsWithActivePolicies(
  db: Queryable,
  after: string,
  limit: number,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_policies")
      .select("organization_id")
      .distinct()
      .where("archived_at", "is", null)
      .where("organization_id", ">", after)
      .orderBy("organization_id")
      .limit(limit),
  );
  return found.map((r) => r.organization_id);
}

/** The organisation's policies with these ids, by id (audit verify). */
export async function policiesWithIds(
  db: Queryable,
  organizationId: string,
  ids: readonly string[],
): Promise<Map<string, PolicyRecord>> {
  if (ids.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("retention_policies")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("policy_id", "in", [...ids]),
  );
  return new Map(found.map((r) => [r.policy_id, policyOf(r)]));
}

/** Up to `limit` policies with ids after `after`, by id (audit verify's keyset scan). */
export async function scanPolicies(
  db: Queryable,
  organizationId: string,
  after: string,
  limit: number,
): Promise<PolicyRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("retention_policies")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("policy_id", ">", after)
      .orderBy("policy_id")
      .limit(limit),
  );
  return found.map(policyOf);
}
