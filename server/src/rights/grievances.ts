// Grievance redressal (DPDP Act s. 13; Rules 2025 r. 14(3)): the principal files, staff respond and
// move the grievance through GRIEVANCE_TRANSITIONS. Each response is kept in the history as the
// `reason` of its move, so interim responses are not lost when a later one replaces `response`.
import type { Database, Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { dueStateOf, type DueState } from "./clocks.js";
import { queueConditions, type QueueFilter } from "./dsr.js";
import { recordTransition, type Actor } from "./history.js";
import { DAY_MS, getResponsePeriods } from "./settings.js";
import { GRIEVANCE_TERMINAL, GRIEVANCE_TRANSITIONS, pathTo, type GrievanceStatus } from "./state-machines.js";

export interface GrievanceRecord {
  grievanceId: string;
  organizationId: string;
  principalId: string;
  externalId: string;
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

type GrievanceRow = {
  grievance_id: string;
  organization_id: string;
  principal_id: string;
  external_id: string;
  subject: string;
  description: string;
  status: GrievanceStatus;
  response: string | null;
  responded_at: number | null;
  response_period_days: number;
  created_at: number;
  due_at: number;
  closed_at: number | null;
  redacted_at: number | null;
};

const COLUMNS = `g.grievance_id, g.organization_id, g.principal_id, p.external_id, g.subject, g.description,
  g.status, g.response, g.responded_at, g.response_period_days, g.created_at, g.due_at, g.closed_at, g.redacted_at`;
const FROM =
  "grievances g JOIN principals p ON p.organization_id = g.organization_id AND p.principal_id = g.principal_id";

const toRecord = (r: GrievanceRow): GrievanceRecord => ({
  grievanceId: r.grievance_id,
  organizationId: r.organization_id,
  principalId: r.principal_id,
  externalId: r.external_id,
  subject: r.subject,
  description: r.description,
  status: r.status,
  response: r.response,
  respondedAt: r.responded_at,
  responsePeriodDays: r.response_period_days,
  createdAt: r.created_at,
  dueAt: r.due_at,
  closedAt: r.closed_at,
  redactedAt: r.redacted_at,
});

export interface GrievanceWire {
  grievanceId: string;
  subject: string;
  description: string;
  status: GrievanceStatus;
  dueAt: number;
  respondedAt?: number;
  response?: string;
  organizationId: string;
  createdAt: number;
  externalId: string;
  closedAt?: number;
  dueState: DueState;
}

export function grievanceToWire(r: GrievanceRecord, now: number): GrievanceWire {
  const wire: GrievanceWire = {
    grievanceId: r.grievanceId,
    subject: r.subject,
    description: r.description,
    status: r.status,
    dueAt: r.dueAt,
    organizationId: r.organizationId,
    createdAt: r.createdAt,
    externalId: r.externalId,
    dueState: dueStateOf(r, now),
  };
  if (r.respondedAt !== null) wire.respondedAt = r.respondedAt;
  if (r.response !== null) wire.response = r.response;
  if (r.closedAt !== null) wire.closedAt = r.closedAt;
  return wire;
}

// Webhook payloads carry ids and dates, not the complaint's text: receivers that need the text
// read it from the staff queue, and the outbox does not become a second copy of it.
const eventPayload = (r: GrievanceRecord) => ({
  grievanceId: r.grievanceId,
  status: r.status,
  externalId: r.externalId,
  createdAt: r.createdAt,
  dueAt: r.dueAt,
});

export async function createGrievance(
  tx: Queryable,
  input: { organizationId: string; principalId: string; subject: string; description: string; actor: Actor },
  now: number,
): Promise<GrievanceRecord> {
  for (const field of ["subject", "description"] as const) {
    if (input[field].trim() === "") throw validationError(field, `${field} must not be blank`);
  }
  const periods = await getResponsePeriods(tx, input.organizationId);
  const grievanceId = newId("grv");
  await tx.query(
    `INSERT INTO grievances (organization_id, grievance_id, principal_id, subject, description, status,
       response_period_days, created_at, due_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8, $7)`,
    [
      input.organizationId,
      grievanceId,
      input.principalId,
      input.subject,
      input.description,
      periods.grievanceResponseDays,
      now,
      now + periods.grievanceResponseDays * DAY_MS,
    ],
  );
  const record = (await findGrievance(tx, input.organizationId, grievanceId))!;
  await recordTransition(
    tx,
    {
      organizationId: input.organizationId,
      subjectKind: "grievance",
      subjectId: grievanceId,
      from: null,
      to: "open",
      actor: input.actor,
      evidence: { dueAt: record.dueAt },
    },
    now,
  );
  await enqueueEvent(
    tx,
    { organizationId: input.organizationId, eventType: "grievance.created", payload: eventPayload(record) },
    now,
  );
  return record;
}

export async function findGrievance(
  db: Queryable,
  organizationId: string,
  grievanceId: string,
  options: { lock?: boolean } = {},
): Promise<GrievanceRecord | undefined> {
  const rows = await db.query<GrievanceRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE g.organization_id = $1 AND g.grievance_id = $2${options.lock ? " FOR UPDATE OF g" : ""}`,
    [organizationId, grievanceId],
  );
  return rows[0] && toRecord(rows[0]);
}

export async function listGrievancesForPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<GrievanceRecord[]> {
  const rows = await db.query<GrievanceRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE g.organization_id = $1 AND g.principal_id = $2
      ORDER BY g.created_at DESC, g.grievance_id`,
    [organizationId, principalId],
  );
  return rows.map(toRecord);
}

export async function listGrievancesForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
): Promise<GrievanceRecord[]> {
  const params: unknown[] = [organizationId];
  const conditions = [
    "g.organization_id = $1",
    ...queueConditions("g", ["open", "in_progress"], filter, now, params),
  ];
  const rows = await db.query<GrievanceRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${conditions.join(" AND ")} ORDER BY g.due_at, g.grievance_id`,
    params,
  );
  return rows.map(toRecord);
}

/**
 * Staff respond: records the response and moves the grievance to `status` through the table
 * (resolving an open grievance records open → in_progress → resolved). Sending the same response
 * with the same status again is a no-op, so a retried call changes nothing.
 */
export async function respondToGrievance(
  db: Database,
  input: {
    organizationId: string;
    grievanceId: string;
    status: "in_progress" | "resolved";
    response: string;
    actor: Actor;
  },
  now: number,
): Promise<{ updated: boolean }> {
  if (input.response.trim() === "") throw validationError("response", "response must not be blank");
  return db.transaction(async (tx) => {
    const record = await findGrievance(tx, input.organizationId, input.grievanceId, { lock: true });
    if (!record) throw notFound("No such grievance in this organisation");
    if (record.status === input.status && record.response === input.response) return { updated: false };
    const path = GRIEVANCE_TERMINAL.includes(record.status)
      ? undefined
      : pathTo(GRIEVANCE_TRANSITIONS, record.status, input.status);
    if (!path) {
      throw new Failure(
        "INVALID_STATUS_TRANSITION",
        `This grievance is ${record.status}; a ${record.status} grievance cannot move to ${input.status}`,
      );
    }
    const terminal = GRIEVANCE_TERMINAL.includes(input.status);
    await tx.query(
      `UPDATE grievances SET status = $3, response = $4, responded_at = $5, updated_at = $5,
         closed_at = CASE WHEN $6 THEN $5::bigint ELSE closed_at END
       WHERE organization_id = $1 AND grievance_id = $2`,
      [input.organizationId, input.grievanceId, input.status, input.response, now, terminal],
    );
    let from = record.status;
    for (const [index, to] of path.entries()) {
      const last = index === path.length - 1;
      await recordTransition(
        tx,
        {
          organizationId: input.organizationId,
          subjectKind: "grievance",
          subjectId: input.grievanceId,
          from,
          to,
          actor: input.actor,
          reason: last ? input.response : "advanced by the response",
          evidence: { responded: last },
        },
        now,
      );
      if (from !== to) {
        await enqueueEvent(
          tx,
          {
            organizationId: input.organizationId,
            eventType: "grievance.status_changed",
            payload: {
              ...eventPayload({ ...record, status: to }),
              previousStatus: from,
              changedAt: now,
              respondedAt: now,
            },
          },
          now,
        );
      }
      from = to;
    }
    return { updated: true };
  });
}
