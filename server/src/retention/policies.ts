// Retention policies (DPDP Act s.8(7); DPDP Rules 2025 r.8 and the Third Schedule): how long the
// organisation keeps a principal's data for one purpose after an anchor event, and how long before
// erasure she is told. A preset is a named template for a Third-Schedule class. Every change is on
// the organisation's audit chain, queued in the same transaction as the row.
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { epochMs, integer, oneOf, text, type RetentionActor } from "./common.js";
import { cancelOpenErasuresOfPolicy } from "./erasures.js";
import {
  ANCHOR_EVENTS,
  findPolicy,
  insertPolicy,
  listPolicies,
  PRESETS,
  updatePolicy,
  type AnchorEvent,
  type PolicyRecord,
  type PresetName,
} from "./store/policies.js";

export const MAX_NAME_LENGTH = 200;
export const MAX_PURPOSE_LENGTH = 500;
export const MIN_NOTICE_HOURS = 48;
export const MAX_NOTICE_HOURS = 8760;
export const MAX_DURATION_DAYS = 36_500;

/**
 * The Third-Schedule window: three years, counted as 1 096 days so a window that contains a
 * 29 February never ends early (erasing a day late is lawful under "three years"; a day early is not).
 */
export const THIRD_SCHEDULE_DAYS = 1096;
/**
 * r.8(1): the three years run from the principal's last approach "or the commencement of these
 * rules, whichever is later". The floor is the Rules' publication in the Gazette (13 November 2025,
 * IST); an organisation whose counsel reads "commencement" as r.8's own later date sets
 * windowFloorAt when creating the policy.
 */
export const DPDP_RULES_COMMENCEMENT = Date.UTC(2025, 10, 12, 18, 30);

export interface Preset {
  name: PresetName;
  title: string;
  /** Who the Third Schedule puts in the class. */
  appliesTo: string;
  anchorEvent: AnchorEvent;
  durationDays: number;
  noticeHours: number;
  windowFloorAt: number;
}

export const RETENTION_PRESETS: Record<PresetName, Preset> = {
  ecommerce: {
    name: "ecommerce",
    title: "E-commerce entity (DPDP Rules 2025, Third Schedule)",
    appliesTo: "E-commerce entities with not less than two crore registered users in India",
    anchorEvent: "last_interaction",
    durationDays: THIRD_SCHEDULE_DAYS,
    noticeHours: MIN_NOTICE_HOURS,
    windowFloorAt: DPDP_RULES_COMMENCEMENT,
  },
  online_gaming: {
    name: "online_gaming",
    title: "Online gaming intermediary (DPDP Rules 2025, Third Schedule)",
    appliesTo: "Online gaming intermediaries with not less than fifty lakh registered users in India",
    anchorEvent: "last_interaction",
    durationDays: THIRD_SCHEDULE_DAYS,
    noticeHours: MIN_NOTICE_HOURS,
    windowFloorAt: DPDP_RULES_COMMENCEMENT,
  },
  social_media: {
    name: "social_media",
    title: "Social media intermediary (DPDP Rules 2025, Third Schedule)",
    appliesTo: "Social media intermediaries with not less than two crore registered users in India",
    anchorEvent: "last_interaction",
    durationDays: THIRD_SCHEDULE_DAYS,
    noticeHours: MIN_NOTICE_HOURS,
    windowFloorAt: DPDP_RULES_COMMENCEMENT,
  },
};

/** A RoPA processing activity as the policy rules need it (ropa/store.ts's findProcessingActivity). */
export type ActivityLookup = (
  db: Queryable,
  organizationId: string,
  activityId: string,
) => Promise<{ purpose: string; archivedAt: number | null } | undefined>;

