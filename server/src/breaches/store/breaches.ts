// breaches: the breach register. The only code that reads or writes the table; ../register.ts holds
// the rules (record, update, lists) and ../clocks.ts the sweep that claims clock events here.
import type { Expression, SqlBool } from "kysely";
import type { Queryable } from "../../db/database.js";
import { first, qb, rows, sql } from "../../db/query.js";
import { DUE_SOON_FRACTION } from "../../rights/settings.js";

export const BREACH_STATUSES = [
  "reported_user_pending",
  "reported_user_done",
  "reported_board_pending",
  "reported_board_done",
] as const;
export type BreachStatus = (typeof BREACH_STATUSES)[number];

export const DUE_STATES = ["on_time", "due_soon", "overdue", "met", "missed"] as const;
export type BreachDueState = (typeof DUE_STATES)[number];

export interface BreachRecord {
  organizationId: string;
  breachId: string;
  description: string;
  discoveredAt: number;
  occurredAt: number | null;
  affectedPurposes: string[];
  affectedDataCategories: string[];
  mitigation: string | null;
  drill: boolean;
  principalNotificationDueAt: number;
  boardDueAt: number;
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  detailedReportSubmittedAt: number | null;
  certInReportSubmittedAt: number | null;
  status: BreachStatus;
  recordedBy: string;
  createdAt: number;
  updatedAt: number;
}

type BreachRow = {
  organization_id: string;
  breach_id: string;
  description: string;
  discovered_at: number | string;
  occurred_at: number | string | null;
  affected_purposes: unknown;
  affected_data_categories: unknown;
  mitigation: string | null;
  drill: boolean;
  principal_notification_due_at: number | string;
  board_due_at: number | string;
  reported_to_user_at: number | string | null;
  reported_to_board_at: number | string | null;
  detailed_report_submitted_at: number | string | null;
  cert_in_report_submitted_at: number | string | null;
  status: string;
  recorded_by: string;
  created_at: number | string;
  updated_at: number | string;
};

const time = (value: number | string | null): number | null => (value === null ? null : Number(value));

