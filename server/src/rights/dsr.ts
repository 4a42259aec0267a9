// Data-subject requests (DPDP Act ss. 11-13): filing, the principal's and the staff's views, and
// every status move through the DSR_TRANSITIONS table. Moves that complete an erasure request run
// the erasure in the same transaction (erasure.ts), so "completed" is never recorded without it.
import type { Database, Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { DUE_SOON_SQL, dueStateOf, type DueState } from "./clocks.js";
import { erasePrincipalData, type ErasureContext } from "./erasure.js";
import { recordTransition, type Actor } from "./history.js";
import { DAY_MS, getResponsePeriods } from "./settings.js";
import {
  assertMove,
  DSR_TERMINAL,
  DSR_TRANSITIONS,
  pathTo,
  type DsrStatus,
  type DsrType,
} from "./state-machines.js";

export interface DsrRecord {
  requestId: string;
  organizationId: string;
  principalId: string;
  externalId: string;
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

type DsrRow = {
  request_id: string;
  organization_id: string;
  principal_id: string;
  external_id: string;
  type: DsrType;
  status: DsrStatus;
  details: string | null;
  response_payload: unknown;
  response_period_days: number;
  created_at: number;
  due_at: number;
  updated_at: number;
  closed_at: number | null;
  redacted_at: number | null;
};

const COLUMNS = `d.request_id, d.organization_id, d.principal_id, p.external_id, d.type, d.status, d.details,
  d.response_payload, d.response_period_days, d.created_at, d.due_at, d.updated_at, d.closed_at, d.redacted_at`;
const FROM =
  "dsr_requests d JOIN principals p ON p.organization_id = d.organization_id AND p.principal_id = d.principal_id";

const toRecord = (r: DsrRow): DsrRecord => ({
  requestId: r.request_id,
  organizationId: r.organization_id,
  principalId: r.principal_id,
  externalId: r.external_id,
  type: r.type,
  status: r.status,
  details: r.details,
  responsePayload: r.response_payload,
  responsePeriodDays: r.response_period_days,
  createdAt: r.created_at,
  dueAt: r.due_at,
  updatedAt: r.updated_at,
  closedAt: r.closed_at,
  redactedAt: r.redacted_at,
});

export interface DsrWire {
  requestId: string;
  type: DsrType;
  status: DsrStatus;
  dueAt: number;
  requestDetails?: string;
  organizationId: string;
  createdAt: number;
  externalId: string;
  responsePayload?: unknown;
  closedAt?: number;
  dueState: DueState;
}

/** The contract's DsrRequest: the filed `details` comes back as `requestDetails`. */
export function dsrToWire(r: DsrRecord, now: number): DsrWire {
  const wire: DsrWire = {
    requestId: r.requestId,
    type: r.type,
    status: r.status,
    dueAt: r.dueAt,
    organizationId: r.organizationId,
    createdAt: r.createdAt,
    externalId: r.externalId,
    dueState: dueStateOf(r, now),
  };
  if (r.details !== null) wire.requestDetails = r.details;
  if (r.responsePayload !== null && r.responsePayload !== undefined) wire.responsePayload = r.responsePayload;
  if (r.closedAt !== null) wire.closedAt = r.closedAt;
  return wire;
}

const eventPayload = (r: DsrRecord) => ({
  requestId: r.requestId,
  type: r.type,
  status: r.status,
  externalId: r.externalId,
  createdAt: r.createdAt,
  dueAt: r.dueAt,
});

export async function createDsr(
  tx: Queryable,
  input: {
    organizationId: string;
    principalId: string;
    type: DsrType;
    details?: string | undefined;
    actor: Actor;
  },
  now: number,
): Promise<DsrRecord> {
  if (input.details !== undefined && input.details.trim() === "")
    throw validationError("details", "details must not be blank");
  const periods = await getResponsePeriods(tx, input.organizationId);
  const requestId = newId("dsr");
  await tx.query(
    `INSERT INTO dsr_requests (organization_id, request_id, principal_id, type, status, details,
       response_period_days, created_at, due_at, updated_at)
     VALUES ($1, $2, $3, $4, 'pending', $5, $6, $7, $8, $7)`,
    [
      input.organizationId,
      requestId,
      input.principalId,
      input.type,
      input.details ?? null,
      periods.dsrResponseDays,
      now,
      now + periods.dsrResponseDays * DAY_MS,
    ],
  );
  const record = (await findDsr(tx, input.organizationId, requestId))!;
  await recordTransition(
    tx,
    {
      organizationId: input.organizationId,
      subjectKind: "dsr",
      subjectId: requestId,
      from: null,
      to: "pending",
      actor: input.actor,
      evidence: { type: input.type, dueAt: record.dueAt },
    },
    now,
  );
  await enqueueEvent(
    tx,
    { organizationId: input.organizationId, eventType: "dsr.created", payload: eventPayload(record) },
    now,
  );
  return record;
}

export async function findDsr(
  db: Queryable,
  organizationId: string,
  requestId: string,
  options: { lock?: boolean } = {},
): Promise<DsrRecord | undefined> {
  const rows = await db.query<DsrRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.organization_id = $1 AND d.request_id = $2${options.lock ? " FOR UPDATE OF d" : ""}`,
    [organizationId, requestId],
  );
  return rows[0] && toRecord(rows[0]);
}

export async function listDsrForPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<DsrRecord[]> {
  const rows = await db.query<DsrRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE d.organization_id = $1 AND d.principal_id = $2
      ORDER BY d.created_at DESC, d.request_id`,
    [organizationId, principalId],
  );
  return rows.map(toRecord);
}

export interface QueueFilter {
  status?: string | undefined;
  type?: string | undefined;
  dueBefore?: number | undefined;
  dueAfter?: number | undefined;
  overdue?: boolean | undefined;
  dueSoon?: boolean | undefined;
}

/**
 * SQL conditions for the staff queue filters over a table with status/due_at/created_at columns
 * (aliased `alias`). "Overdue" and "due soon" only ever describe open items.
 */
export function queueConditions(
  alias: string,
  openStatuses: readonly string[],
  filter: QueueFilter,
  now: number,
  params: unknown[],
): string[] {
  const conditions: string[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const open = `${alias}.status IN (${openStatuses.map((s) => `'${s}'`).join(", ")})`;
  if (filter.status !== undefined) conditions.push(`${alias}.status = ${param(filter.status)}`);
  if (filter.dueBefore !== undefined) conditions.push(`${alias}.due_at < ${param(filter.dueBefore)}`);
  if (filter.dueAfter !== undefined) conditions.push(`${alias}.due_at > ${param(filter.dueAfter)}`);
  if (filter.overdue !== undefined) {
    const overdue = `(${open} AND ${alias}.due_at <= ${param(now)})`;
    conditions.push(filter.overdue ? overdue : `NOT ${overdue}`);
  }
  if (filter.dueSoon !== undefined) {
    const soonAt = DUE_SOON_SQL.replaceAll("created_at", `${alias}.created_at`).replaceAll(
      "due_at",
      `${alias}.due_at`,
    );
    const dueSoon = `(${open} AND ${alias}.due_at > ${param(now)} AND ${soonAt} <= $${params.length})`;
    conditions.push(filter.dueSoon ? dueSoon : `NOT ${dueSoon}`);
  }
  return conditions;
}

/** The organisation's queue, most urgent first (earliest deadline). */
export async function listDsrForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
): Promise<DsrRecord[]> {
  const params: unknown[] = [organizationId];
  const conditions = [
    "d.organization_id = $1",
    ...queueConditions("d", ["pending", "in_progress"], filter, now, params),
  ];
  if (filter.type !== undefined) {
    params.push(filter.type);
    conditions.push(`d.type = $${params.length}`);
  }
  const rows = await db.query<DsrRow>(
    `SELECT ${COLUMNS} FROM ${FROM} WHERE ${conditions.join(" AND ")} ORDER BY d.due_at, d.request_id`,
    params,
  );
  return rows.map(toRecord);
}

interface MoveOptions {
  actor: Actor;
  reason?: string | undefined;
  /** Stored as the response when the walk ends; undefined keeps the current one. */
  responsePayload?: unknown;
  /** Extra audit facts for the final move. */
  evidence?: Record<string, unknown>;
}

/**
 * Walks `record` through `path` (each step allowed by the table), recording every step with its
 * actor and raising dsr.status_changed for each. Completing an erasure request erases first.
 */
async function walk(
  tx: Queryable,
  record: DsrRecord,
  path: DsrStatus[],
  options: MoveOptions,
  erasure: ErasureContext,
  now: number,
): Promise<void> {
  let current = record;
  for (const [index, to] of path.entries()) {
    assertMove(DSR_TRANSITIONS, "DSR request", current.status, to);
    const last = index === path.length - 1;
    let payload = last ? options.responsePayload : undefined;
    let evidence = last ? options.evidence : undefined;
    if (to === "completed" && record.type === "erasure") {
      // The event below still names the principal by the externalId processors know; erasure
      // pseudonymises it in Guard's own records afterwards.
      const report = await erasePrincipalData(
        tx,
        {
          organizationId: record.organizationId,
          principalId: record.principalId,
          requestId: record.requestId,
          actor: options.actor,
        },
        erasure,
        now,
      );
      payload = { erasure: report, ...(payload === undefined ? {} : { message: payload }) };
      evidence = { ...evidence, erasure: { withdrawnConsents: report.consentsWithdrawn.length } };
    }
    const terminal = DSR_TERMINAL.includes(to);
    await tx.query(
      `UPDATE dsr_requests SET status = $3, updated_at = $4, closed_at = CASE WHEN $5 THEN $4::bigint ELSE closed_at END,
         response_payload = CASE WHEN $6 THEN $7::jsonb ELSE response_payload END
       WHERE organization_id = $1 AND request_id = $2`,
      [
        record.organizationId,
        record.requestId,
        to,
        now,
        terminal,
        payload !== undefined,
        payload === undefined ? null : JSON.stringify(payload),
      ],
    );
    await recordTransition(
      tx,
      {
        organizationId: record.organizationId,
        subjectKind: "dsr",
        subjectId: record.requestId,
        from: current.status,
        to,
        actor: options.actor,
        reason: last ? options.reason : "advanced by the requested action",
        evidence: { type: record.type, ...evidence },
      },
      now,
    );
    const previous = current.status;
    current = { ...current, status: to, closedAt: terminal ? now : current.closedAt };
    await enqueueEvent(
      tx,
      {
        organizationId: record.organizationId,
        eventType: "dsr.status_changed",
        payload: {
          ...eventPayload(current),
          previousStatus: previous,
          changedAt: now,
          ...(to === "completed" && record.type === "erasure"
            ? { erasure: (payload as { erasure: unknown }).erasure }
            : {}),
        },
      },
      now,
    );
  }
}

async function lockedDsr(tx: Queryable, organizationId: string, requestId: string): Promise<DsrRecord> {
  const record = await findDsr(tx, organizationId, requestId, { lock: true });
  if (!record) throw notFound("No such DSR request in this organisation");
  return record;
}

/**
 * Whether a PATCH repeats what is stored. A completed erasure stores the staff's payload under
 * `message`, beside the erasure report.
 */
function sameResponse(record: DsrRecord, payload: unknown): boolean {
  const stored =
    record.type === "erasure" && record.status === "completed"
      ? (record.responsePayload as { message?: unknown } | null)?.message
      : record.responsePayload;
  return canonicalJson(payload) === canonicalJson(stored ?? null);
}

/** Deepest nesting accepted in a response payload; real answers are a few levels deep. */
const MAX_PAYLOAD_DEPTH = 32;

/**
 * Refuses payloads the evidence path cannot hold: nesting deeper than MAX_PAYLOAD_DEPTH (which
 * would exhaust the stack of every recursive JSON walker, PostgreSQL's included) and numbers JSON
 * parsing turned into Infinity. Iterative, so the check itself cannot overflow.
 */
function assertStorablePayload(payload: unknown): void {
  const stack: { value: unknown; depth: number }[] = [{ value: payload, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop()!;
    if (typeof value === "number" && !Number.isFinite(value))
      throw validationError("responsePayload", "responsePayload numbers must be finite");
    if (value === null || typeof value !== "object") continue;
    if (depth >= MAX_PAYLOAD_DEPTH)
      throw validationError(
        "responsePayload",
        `responsePayload may nest at most ${MAX_PAYLOAD_DEPTH} levels`,
      );
    for (const child of Object.values(value)) stack.push({ value: child, depth: depth + 1 });
  }
}

/** PATCH: one step of the table. Repeating the move that already happened is a no-op (a retry). */
export async function updateDsrStatus(
  db: Database,
  input: {
    organizationId: string;
    requestId: string;
    status: DsrStatus;
    responsePayload?: unknown;
    reason?: string | undefined;
    actor: Actor;
  },
  erasure: ErasureContext,
  now: number,
): Promise<{ updated: boolean }> {
  if (input.reason !== undefined && input.reason.trim() === "")
    throw validationError("reason", "reason must not be blank");
  if (input.responsePayload !== undefined) assertStorablePayload(input.responsePayload);
  return db.transaction(async (tx) => {
    const record = await lockedDsr(tx, input.organizationId, input.requestId);
    if (
      record.status === input.status &&
      (input.responsePayload === undefined || sameResponse(record, input.responsePayload))
    ) {
      return { updated: false };
    }
    assertMove(DSR_TRANSITIONS, "DSR request", record.status, input.status);
    await walk(tx, record, [input.status], input, erasure, now);
    return { updated: true };
  });
}

/** Walks an open request to `target` through the table, for the summary and denial actions. */
function pathOrFail(record: DsrRecord, target: DsrStatus): DsrStatus[] {
  const path = DSR_TERMINAL.includes(record.status)
    ? undefined
    : pathTo(DSR_TRANSITIONS, record.status, target);
  if (!path) {
    throw new Failure(
      "INVALID_STATUS_TRANSITION",
      `This DSR request is ${record.status}; a ${record.status} request cannot move to ${target}`,
    );
  }
  return path;
}

export async function completeWithSummary(
  db: Database,
  input: { organizationId: string; requestId: string; actor: Actor },
  build: (tx: Queryable, record: DsrRecord) => Promise<unknown>,
  erasure: ErasureContext,
  now: number,
): Promise<{ updated: boolean }> {
  return db.transaction(async (tx) => {
    const record = await lockedDsr(tx, input.organizationId, input.requestId);
    if (record.type !== "summary") {
      throw new Failure(
        "INVALID_STATUS_TRANSITION",
        `Only a summary request gets a generated summary; this one is a ${record.type} request`,
      );
    }
    const path = pathOrFail(record, "completed");
    const summary = await build(tx, record);
    await walk(
      tx,
      record,
      path,
      { actor: input.actor, reason: "summary generated", responsePayload: summary },
      erasure,
      now,
    );
    return { updated: true };
  });
}

export interface StatutoryDenial {
  statute: string;
  citation: string;
  retentionPolicyId?: string | undefined;
}

export async function denyWithStatutoryBasis(
  db: Database,
  input: { organizationId: string; requestId: string; denial: StatutoryDenial; actor: Actor },
  erasure: ErasureContext,
  now: number,
): Promise<{ updated: boolean }> {
  for (const field of ["statute", "citation"] as const) {
    if (input.denial[field].trim() === "") throw validationError(field, `${field} must not be blank`);
  }
  return db.transaction(async (tx) => {
    const record = await lockedDsr(tx, input.organizationId, input.requestId);
    if (record.type !== "erasure") {
      throw new Failure(
        "INVALID_STATUS_TRANSITION",
        `A statutory denial applies to erasure requests only; this one is a ${record.type} request`,
      );
    }
    const path = pathOrFail(record, "rejected");
    const statutoryDenial = {
      statute: input.denial.statute.trim(),
      citation: input.denial.citation.trim(),
      ...(input.denial.retentionPolicyId ? { retentionPolicyId: input.denial.retentionPolicyId } : {}),
      deniedAt: now,
    };
    await walk(
      tx,
      record,
      path,
      {
        actor: input.actor,
        reason: `statutory denial: ${statutoryDenial.statute}, ${statutoryDenial.citation}`,
        responsePayload: { statutoryDenial },
        evidence: { statute: statutoryDenial.statute, citation: statutoryDenial.citation },
      },
      erasure,
      now,
    );
    return { updated: true };
  });
}
