// Data-subject requests (DPDP Act ss. 11-13): filing, the principal's and the staff's views, and
// every status move through the DSR_TRANSITIONS table. Moves that complete an erasure request run
// the erasure in the same transaction (erasure.ts), so "completed" is never recorded without it.
import type { Database, Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { newId } from "../lib/ids.js";
import { findPolicy } from "../retention/store/policies.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { dueStateOf, type DueState } from "./clocks.js";
import { erasePrincipalData, type ErasureContext, type ErasureReport } from "./erasure.js";
import { recordFiled, type FiledKind } from "./filings.js";
import { recordTransition, type Actor } from "./history.js";
import { withExternalIds, withKnownExternalIds } from "./principals.js";
import { DAY_MS, periodsForFiling } from "./settings.js";
import {
  assertMove,
  DSR_TERMINAL,
  DSR_TRANSITIONS,
  pathTo,
  type DsrStatus,
  type DsrType,
} from "./state-machines.js";
import {
  findStoredDsr,
  insertDsrs,
  listStoredDsrOfOrganization,
  listStoredDsrOfPrincipal,
  updateStoredDsrStatus,
  type StoredDsr,
} from "./store/dsr.js";
import type { QueueFilter } from "./store/queue.js";

export type { QueueFilter } from "./store/queue.js";

/** A request with its principal's externalId (the accounts domain's). */
export interface DsrRecord extends StoredDsr {
  externalId: string;
}

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

/** How a filed request is evidenced (filings.ts). */
const FILED_DSR: FiledKind<DsrRecord> = {
  subjectKind: "dsr",
  firstStatus: "pending",
  eventType: "dsr.created",
  idOf: (r) => r.requestId,
  evidenceOf: (r) => ({ type: r.type, dueAt: r.dueAt }),
  eventPayloadOf: eventPayload,
};

/** What a principal files, with who files it. */
export interface DsrFiling {
  organizationId: string;
  principalId: string;
  /** The principal's external id when the caller knows it (a principal's token names it); read otherwise. */
  externalId?: string | undefined;
  type: DsrType;
  details?: string | undefined;
  actor: Actor;
}

/** Refuses a filing that cannot be written: a blank `details` (400 naming it). */
export function checkDsrFiling(input: DsrFiling): void {
  if (input.details !== undefined && input.details.trim() === "")
    throw validationError("details", "details must not be blank");
}

export async function createDsr(tx: Queryable, input: DsrFiling, now: number): Promise<DsrRecord> {
  return (await createDsrs(tx, [input], now))[0]!;
}

/**
 * Files requests (of any organisations: a group commit's filings, db/write-group.ts) in a fixed
 * number of statements: the requests, their first moves, and per organisation their chain entries
 * and `dsr.created` events. The records, in the order given. Each filing is checked first
 * (checkDsrFiling), so one bad filing writes nothing.
 */
export async function createDsrs(
  tx: Queryable,
  inputs: readonly DsrFiling[],
  now: number,
): Promise<DsrRecord[]> {
  inputs.forEach(checkDsrFiling);
  const filings = [];
  for (const input of inputs) {
    const periods = await periodsForFiling(tx, input.organizationId);
    filings.push({
      organizationId: input.organizationId,
      requestId: newId("dsr"),
      principalId: input.principalId,
      type: input.type,
      details: input.details ?? null,
      responsePeriodDays: periods.dsrResponseDays,
      createdAt: now,
      dueAt: now + periods.dsrResponseDays * DAY_MS,
    });
  }
  const stored = await insertDsrs(tx, filings);
  const records = await withKnownExternalIds(tx, stored, inputs);
  await recordFiled(
    tx,
    FILED_DSR,
    records,
    inputs.map((input) => input.actor),
    now,
  );
  return records;
}

export async function findDsr(
  db: Queryable,
  organizationId: string,
  requestId: string,
  options: { lock?: boolean } = {},
): Promise<DsrRecord | undefined> {
  const stored = await findStoredDsr(db, organizationId, requestId, { forUpdate: options.lock });
  return stored && (await withExternalIds(db, [stored]))[0];
}

/** One page of the principal's requests, newest first. */
export async function listDsrForPrincipal(
  db: Queryable,
  organizationId: string,
  principalId: string,
  page: PageRequest = {},
): Promise<Page<DsrRecord>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("listDsrRequestsForCurrentUser", organizationId, principalId),
      shape: ["number", "string"],
      keyOf: (r: StoredDsr): [number, string] => [r.createdAt, r.requestId],
    },
    (after, limit) => listStoredDsrOfPrincipal(db, organizationId, principalId, { after, limit }),
  );
  return { items: await withExternalIds(db, found.items), nextCursor: found.nextCursor };
}

/** The organisation's queue, most urgent first (earliest deadline). */
export async function listDsrForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
): Promise<DsrRecord[]> {
  return withExternalIds(db, await listStoredDsrOfOrganization(db, organizationId, filter, now));
}

/** One page of the organisation's queue, most urgent first (earliest deadline, then id). */
export async function pageDsrForOrganization(
  db: Queryable,
  organizationId: string,
  filter: QueueFilter,
  now: number,
  page: PageRequest,
): Promise<Page<DsrRecord>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("staffListDsrRequests", organizationId),
      shape: ["number", "string"],
      keyOf: (r: StoredDsr): [number, string] => [r.dueAt, r.requestId],
    },
    (after, limit) => listStoredDsrOfOrganization(db, organizationId, filter, now, { after, limit }),
  );
  return { items: await withExternalIds(db, found.items), nextCursor: found.nextCursor };
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
    let report: ErasureReport | undefined;
    if (to === "completed" && record.type === "erasure") {
      // The event below still names the principal by the externalId processors know; erasure
      // pseudonymises it in Guard's own records afterwards.
      report = await erasePrincipalData(
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
    await updateStoredDsrStatus(tx, {
      organizationId: record.organizationId,
      requestId: record.requestId,
      status: to,
      closed: terminal,
      responsePayload: payload,
      now,
    });
    await recordTransition(
      tx,
      {
        organizationId: record.organizationId,
        subjectKind: "dsr",
        subjectId: record.requestId,
        principalId: record.principalId,
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
          ...(report === undefined ? {} : { erasure: report }),
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
    // The policy named must be in the organisation's retention register (archived ones count: a
    // denial may rest on a policy since retired); another organisation's id is as unknown.
    const policyId = input.denial.retentionPolicyId;
    if (policyId && !(await findPolicy(tx, input.organizationId, policyId)))
      throw notFound(`No retention policy ${policyId} in this organisation`);
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
