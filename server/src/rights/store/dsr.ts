// dsr_requests: one row per data-subject request, with its deadline, its answer and the clock
// events already raised for it. Every statement filters by the caller's organization_id, except the
// clock sweep's claim, which works across organisations and returns each row's organisation.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";
import { DSR_TERMINAL, DSR_STATUSES, type DsrStatus, type DsrType } from "../state-machines.js";
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

/** A request as stored; the principal's externalId is the accounts domain's. */
export interface StoredDsr {
  requestId: string;
  organizationId: string;
  principalId: string;
  type: DsrType;
  status: DsrStatus;
  details: string | null;
  responsePayload: unknown;
  responsePeriodDays: number;
  createdAt: number;
  dueAt: number;
  updatedAt: number;
  closedAt: number | null;
  redactedAt: number | null;
}

const DSR_OPEN_STATUSES = DSR_STATUSES.filter((s) => !DSR_TERMINAL.includes(s));

const COLUMNS = [
  "request_id",
  "organization_id",
  "principal_id",
  "type",
  "status",
  "details",
  "response_payload",
  "response_period_days",
  "created_at",
  "due_at",
  "updated_at",
  "closed_at",
  "redacted_at",
] as const;

const selectDsr = (organizationId: string) =>
  qb.selectFrom("dsr_requests").select(COLUMNS).where("organization_id", "=", organizationId);

type DsrRow = Awaited<ReturnType<typeof rows<ReturnType<typeof selectDsr>>>>[number];

// The table's CHECK constraints hold type and status to the state machine's values.
const toStored = (r: DsrRow): StoredDsr => ({
  requestId: r.request_id,
  organizationId: r.organization_id,
  principalId: r.principal_id,
  type: r.type as DsrType,
  status: r.status as DsrStatus,
  details: r.details,
  responsePayload: r.response_payload,
  responsePeriodDays: r.response_period_days,
  createdAt: r.created_at,
  dueAt: r.due_at,
  updatedAt: r.updated_at,
  closedAt: r.closed_at,
  redactedAt: r.redacted_at,
});

export interface NewDsr {
  organizationId: string;
  requestId: string;
  principalId: string;
  type: DsrType;
  details: string | null;
  responsePeriodDays: number;
  createdAt: number;
  dueAt: number;
}

/**
 * Files pending requests (of any organisations) in one statement; the rows as stored, in the order
 * given. One request's statement is planned once per connection (every lone filing runs it).
 */
export async function insertDsrs(tx: Queryable, inputs: readonly NewDsr[]): Promise<StoredDsr[]> {
  if (inputs.length === 0) return [];
  const inserted = await rows(
    tx,
    qb
      .insertInto("dsr_requests")
      .values(
        inputs.map((input) => ({
          organization_id: input.organizationId,
          request_id: input.requestId,
          principal_id: input.principalId,
          type: input.type,
          status: "pending",
          details: input.details,
          response_period_days: input.responsePeriodDays,
          created_at: input.createdAt,
          due_at: input.dueAt,
          updated_at: input.createdAt,
        })),
      )
      .returning(COLUMNS),
    inputs.length === 1 ? { preparedAs: "dsr_insert" } : {},
  );
  const byId = new Map(inserted.map((row) => [row.request_id, toStored(row)]));
  return inputs.map((input) => byId.get(input.requestId)!);
}

/** One request of the organisation; `forUpdate` locks it until the transaction ends. */
export async function findStoredDsr(
  db: Queryable,
  organizationId: string,
  requestId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredDsr | undefined> {
  const query = selectDsr(organizationId).where("request_id", "=", requestId);
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row && toStored(row);
}

/** The principal's requests, newest first (creation time, then id, both descending). */
export async function listStoredDsrOfPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
  read?: KeysetRead,
): Promise<StoredDsr[]> {
  let query = selectDsr(organizationId).where("principal_id", "=", principalId);
  const after = read?.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("created_at", "request_id"), "<", eb.tuple(...after)));
  if (read) query = query.limit(read.limit);
  const found = await rows(db, query.orderBy("created_at", "desc").orderBy("request_id", "desc"));
  return found.map(toStored);
}