export interface PolicyWire {
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

export const policyToWire = (p: PolicyRecord): PolicyWire => ({
  policyId: p.policyId,
  name: p.name,
  purpose: p.purpose,
  activityId: p.activityId,
  anchorEvent: p.anchorEvent,
  durationDays: p.durationDays,
  noticeHours: p.noticeHours,
  windowFloorAt: p.windowFloorAt,
  preset: p.preset,
  createdAt: p.createdAt,
  createdBy: p.createdBy,
  updatedAt: p.updatedAt,
  updatedBy: p.updatedBy,
  archivedAt: p.archivedAt,
  archivedBy: p.archivedBy,
});

/** The terms a chain entry commits to (no free text beyond the name and purpose staff typed). */
const terms = (p: PolicyRecord) => ({
  policyId: p.policyId,
  name: p.name,
  purpose: p.purpose,
  activityId: p.activityId,
  anchorEvent: p.anchorEvent,
  durationDays: p.durationDays,
  noticeHours: p.noticeHours,
  windowFloorAt: p.windowFloorAt,
  preset: p.preset,
});

export interface CreatePolicyInput {
  organizationId: string;
  body: {
    name?: unknown;
    purpose?: unknown;
    activityId?: unknown;
    anchorEvent?: unknown;
    durationDays?: unknown;
    noticeHours?: unknown;
    windowFloorAt?: unknown;
    preset?: unknown;
  };
  actor: RetentionActor;
}

/**
 * Creates a policy in `tx`. Exactly one of `purpose` and `activityId` (a RoPA activity of the
 * organisation, not archived: the policy takes its purpose). With `preset`, the anchor, duration,
 * notice and floor come from the Third-Schedule template where the body gives none; the policy
 * records which preset it started from.
 */
export async function createPolicy(
  tx: Queryable,
  input: CreatePolicyInput,
  findActivity: ActivityLookup,
  now: number,
): Promise<PolicyRecord> {
  const body = input.body;
  const preset =
    body.preset === undefined ? undefined : RETENTION_PRESETS[oneOf(body.preset, "preset", PRESETS)];
  if ((body.purpose === undefined) === (body.activityId === undefined))
    throw validationError("purpose", "give exactly one of purpose and activityId");
  let purpose: string;
  let activityId: string | null = null;
  if (body.activityId !== undefined) {
    activityId = text(body.activityId, "activityId", 100);
    const activity = await findActivity(tx, input.organizationId, activityId);
    if (!activity) throw notFound(`No processing activity ${activityId} in this organisation`);
    if (activity.archivedAt !== null)
      throw validationError("activityId", `Processing activity ${activityId} is archived`);
    purpose = activity.purpose;
  } else {
    purpose = text(body.purpose, "purpose", MAX_PURPOSE_LENGTH);
  }
  const anchorEvent =
    body.anchorEvent === undefined && preset
      ? preset.anchorEvent
      : oneOf(body.anchorEvent, "anchorEvent", ANCHOR_EVENTS);
  const durationDays =
    body.durationDays === undefined && preset
      ? preset.durationDays
      : integer(body.durationDays, "durationDays", 1, MAX_DURATION_DAYS);
  const noticeHours =
    body.noticeHours === undefined
      ? (preset?.noticeHours ?? MIN_NOTICE_HOURS)
      : integer(body.noticeHours, "noticeHours", MIN_NOTICE_HOURS, MAX_NOTICE_HOURS);
  const windowFloorAt =
    body.windowFloorAt === undefined || body.windowFloorAt === null
      ? (preset?.windowFloorAt ?? null)
      : epochMs(body.windowFloorAt, "windowFloorAt");
  const name =
    body.name === undefined && preset
      ? `${preset.title}: ${purpose}`.slice(0, MAX_NAME_LENGTH)
      : text(body.name, "name", MAX_NAME_LENGTH);
  const policy = await insertPolicy(tx, {
    organizationId: input.organizationId,
    policyId: newId("rtp"),
    name,
    purpose,
    activityId,
    anchorEvent,
    durationDays,
    noticeHours,
    windowFloorAt,
    preset: preset?.name ?? null,
    createdAt: now,
    createdBy: input.actor.id,
    updatedAt: now,
    updatedBy: input.actor.id,
    archivedAt: null,
    archivedBy: null,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: policy.organizationId,
      entryType: "retention.policy_created",
      subjectId: policy.policyId,
      payload: { ...terms(policy), actor: { kind: input.actor.kind, id: input.actor.id } },
    },
    now,
  );
  return policy;
}

async function lockedPolicy(tx: Queryable, organizationId: string, policyId: string): Promise<PolicyRecord> {
  const policy = await findPolicy(tx, organizationId, policyId, { forUpdate: true });
  if (!policy) throw notFound(`No retention policy ${policyId} in this organisation`);
  return policy;
}

export interface UpdatePolicyInput {
  organizationId: string;
  policyId: string;
  body: { name?: unknown; durationDays?: unknown; noticeHours?: unknown; windowFloorAt?: unknown };
  actor: RetentionActor;
}

/**
 * Changes a policy's name or terms. A change of duration or floor moves every window, so the
 * policy's open erasures are cancelled (`policy_changed`) and the sweep schedules them anew under
 * the new terms; a change of notice hours applies to erasures not yet notified. An archived
 * policy is CONFLICT. No change at all answers the policy as it is and records nothing.
 */
export async function changePolicy(
  tx: Queryable,
  input: UpdatePolicyInput,
  now: number,
): Promise<PolicyRecord> {
  const body = input.body;
  const current = await lockedPolicy(tx, input.organizationId, input.policyId);
  if (current.archivedAt !== null)
    throw new Failure("CONFLICT", `Retention policy ${input.policyId} is archived and cannot change`);
  const next: PolicyRecord = {
    ...current,
    name: body.name === undefined ? current.name : text(body.name, "name", MAX_NAME_LENGTH),
    durationDays:
      body.durationDays === undefined
        ? current.durationDays
        : integer(body.durationDays, "durationDays", 1, MAX_DURATION_DAYS),
    noticeHours:
      body.noticeHours === undefined
        ? current.noticeHours
        : integer(body.noticeHours, "noticeHours", MIN_NOTICE_HOURS, MAX_NOTICE_HOURS),
    windowFloorAt:
      body.windowFloorAt === undefined
        ? current.windowFloorAt
        : body.windowFloorAt === null
          ? null
          : epochMs(body.windowFloorAt, "windowFloorAt"),
    updatedAt: now,
    updatedBy: input.actor.id,
  };
  const changed = (["name", "durationDays", "noticeHours", "windowFloorAt"] as const).filter(
    (field) => next[field] !== current[field],
  );
  if (changed.length === 0) return current;
  const policy = await updatePolicy(tx, next);
  await appendAuditEntry(
    tx,
    {
      organizationId: policy.organizationId,
      entryType: "retention.policy_updated",
      subjectId: policy.policyId,
      payload: { ...terms(policy), changed, actor: { kind: input.actor.kind, id: input.actor.id } },
    },
    now,
  );
  if (changed.includes("durationDays") || changed.includes("windowFloorAt"))
    await cancelOpenErasuresOfPolicy(tx, policy, "policy_changed", now);
  return policy;
}

/**
 * Archives a policy: it schedules nothing more and its open erasures are cancelled
 * (`policy_archived`). Kept, because erasures and statutory denials name it. Archiving an archived
 * policy answers it unchanged.
 */
export async function archivePolicy(
  tx: Queryable,
  input: { organizationId: string; policyId: string; actor: RetentionActor },
  now: number,
): Promise<PolicyRecord> {
  const current = await lockedPolicy(tx, input.organizationId, input.policyId);
  if (current.archivedAt !== null) return current;
  const policy = await updatePolicy(tx, { ...current, archivedAt: now, archivedBy: input.actor.id });
  await appendAuditEntry(
    tx,
    {
      organizationId: policy.organizationId,
      entryType: "retention.policy_archived",
      subjectId: policy.policyId,
      payload: { policyId: policy.policyId, actor: { kind: input.actor.kind, id: input.actor.id } },
    },
    now,
  );
  await cancelOpenErasuresOfPolicy(tx, policy, "policy_archived", now);
  return policy;
}

export async function getPolicy(
  db: Queryable,
  organizationId: string,
  policyId: string,
): Promise<PolicyRecord> {
  const policy = await findPolicy(db, organizationId, policyId);
  if (!policy) throw notFound(`No retention policy ${policyId} in this organisation`);
  return policy;
}

/** Whether `policyId` is one of the organisation's policies (archived included). */
export async function isRetentionPolicyOf(
  db: Queryable,
  organizationId: string,
  policyId: string,
): Promise<boolean> {
  return (await findPolicy(db, organizationId, policyId)) !== undefined;
}

export async function pagePolicies(
  db: Queryable,
  organizationId: string,
  query: PageRequest & { includeArchived?: boolean | undefined },
): Promise<Page<PolicyRecord>> {
  const includeArchived = query.includeArchived === true;
  return keysetPage(
    query,
    {
      scope: pageScope("listRetentionPolicies", organizationId, includeArchived ? "all" : "active"),
      shape: ["number", "string"],
      keyOf: (p: PolicyRecord): [number, string] => [p.createdAt, p.policyId],
    },
    (after, limit) => listPolicies(db, organizationId, { includeArchived, after, limit }),
  );
}