// Only this module writes these columns: the JSON arrays from string arrays, status from its union.
export const breachOf = (row: BreachRow): BreachRecord => ({
  organizationId: row.organization_id,
  breachId: row.breach_id,
  description: row.description,
  discoveredAt: Number(row.discovered_at),
  occurredAt: time(row.occurred_at),
  affectedPurposes: row.affected_purposes as string[],
  affectedDataCategories: row.affected_data_categories as string[],
  mitigation: row.mitigation,
  drill: row.drill,
  principalNotificationDueAt: Number(row.principal_notification_due_at),
  boardDueAt: Number(row.board_due_at),
  reportedToUserAt: time(row.reported_to_user_at),
  reportedToBoardAt: time(row.reported_to_board_at),
  detailedReportSubmittedAt: time(row.detailed_report_submitted_at),
  certInReportSubmittedAt: time(row.cert_in_report_submitted_at),
  status: row.status as BreachStatus,
  recordedBy: row.recorded_by,
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

const BREACH_COLUMNS = [
  "organization_id",
  "breach_id",
  "description",
  "discovered_at",
  "occurred_at",
  "affected_purposes",
  "affected_data_categories",
  "mitigation",
  "drill",
  "principal_notification_due_at",
  "board_due_at",
  "reported_to_user_at",
  "reported_to_board_at",
  "detailed_report_submitted_at",
  "cert_in_report_submitted_at",
  "status",
  "recorded_by",
  "created_at",
  "updated_at",
] as const;

const selectBreaches = (organizationId: string) =>
  qb.selectFrom("breaches").select(BREACH_COLUMNS).where("organization_id", "=", organizationId);

export async function insertBreach(tx: Queryable, breach: BreachRecord): Promise<void> {
  await rows(
    tx,
    qb.insertInto("breaches").values({
      organization_id: breach.organizationId,
      breach_id: breach.breachId,
      description: breach.description,
      discovered_at: breach.discoveredAt,
      occurred_at: breach.occurredAt,
      affected_purposes: JSON.stringify(breach.affectedPurposes),
      affected_data_categories: JSON.stringify(breach.affectedDataCategories),
      mitigation: breach.mitigation,
      drill: breach.drill,
      principal_notification_due_at: breach.principalNotificationDueAt,
      board_due_at: breach.boardDueAt,
      reported_to_user_at: breach.reportedToUserAt,
      reported_to_board_at: breach.reportedToBoardAt,
      detailed_report_submitted_at: breach.detailedReportSubmittedAt,
      cert_in_report_submitted_at: breach.certInReportSubmittedAt,
      status: breach.status,
      recorded_by: breach.recordedBy,
      created_at: breach.createdAt,
      updated_at: breach.updatedAt,
    }),
  );
}

/** The organisation's breach with that id; `forUpdate` locks it until the transaction ends. */
export async function findBreach(
  db: Queryable,
  organizationId: string,
  breachId: string,
  options: { forUpdate?: boolean } = {},
): Promise<BreachRecord | undefined> {
  let query = selectBreaches(organizationId).where("breach_id", "=", breachId);
  if (options.forUpdate) query = query.forUpdate();
  const row = await first(db, query);
  return row && breachOf(row);
}

/** What an update may change; the caller has locked the row and checked the rules. */
export interface BreachChange {
  description: string;
  mitigation: string | null;
  affectedPurposes: string[];
  affectedDataCategories: string[];
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  detailedReportSubmittedAt: number | null;
  certInReportSubmittedAt: number | null;
  status: BreachStatus;
  updatedAt: number;
}

export async function updateBreach(
  tx: Queryable,
  organizationId: string,
  breachId: string,
  change: BreachChange,
): Promise<BreachRecord> {
  const row = await first(
    tx,
    qb
      .updateTable("breaches")
      .set({
        description: change.description,
        mitigation: change.mitigation,
        affected_purposes: JSON.stringify(change.affectedPurposes),
        affected_data_categories: JSON.stringify(change.affectedDataCategories),
        reported_to_user_at: change.reportedToUserAt,
        reported_to_board_at: change.reportedToBoardAt,
        detailed_report_submitted_at: change.detailedReportSubmittedAt,
        cert_in_report_submitted_at: change.certInReportSubmittedAt,
        status: change.status,
        updated_at: change.updatedAt,
      })
      .where("organization_id", "=", organizationId)
      .where("breach_id", "=", breachId)
      .returning(BREACH_COLUMNS),
  );
  if (!row) throw new Error(`breach ${breachId} vanished under its lock`);
  return breachOf(row);
}

// ----- clocks -------------------------------------------------------------------------------------

/** The two statutory clocks: the column it runs to, the one that stops it, the raised-at columns. */
const CLOCK_COLUMNS = {
  principal: {
    due: "principal_notification_due_at",
    done: "reported_to_user_at",
    dueSoonRaised: "principal_due_soon_raised_at",
    overdueRaised: "principal_overdue_raised_at",
  },
  board: {
    due: "board_due_at",
    done: "detailed_report_submitted_at",
    dueSoonRaised: "board_due_soon_raised_at",
    overdueRaised: "board_overdue_raised_at",
  },
} as const;
export type BreachClock = keyof typeof CLOCK_COLUMNS;

/** When a clock becomes nearly due, in SQL: the same instant as clocks.ts's `dueSoonAt`. */
const dueSoonAtSql = (clock: BreachClock) =>
  sql<number>`(discovered_at + ((${sql.ref(CLOCK_COLUMNS[clock].due)} - discovered_at) * ${sql.lit(DUE_SOON_FRACTION.numerator)}) / ${sql.lit(DUE_SOON_FRACTION.denominator)})`;

/** The breaches whose `clock` is in `state` at `now` (the same rule as clocks.ts's dueStateOf). */
function clockInState(clock: BreachClock, state: BreachDueState, now: number): Expression<SqlBool> {
  const due = sql.ref(CLOCK_COLUMNS[clock].due);
  const done = sql.ref(CLOCK_COLUMNS[clock].done);
  switch (state) {
    case "on_time":
      return sql<SqlBool>`(${done} IS NULL AND ${dueSoonAtSql(clock)} > ${now} AND ${due} > ${now})`;
    case "due_soon":
      return sql<SqlBool>`(${done} IS NULL AND ${dueSoonAtSql(clock)} <= ${now} AND ${due} > ${now})`;
    case "overdue":
      return sql<SqlBool>`(${done} IS NULL AND ${due} <= ${now})`;
    case "met":
      return sql<SqlBool>`(${done} IS NOT NULL AND ${done} <= ${due})`;
    case "missed":
      return sql<SqlBool>`(${done} IS NOT NULL AND ${done} > ${due})`;
  }
}

export interface BreachListRead {
  status?: BreachStatus | undefined;
  /** Either clock in this state. */
  dueState?: BreachDueState | undefined;
  drill?: boolean | undefined;
  now: number;
  /** The last row's (discovered_at, breach_id); the list runs newest discovery first. */
  after?: readonly [number, string] | undefined;
  limit: number;
}

/** A page's worth of the organisation's breaches, newest discovery first, filtered. */
export async function listBreachesOfOrganization(
  db: Queryable,
  organizationId: string,
  read: BreachListRead,
): Promise<BreachRecord[]> {
  let query = selectBreaches(organizationId);
  if (read.status !== undefined) query = query.where("status", "=", read.status);
  if (read.drill !== undefined) query = query.where("drill", "=", read.drill);
  const state = read.dueState;
  if (state !== undefined)
    query = query.where((eb) =>
      eb.or([clockInState("principal", state, read.now), clockInState("board", state, read.now)]),
    );
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("discovered_at", "breach_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("discovered_at", "desc").orderBy("breach_id", "desc").limit(read.limit),
  );
  return found.map(breachOf);
}

/** A breach claimed by the sweep: what its clock event carries (ids and dates, no free text). */
export interface ClaimedBreach {
  organizationId: string;
  breachId: string;
  discoveredAt: number;
  dueAt: number;
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
}

/**
 * Claims up to `limit` breaches (of every organisation, drills excepted) owed `kind` of `clock` at
 * `now`, marking each raised in the same statement; FOR UPDATE SKIP LOCKED, so sweeps running on
 * several instances claim disjoint breaches and each event is raised once. A clock owed `overdue`
 * is never then owed `due_soon`.
 */
export async function claimBreachClockEvents(
  tx: Queryable,
  clock: BreachClock,
  kind: "due_soon" | "overdue",
  now: number,
  limit: number,
): Promise<ClaimedBreach[]> {
  const columns = CLOCK_COLUMNS[clock];
  const owed = qb
    .selectFrom("breaches")
    .select(["organization_id", "breach_id"])
    .where("drill", "=", false)
    .where(columns.done, "is", null)
    .where(columns.overdueRaised, "is", null)
    .where(kind === "overdue" ? clockInState(clock, "overdue", now) : clockInState(clock, "due_soon", now))
    .$if(kind === "due_soon", (q) => q.where(columns.dueSoonRaised, "is", null))
    .orderBy(columns.due)
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const raised = kind === "overdue" ? columns.overdueRaised : columns.dueSoonRaised;
  const claimed = await rows(
    tx,
    qb
      .updateTable("breaches")
      .set({ [raised]: now })
      .where(({ eb, refTuple }) =>
        eb(refTuple("organization_id", "breach_id"), "in", owed.$asTuple("organization_id", "breach_id")),
      )
      .returning([
        "organization_id",
        "breach_id",
        "discovered_at",
        columns.due,
        "reported_to_user_at",
        "reported_to_board_at",
      ]),
  );
  return claimed.map((r) => ({
    organizationId: r.organization_id,
    breachId: r.breach_id,
    discoveredAt: Number(r.discovered_at),
    dueAt: Number((r as Record<string, unknown>)[columns.due]),
    reportedToUserAt: time(r.reported_to_user_at),
    reportedToBoardAt: time(r.reported_to_board_at),
  }));
}

// ----- audit verify -------------------------------------------------------------------------------

/** The organisation's breaches with these ids, by id (audit verify: the rows its entries name). */
export async function breachesWithIds(
  db: Queryable,
  organizationId: string,
  breachIds: readonly string[],
): Promise<Map<string, BreachRecord>> {
  if (breachIds.length === 0) return new Map();
  const found = await rows(db, selectBreaches(organizationId).where("breach_id", "in", [...breachIds]));
  return new Map(found.map((row) => [row.breach_id, breachOf(row)]));
}

/** Up to `limit` breaches with ids after `afterBreachId`, by id (audit verify's keyset scan). */
export async function scanBreaches(
  db: Queryable,
  organizationId: string,
  afterBreachId: string,
  limit: number,
): Promise<BreachRecord[]> {
  const found = await rows(
    db,
    selectBreaches(organizationId).where("breach_id", ">", afterBreachId).orderBy("breach_id").limit(limit),
  );
  return found.map(breachOf);
}
