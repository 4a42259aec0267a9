// grievances: one row per complaint, with its latest response, its deadline and the clock events
// already raised for it (earlier responses live in rights_transitions). Every statement filters by
// the caller's organization_id, except the clock sweep's claim, which works across organisations
// and returns each row's organisation.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";
import { GRIEVANCE_STATUSES, GRIEVANCE_TERMINAL, type GrievanceStatus } from "../state-machines.js";
import {
  dueSoonAt,
  overdueAt,
  queueConditions,
  queueHealthCounts,
  queueHealthRows,
  toQueueHealth,
  type KeysetRead,
  type QueueFilter,
  type QueueHealth,
} from "./queue.js";

/** A grievance as stored; the principal's externalId is the accounts domain's. */
export interface StoredGrievance {
  grievanceId: string;
  organizationId: string;
  principalId: string;
  subject: string;
  description: string;
  status: GrievanceStatus;
  response: string | null;
  respondedAt: number | null;
  responsePeriodDays: number;
  createdAt: number;
  dueAt: number;
  closedAt: number | null;
  redactedAt: number | null;
}

const GRIEVANCE_OPEN_STATUSES = GRIEVANCE_STATUSES.filter((s) => !GRIEVANCE_TERMINAL.includes(s));

const COLUMNS = [
  "grievance_id",
  "organization_id",
  "principal_id",
  "subject",
  "description",
  "status",
  "response",
  "responded_at",
  "response_period_days",
  "created_at",
  "due_at",
  "closed_at",
  "redacted_at",
] as const;

const selectGrievances = (organizationId: string) =>
  qb.selectFrom("grievances").select(COLUMNS).where("organization_id", "=", organizationId);

type GrievanceRow = Awaited<ReturnType<typeof rows<ReturnType<typeof selectGrievances>>>>[number];

// The table's CHECK constraint holds status to the state machine's values.
const toStored = (r: GrievanceRow): StoredGrievance => ({
  grievanceId: r.grievance_id,
  organizationId: r.organization_id,
  principalId: r.principal_id,
  subject: r.subject,
  description: r.description,
  status: r.status as GrievanceStatus,
  response: r.response,
  respondedAt: r.responded_at,
  responsePeriodDays: r.response_period_days,
  createdAt: r.created_at,
  dueAt: r.due_at,
  closedAt: r.closed_at,
  redactedAt: r.redacted_at,
});

export interface NewGrievance {
  organizationId: string;
  grievanceId: string;
  principalId: string;
  subject: string;
  description: string;
  responsePeriodDays: number;
  createdAt: number;
  dueAt: number;
}

/**
 * Files open grievances (of any organisations) in one statement; the rows as stored, in the order
 * given. One grievance's statement is planned once per connection (every lone filing runs it).
 */
export async function insertGrievances(
  tx: Queryable,
  inputs: readonly NewGrievance[],
): Promise<StoredGrievance[]> {
  if (inputs.length === 0) return [];
  const inserted = await rows(
    tx,
    qb
      .insertInto("grievances")
      .values(
        inputs.map((input) => ({
          organization_id: input.organizationId,
          grievance_id: input.grievanceId,
          principal_id: input.principalId,
          subject: input.subject,
          description: input.description,
          status: "open",
          response_period_days: input.responsePeriodDays,
          created_at: input.createdAt,
          due_at: input.dueAt,
          updated_at: input.createdAt,
        })),
      )
      .returning(COLUMNS),
    inputs.length === 1 ? { preparedAs: "grievance_insert" } : {},
  );
  const byId = new Map(inserted.map((row) => [row.grievance_id, toStored(row)]));
  return inputs.map((input) => byId.get(input.grievanceId)!);
}

/** One grievance of the organisation; `forUpdate` locks it until the transaction ends. */
export async function findStoredGrievance(
  db: Queryable,
  organizationId: string,
  grievanceId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredGrievance | undefined> {
  const query = selectGrievances(organizationId).where("grievance_id", "=", grievanceId);
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row && toStored(row);
}

/** The principal's grievances, newest first (creation time, then id, both descending). */
export async function listStoredGrievancesOfPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
  read?: KeysetRead,
): Promise<StoredGrievance[]> {
  let query = selectGrievances(organizationId).where("principal_id", "=", principalId);
  const after = read?.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("created_at", "grievance_id"), "<", eb.tuple(...after)));
  if (read) query = query.limit(read.limit);
  const found = await rows(db, query.orderBy("created_at", "desc").orderBy("grievance_id", "desc"));
  return found.map(toStored);
}

/** The organisation's queue, most urgent first (earliest deadline). */
export async function listStoredGrievancesOfOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
  read?: KeysetRead,
): Promise<StoredGrievance[]> {
  let query = selectGrievances(organizationId);
  for (const condition of queueConditions(GRIEVANCE_OPEN_STATUSES, filter, now))
    query = query.where(condition);
  const after = read?.after;
  if (after) query = query.where((eb) => eb(eb.refTuple("due_at", "grievance_id"), ">", eb.tuple(...after)));
  if (read) query = query.limit(read.limit);
  const found = await rows(db, query.orderBy("due_at").orderBy("grievance_id"));
  return found.map(toStored);
}