/** The organisation's queue, most urgent first (earliest deadline). */
export async function listStoredDsrOfOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
  read?: KeysetRead,
): Promise<StoredDsr[]> {
  let query = selectDsr(organizationId);
  for (const condition of queueConditions(DSR_OPEN_STATUSES, filter, now)) query = query.where(condition);
  if (filter.type !== undefined) query = query.where("type", "=", filter.type);
  const after = read?.after;
  if (after) query = query.where((eb) => eb(eb.refTuple("due_at", "request_id"), ">", eb.tuple(...after)));
  if (read) query = query.limit(read.limit);
  const found = await rows(db, query.orderBy("due_at").orderBy("request_id"));
  return found.map(toStored);
}

/**
 * Moves the request to `status`. `closed` stamps closed_at; a defined `responsePayload` replaces
 * the stored answer (undefined keeps it).
 */
export async function updateStoredDsrStatus(
  tx: Queryable,
  input: {
    organizationId: string;
    requestId: string;
    status: DsrStatus;
    closed: boolean;
    responsePayload: unknown;
    now: number;
  },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("dsr_requests")
      .set({
        status: input.status,
        updated_at: input.now,
        ...(input.closed ? { closed_at: input.now } : {}),
        ...(input.responsePayload === undefined
          ? {}
          : { response_payload: JSON.stringify(input.responsePayload) }),
      })
      .where("organization_id", "=", input.organizationId)
      .where("request_id", "=", input.requestId),
  );
}

/**
 * Erasure: replaces the details of the principal's requests not yet redacted, and the answers of
 * all but erasure requests (whose answers, a report or a statutory denial, hold ids and citations,
 * not personal data) by a pointer to the erasure request. How many were redacted.
 */
export async function redactDsrOfPrincipal(
  tx: Queryable,
  input: {
    organizationId: string;
    principalId: string;
    erasureRequestId: string;
    redacted: string;
    now: number;
  },
): Promise<number> {
  const redactedAnswer = JSON.stringify({ redacted: true, erasureRequestId: input.erasureRequestId });
  const redacted = await rows(
    tx,
    qb
      .updateTable("dsr_requests")
      .set({
        details: sql<string | null>`CASE WHEN details IS NULL THEN NULL ELSE ${input.redacted} END`,
        response_payload: sql<string | null>`CASE WHEN response_payload IS NULL OR type = 'erasure'
          THEN response_payload ELSE ${redactedAnswer}::jsonb END`,
        redacted_at: input.now,
      })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId)
      .where("redacted_at", "is", null)
      .returning("request_id"),
  );
  return redacted.length;
}

/** An open request the clock sweep claimed, with the event it is owed. */
export interface ClaimedDsr {
  organizationId: string;
  requestId: string;
  principalId: string;
  type: DsrType;
  status: DsrStatus;
  createdAt: number;
  dueAt: number;
}

/**
 * Claims up to `limit` open requests (of every organisation) owed the `kind` event at `now`, by
 * stamping its *_raised_at column, so each event is raised at most once per request. SKIP LOCKED:
 * several instances sweep at once without waiting on each other, and a request being moved right
 * now is picked up by the next sweep if still open. An overdue request is never owed due_soon.
 */
