// processing_activities: the organisation's records of processing activities. The only code that
// touches the table; activities.ts holds the rules (validation, the audit entries) and other
// domains (retention policies that point at an activity) read one through findProcessingActivity.
import type { Queryable } from "../db/database.js";
import { first, qb, rows } from "../db/query.js";

export const LEGAL_BASES = [
  "consent",
  "deemed_consent",
  "legal_obligation",
  "vital_interest",
  "public_task",
] as const;
export type LegalBasis = (typeof LEGAL_BASES)[number];

export const RECIPIENT_ROLES = ["processor", "recipient", "joint_fiduciary"] as const;
export type RecipientRole = (typeof RECIPIENT_ROLES)[number];

export interface Recipient {
  name: string;
  role: RecipientRole;
  /** ISO 3166-1 alpha-2; absent when not stated. */
  country?: string;
}

/** The columns a staff member writes (everything but the id and the times). */
export interface ActivityContent {
  name: string;
  purpose: string;
  description: string | null;
  dataCategories: string[];
  legalBasis: LegalBasis;
  recipients: Recipient[];
  storageLocation: string;
  crossesBorder: boolean;
  destinationCountries: string[];
}

export interface ProcessingActivity extends ActivityContent {
  organizationId: string;
  activityId: string;
  createdAt: number;
  updatedAt: number;
  archivedAt: number | null;
}

type ActivityRow = {
  organization_id: string;
  activity_id: string;
  name: string;
  purpose: string;
  description: string | null;
  data_categories: unknown;
  legal_basis: string;
  recipients: unknown;
  storage_location: string;
  crosses_border: boolean;
  destination_countries: unknown;
  created_at: string | number;
  updated_at: string | number;
  archived_at: string | number | null;
};

// jsonb reads back parsed on both engines; text is accepted too, so a driver change cannot turn a
// list into a string silently.
const jsonOf = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);
const stringsOf = (value: unknown): string[] => {
  const parsed = jsonOf(value);
  return Array.isArray(parsed) ? parsed.map(String) : [];
};
const recipientsOf = (value: unknown): Recipient[] => {
  const parsed = jsonOf(value);
  return Array.isArray(parsed) ? (parsed as Recipient[]) : [];
};

const activityOf = (row: ActivityRow): ProcessingActivity => ({
  organizationId: row.organization_id,
  activityId: row.activity_id,
  name: row.name,
  purpose: row.purpose,
  description: row.description,
  dataCategories: stringsOf(row.data_categories),
  legalBasis: row.legal_basis as LegalBasis,
  recipients: recipientsOf(row.recipients),
  storageLocation: row.storage_location,
  crossesBorder: row.crosses_border,
  destinationCountries: stringsOf(row.destination_countries),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
  archivedAt: row.archived_at === null ? null : Number(row.archived_at),
});

const contentColumns = (content: ActivityContent) => ({
  name: content.name,
  purpose: content.purpose,
  description: content.description,
  data_categories: JSON.stringify(content.dataCategories),
  legal_basis: content.legalBasis,
  recipients: JSON.stringify(content.recipients),
  storage_location: content.storageLocation,
  crosses_border: content.crossesBorder,
  destination_countries: JSON.stringify(content.destinationCountries),
});

/**
 * The organisation's activity with that id, archived or not; undefined when there is none (or it
 * is another organisation's). `forUpdate` locks the row for a read-merge-write in the caller's
 * transaction, so two concurrent updates apply one after the other instead of one losing.
 */
export async function findProcessingActivity(
  db: Queryable,
  organizationId: string,
  activityId: string,
  options: { forUpdate?: boolean } = {},
): Promise<ProcessingActivity | undefined> {
  let query = qb
    .selectFrom("processing_activities")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("activity_id", "=", activityId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await first(db, query);
  return row && activityOf(row);
}

export async function insertProcessingActivity(
  tx: Queryable,
  activity: { organizationId: string; activityId: string; content: ActivityContent; now: number },
): Promise<ProcessingActivity> {
  const row = await first(
    tx,
    qb
      .insertInto("processing_activities")
      .values({
        organization_id: activity.organizationId,
        activity_id: activity.activityId,
        ...contentColumns(activity.content),
        created_at: activity.now,
        updated_at: activity.now,
        archived_at: null,
      })
      .returningAll(),
  );
  return activityOf(row!);
}

/** Replaces the content of an activity the caller has locked; the row as it now stands. */
export async function updateProcessingActivity(
  tx: Queryable,
  key: { organizationId: string; activityId: string },
  content: ActivityContent,
  now: number,
): Promise<ProcessingActivity | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("processing_activities")
      .set({ ...contentColumns(content), updated_at: now })
      .where("organization_id", "=", key.organizationId)
      .where("activity_id", "=", key.activityId)
      .returningAll(),
  );
  return row && activityOf(row);
}

/**
 * Archives (`archivedAt` a time) or restores (null) an activity; undefined when it has no such
 * activity or it is already in that state (one conditional UPDATE: of two concurrent archivings
 * one changes the row, the other finds it archived).
 */
export async function setProcessingActivityArchived(
  tx: Queryable,
  key: { organizationId: string; activityId: string },
  archivedAt: number | null,
  now: number,
): Promise<ProcessingActivity | undefined> {
  let query = qb
    .updateTable("processing_activities")
    .set({ archived_at: archivedAt, updated_at: now })
    .where("organization_id", "=", key.organizationId)
    .where("activity_id", "=", key.activityId);
  query =
    archivedAt === null ? query.where("archived_at", "is not", null) : query.where("archived_at", "is", null);
  const row = await first(tx, query.returningAll());
  return row && activityOf(row);
}

/**
 * A page's worth of the organisation's activities, newest first (created_at, then activity_id,
 * both descending): those after `after`, at most `limit`. `archived` picks archived or active
 * ones; `crossesBorder`, when given, only those that do (or do not) cross the border.
 */
export async function listProcessingActivities(
  db: Queryable,
  organizationId: string,
  read: {
    archived: boolean;
    crossesBorder?: boolean | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<ProcessingActivity[]> {
  let query = qb
    .selectFrom("processing_activities")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("archived_at", read.archived ? "is not" : "is", null);
  if (read.crossesBorder !== undefined) query = query.where("crosses_border", "=", read.crossesBorder);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("created_at", "activity_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("created_at", "desc").orderBy("activity_id", "desc").limit(read.limit),
  );
  return found.map(activityOf);
}

/** The organisation's activities with these ids, by id (audit verify: the rows its entries name). */
export async function processingActivitiesWithIds(
  db: Queryable,
  organizationId: string,
  activityIds: readonly string[],
): Promise<Map<string, ProcessingActivity>> {
  if (activityIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("processing_activities")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("activity_id", "in", [...activityIds]),
  );
  return new Map(found.map((row) => [row.activity_id, activityOf(row)]));
}

/** Up to `limit` activities with ids after `afterActivityId`, by id (audit verify's keyset scan). */
export async function scanProcessingActivities(
  db: Queryable,
  organizationId: string,
  afterActivityId: string,
  limit: number,
): Promise<ProcessingActivity[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("processing_activities")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("activity_id", ">", afterActivityId)
      .orderBy("activity_id")
      .limit(limit),
  );
  return found.map(activityOf);
}