/** Records a response and the status it moved the grievance to; `closed` stamps closed_at. */
export async function updateStoredGrievanceResponse(
  tx: Queryable,
  input: {
    organizationId: string;
    grievanceId: string;
    status: GrievanceStatus;
    response: string;
    closed: boolean;
    now: number;
  },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("grievances")
      .set({
        status: input.status,
        response: input.response,
        responded_at: input.now,
        updated_at: input.now,
        ...(input.closed ? { closed_at: input.now } : {}),
      })
      .where("organization_id", "=", input.organizationId)
      .where("grievance_id", "=", input.grievanceId),
  );
}

/** Erasure: replaces the texts of the principal's grievances not yet redacted; how many. */
export async function redactGrievancesOfPrincipal(
  tx: Queryable,
  input: { organizationId: string; principalId: string; redacted: string; now: number },
): Promise<number> {
  const redacted = await rows(
    tx,
    qb
      .updateTable("grievances")
      .set({
        subject: input.redacted,
        description: input.redacted,
        response: sql<string | null>`CASE WHEN response IS NULL THEN NULL ELSE ${input.redacted} END`,
        redacted_at: input.now,
      })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId)
      .where("redacted_at", "is", null)
      .returning("grievance_id"),
  );
  return redacted.length;
}

/** An open grievance the clock sweep claimed, with the event it is owed. */
export interface ClaimedGrievance {
  organizationId: string;
  grievanceId: string;
  principalId: string;
  status: GrievanceStatus;
  createdAt: number;
  dueAt: number;
}

/**
 * Claims up to `limit` open grievances (of every organisation) owed the `kind` event at `now`, as
 * claimDsrClockEvents does for requests.
 */
export async function claimGrievanceClockEvents(
  tx: Queryable,
  kind: "due_soon" | "overdue",
  now: number,
  limit: number,
): Promise<ClaimedGrievance[]> {
  const owed = qb
    .selectFrom("grievances")
    .select(["organization_id", "grievance_id"])
    .where("overdue_raised_at", "is", null)
    .where(
      kind === "overdue" ? overdueAt(GRIEVANCE_OPEN_STATUSES, now) : dueSoonAt(GRIEVANCE_OPEN_STATUSES, now),
    )
    .$if(kind === "due_soon", (q) => q.where("due_soon_raised_at", "is", null))
    .orderBy("due_at")
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const claimed = await rows(
    tx,
    qb
      .updateTable("grievances")
      .set(kind === "overdue" ? { overdue_raised_at: now } : { due_soon_raised_at: now })
      .where(({ eb, refTuple }) =>
        eb(
          refTuple("organization_id", "grievance_id"),
          "in",
          owed.$asTuple("organization_id", "grievance_id"),
        ),
      )
      .returning(["organization_id", "grievance_id", "principal_id", "status", "created_at", "due_at"]),
  );
  return claimed.map((r) => ({
    organizationId: r.organization_id,
    grievanceId: r.grievance_id,
    principalId: r.principal_id,
    status: r.status as GrievanceStatus,
    createdAt: r.created_at,
    dueAt: r.due_at,
  }));
}

/** Up to `limit` grievances with ids after `afterGrievanceId`, by id (audit verify's keyset scan). */
export async function scanStoredGrievances(
  db: Queryable,
  organizationId: string,
  afterGrievanceId: string,
  limit: number,
): Promise<StoredGrievance[]> {
  const found = await rows(
    db,
    selectGrievances(organizationId)
      .where("grievance_id", ">", afterGrievanceId)
      .orderBy("grievance_id")
      .limit(limit),
  );
  return found.map(toStored);
}

/** Which of these grievance ids the organisation has (audit verify: records the chain names). */
export async function presentGrievanceIds(
  db: Queryable,
  organizationId: string,
  grievanceIds: readonly string[],
): Promise<Set<string>> {
  if (grievanceIds.length === 0) return new Set();
  const found = await rows(
    db,
    qb
      .selectFrom("grievances")
      .select("grievance_id")
      .where("organization_id", "=", organizationId)
      .where("grievance_id", "in", grievanceIds),
  );
  return new Set(found.map((r) => r.grievance_id));
}

/** The organisation's grievance queue health at `now` (queue.ts's queueHealthCounts), one aggregate row. */
export const grievanceQueueHealthQuery = (organizationId: string, at: { now: number; closedSince: number }) =>
  qb
    .selectFrom("grievances")
    .select(queueHealthCounts(GRIEVANCE_OPEN_STATUSES, at))
    .where("organization_id", "=", organizationId)
    .where(queueHealthRows(at.closedSince));

/** grievanceQueueHealthQuery's counts. */
export async function grievanceQueueHealth(
  db: Queryable,
  organizationId: string,
  at: { now: number; closedSince: number },
): Promise<QueueHealth> {
  const row = await first(db, grievanceQueueHealthQuery(organizationId, at));
  // An aggregate without GROUP BY always answers one row.
  return toQueueHealth(row!);
}