export async function claimDsrClockEvents(
  tx: Queryable,
  kind: "due_soon" | "overdue",
  now: number,
  limit: number,
): Promise<ClaimedDsr[]> {
  const owed = qb
    .selectFrom("dsr_requests")
    .select(["organization_id", "request_id"])
    .where("overdue_raised_at", "is", null)
    .where(kind === "overdue" ? overdueAt(DSR_OPEN_STATUSES, now) : dueSoonAt(DSR_OPEN_STATUSES, now))
    .$if(kind === "due_soon", (q) => q.where("due_soon_raised_at", "is", null))
    .orderBy("due_at")
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const claimed = await rows(
    tx,
    qb
      .updateTable("dsr_requests")
      .set(kind === "overdue" ? { overdue_raised_at: now } : { due_soon_raised_at: now })
      .where(({ eb, refTuple }) =>
        eb(refTuple("organization_id", "request_id"), "in", owed.$asTuple("organization_id", "request_id")),
      )
      .returning(["organization_id", "request_id", "principal_id", "type", "status", "created_at", "due_at"]),
  );
  return claimed.map((r) => ({
    organizationId: r.organization_id,
    requestId: r.request_id,
    principalId: r.principal_id,
    type: r.type as DsrType,
    status: r.status as DsrStatus,
    createdAt: r.created_at,
    dueAt: r.due_at,
  }));
}

/** Up to `limit` requests with ids after `afterRequestId`, by id (audit verify's keyset scan). */
export async function scanStoredDsr(
  db: Queryable,
  organizationId: string,
  afterRequestId: string,
  limit: number,
): Promise<StoredDsr[]> {
  const found = await rows(
    db,
    selectDsr(organizationId).where("request_id", ">", afterRequestId).orderBy("request_id").limit(limit),
  );
  return found.map(toStored);
}

/** Which of these request ids the organisation has (audit verify: records the chain names). */
export async function presentDsrIds(
  db: Queryable,
  organizationId: string,
  requestIds: readonly string[],
): Promise<Set<string>> {
  if (requestIds.length === 0) return new Set();
  const found = await rows(
    db,
    qb
      .selectFrom("dsr_requests")
      .select("request_id")
      .where("organization_id", "=", organizationId)
      .where("request_id", "in", requestIds),
  );
  return new Set(found.map((r) => r.request_id));
}

/** The organisation's DSR queue health at `now` (queue.ts's queueHealthCounts), one aggregate row. */
export const dsrQueueHealthQuery = (organizationId: string, at: { now: number; closedSince: number }) =>
  qb
    .selectFrom("dsr_requests")
    .select(queueHealthCounts(DSR_OPEN_STATUSES, at))
    .where("organization_id", "=", organizationId)
    .where(queueHealthRows(at.closedSince));

/** dsrQueueHealthQuery's counts. */
export async function dsrQueueHealth(
  db: Queryable,
  organizationId: string,
  at: { now: number; closedSince: number },
): Promise<QueueHealth> {
  const row = await first(db, dsrQueueHealthQuery(organizationId, at));
  // An aggregate without GROUP BY always answers one row.
  return toQueueHealth(row!);
}

/**
 * Retention (retention/activity.ts): the latest time each of these principals filed a request or a
 * grievance (exercising her rights counts as approaching the fiduciary, DPDP Rules 2025 r.8), by
 * principal; principals who filed nothing are left out.
 */
export async function latestFilingsOfPrincipals(
  db: Queryable,
  organizationId: string,
  principalIds: readonly string[],
): Promise<Map<string, number>> {
  if (principalIds.length === 0) return new Map();
  const ids = [...principalIds];
  const found = await rows(
    db,
    qb
      .selectFrom(
        qb
          .selectFrom("dsr_requests")
          .select(["principal_id", "created_at"])
          .where("organization_id", "=", organizationId)
          .where("principal_id", "in", ids)
          .unionAll(
            qb
              .selectFrom("grievances")
              .select(["principal_id", "created_at"])
              .where("organization_id", "=", organizationId)
              .where("principal_id", "in", ids),
          )
          .as("filings"),
      )
      .select((eb) => ["filings.principal_id", eb.fn.max("filings.created_at").as("latest")])
      .groupBy("filings.principal_id"),
  );
  return new Map(found.map((r) => [r.principal_id, Number(r.latest)]));
}
