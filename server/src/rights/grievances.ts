// Grievance redressal (DPDP Act s. 13; Rules 2025 r. 14(3)): the principal files, staff respond and
// move the grievance through GRIEVANCE_TRANSITIONS. Each response is kept in the history as the
// `reason` of its move, so interim responses are not lost when a later one replaces `response`.
import type { Database, Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { dueStateOf, type DueState } from "./clocks.js";
import { recordFiled, type FiledKind } from "./filings.js";
import { recordTransition, type Actor } from "./history.js";
import { withExternalIds, withKnownExternalIds } from "./principals.js";
import { DAY_MS, periodsForFiling } from "./settings.js";
import { GRIEVANCE_TERMINAL, GRIEVANCE_TRANSITIONS, pathTo, type GrievanceStatus } from "./state-machines.js";
import {
  findStoredGrievance,
  insertGrievances,
  listStoredGrievancesOfOrganization,
  listStoredGrievancesOfPrincipal,
  updateStoredGrievanceResponse,
  type StoredGrievance,
} from "./store/grievances.js";
import type { QueueFilter } from "./store/queue.js";

/** A grievance with its principal's externalId (the accounts domain's). */
export interface GrievanceRecord extends StoredGrievance {
  externalId: string;
}

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

/** How a filed grievance is evidenced (filings.ts). */
const FILED_GRIEVANCE: FiledKind<GrievanceRecord> = {
  subjectKind: "grievance",
  firstStatus: "open",
  eventType: "grievance.created",
  idOf: (r) => r.grievanceId,
  evidenceOf: (r) => ({ dueAt: r.dueAt }),
  eventPayloadOf: eventPayload,
};

/** What a principal files, with who files it. */
export interface GrievanceFiling {
  organizationId: string;
  principalId: string;
  /** The principal's external id when the caller knows it (a principal's token names it); read otherwise. */
  externalId?: string | undefined;
  subject: string;
  description: string;
  actor: Actor;
}

/** Refuses a filing that cannot be written: a blank subject or description (400 naming it). */
export function checkGrievanceFiling(input: GrievanceFiling): void {
  for (const field of ["subject", "description"] as const) {
    if (input[field].trim() === "") throw validationError(field, `${field} must not be blank`);
  }
}

export async function createGrievance(
  tx: Queryable,
  input: GrievanceFiling,
  now: number,
): Promise<GrievanceRecord> {
  return (await createGrievances(tx, [input], now))[0]!;
}

/**
 * Files grievances (of any organisations: a group commit's filings, db/write-group.ts) in a fixed
 * number of statements, as createDsrs files requests. The records, in the order given; one bad
 * filing (checkGrievanceFiling) writes nothing.
 */
export async function createGrievances(
  tx: Queryable,
  inputs: readonly GrievanceFiling[],
  now: number,
): Promise<GrievanceRecord[]> {
  inputs.forEach(checkGrievanceFiling);
  const filings = [];
  for (const input of inputs) {
    const periods = await periodsForFiling(tx, input.organizationId);
    filings.push({
      organizationId: input.organizationId,
      grievanceId: newId("grv"),
      principalId: input.principalId,
      subject: input.subject,
      description: input.description,
      responsePeriodDays: periods.grievanceResponseDays,
      createdAt: now,
      dueAt: now + periods.grievanceResponseDays * DAY_MS,
    });
  }
  const stored = await insertGrievances(tx, filings);
  const records = await withKnownExternalIds(tx, stored, inputs);
  await recordFiled(
    tx,
    FILED_GRIEVANCE,
    records,
    inputs.map((input) => input.actor),
    now,
  );
  return records;
}

export async function findGrievance(
  db: Queryable,
  organizationId: string,
  grievanceId: string,
  options: { lock?: boolean } = {},
): Promise<GrievanceRecord | undefined> {
  const stored = await findStoredGrievance(db, organizationId, grievanceId, { forUpdate: options.lock });
  return stored && (await withExternalIds(db, [stored]))[0];
}

/** One page of the principal's grievances, newest first. */
export async function listGrievancesForPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
  page: PageRequest = {},
): Promise<Page<GrievanceRecord>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("listGrievancesForCurrentUser", organizationId, principalId),
      shape: ["number", "string"],
      keyOf: (r: StoredGrievance): [number, string] => [r.createdAt, r.grievanceId],
    },
    (after, limit) => listStoredGrievancesOfPrincipal(db, organizationId, principalId, { after, limit }),
  );
  return { items: await withExternalIds(db, found.items), nextCursor: found.nextCursor };
}

/** The organisation's queue, most urgent first (earliest deadline). */
export async function listGrievancesForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
): Promise<GrievanceRecord[]> {
  return withExternalIds(db, await listStoredGrievancesOfOrganization(db, organizationId, filter, now));
}

/** One page of the organisation's queue, most urgent first (earliest deadline, then id). */
export async function pageGrievancesForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
  page: PageRequest,
): Promise<Page<GrievanceRecord>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("staffListGrievances", organizationId),
      shape: ["number", "string"],
      keyOf: (r: StoredGrievance): [number, string] => [r.dueAt, r.grievanceId],
    },
    (after, limit) => listStoredGrievancesOfOrganization(db, organizationId, filter, now, { after, limit }),
  );
  return { items: await withExternalIds(db, found.items), nextCursor: found.nextCursor };
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
    await updateStoredGrievanceResponse(tx, {
      organizationId: input.organizationId,
      grievanceId: input.grievanceId,
      status: input.status,
      response: input.response,
      closed: terminal,
      now,
    });
    let from = record.status;
    for (const [index, to] of path.entries()) {
      const last = index === path.length - 1;
      await recordTransition(
        tx,
        {
          organizationId: input.organizationId,
          subjectKind: "grievance",
          subjectId: input.grievanceId,
          principalId: record.principalId,
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
