// The rules of the breach register: recording a breach (or drill) with its clocks, updating its
// description, mitigation and report timestamps, and the lists. The staff routes (routes.ts) and
// `guard breaches` (cli/commands/breaches.ts) both call these, so input refused on one is refused on
// the other with the same message. Every change is an entry on the organisation's audit chain and
// (for real breaches) `breach.recorded` goes through the webhook outbox, in the caller's transaction.
import { createHash } from "node:crypto";
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { affectedCounts } from "./store/affected.js";
import {
  BREACH_STATUSES,
  DUE_STATES,
  findBreach,
  insertBreach,
  listBreachesOfOrganization,
  updateBreach,
  type BreachDueState,
  type BreachRecord,
  type BreachStatus,
} from "./store/breaches.js";
import {
  BOARD_REPORT_WINDOW_MS,
  boardReportDueState,
  breachStatusOf,
  CERT_IN_REPORT_WINDOW_MS,
  DEFAULT_PRINCIPAL_NOTIFICATION_HOURS,
  HOUR_MS,
  MAX_PRINCIPAL_NOTIFICATION_HOURS,
  principalNotificationDueState,
} from "./status.js";

export const MAX_DESCRIPTION_LENGTH = 5000;
export const MAX_MITIGATION_LENGTH = 5000;
export const MAX_LABELS = 100;
const MAX_LABEL_LENGTH = 200;

/** Who changed a breach: a staff member, the organisation's service key, or the CLI's OS user. */
export interface BreachActor {
  kind: "staff" | "service" | "system";
  id: string;
}

// ----- input ------------------------------------------------------------------------------------

/** Free text of 1..max characters that is not only whitespace; stored as given. */
export function text(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim().length === 0)
    throw validationError(field, `${field} must be 1-${max} characters, not only whitespace`);
  if (value.length > max) throw validationError(field, `${field} must be at most ${max} characters`);
  return value;
}

/**
 * A list of purpose or data-category labels: 1-100 distinct strings of 1-200 characters, without
 * the separators the audit hash joins them with (`|`, and `,` for data types: the contract's
 * Purpose and DataType). Duplicates are dropped, order kept.
 */
function labels(value: unknown, field: string, forbidden: RegExp): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_LABELS)
    throw validationError(field, `${field} must be a list of 1-${MAX_LABELS} labels`);
  const out: string[] = [];
  value.forEach((item, i) => {
    if (typeof item !== "string" || item.trim().length === 0 || item.length > MAX_LABEL_LENGTH)
      throw validationError(`${field}[${i}]`, `${field}[${i}] must be 1-${MAX_LABEL_LENGTH} characters`);
    if (forbidden.test(item))
      throw validationError(`${field}[${i}]`, `${field}[${i}] may not contain ${forbidden.source}`);
    if (!out.includes(item)) out.push(item);
  });
  return out;
}

export const purposeLabels = (value: unknown, field: string) => labels(value, field, /[|]/);
const categoryLabels = (value: unknown, field: string) => labels(value, field, /[|,]/);

/** An epoch-ms instant that has happened: a safe positive integer, not after `now`. */
function pastInstant(value: unknown, field: string, now: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value <= 0)
    throw validationError(field, `${field} must be a positive integer (epoch milliseconds)`);
  if (value > now)
    throw validationError(
      field,
      `${field} (${new Date(value).toISOString()}) is in the future; record it once it has happened`,
    );
  return value;
}

function windowHours(value: unknown): number {
  if (value === undefined) return DEFAULT_PRINCIPAL_NOTIFICATION_HOURS;
  if (
    typeof value !== "number" ||
    !Number.isInteger(value) ||
    value < 1 ||
    value > MAX_PRINCIPAL_NOTIFICATION_HOURS
  )
    throw validationError(
      "principalNotificationWindowHours",
      `principalNotificationWindowHours must be a whole number of hours from 1 to ${MAX_PRINCIPAL_NOTIFICATION_HOURS}`,
    );
  return value;
}

/**
 * What the chain commits to of a breach's free text: a SHA-256 over its description, mitigation
 * and labels. The text itself stays off the immutable chain (it may name people); the digest lets
 * `guard audit verify` find text changed outside Guard.
 */
export function breachTextDigest(breach: {
  description: string;
  mitigation: string | null;
  affectedPurposes: readonly string[];
  affectedDataCategories: readonly string[];
}): string {
  return createHash("sha256")
    .update(
      canonicalJson({
        description: breach.description,
        mitigation: breach.mitigation,
        affectedPurposes: breach.affectedPurposes,
        affectedDataCategories: breach.affectedDataCategories,
      }),
    )
    .digest("hex");
}

// ----- the wire ---------------------------------------------------------------------------------

/** A breach as the staff routes show it: every field, its clocks' states and who it affected. */
export interface StaffBreachWire {
  breachId: string;
  description: string;
  discoveredAt: number;
  occurredAt: number | null;
  affectedPurposes: string[];
  affectedDataCategories: string[];
  mitigation: string | null;
  drill: boolean;
  status: BreachStatus;
  principalNotificationDueAt: number;
  boardReportDueAt: number;
  certInReportDueAt: number;
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  detailedReportSubmittedAt: number | null;
  certInReportSubmittedAt: number | null;
  principalNotificationDueState: BreachDueState;
  boardReportDueState: BreachDueState;
  affectedPrincipals: { total: number; notified: number; pending: number };
  recordedBy: string;
  createdAt: number;
  updatedAt: number;
}

export function staffBreachToWire(
  breach: BreachRecord,
  counts: { total: number; notified: number } | undefined,
  now: number,
): StaffBreachWire {
  const total = counts?.total ?? 0;
  const notified = counts?.notified ?? 0;
  return {
    breachId: breach.breachId,
    description: breach.description,
    discoveredAt: breach.discoveredAt,
    occurredAt: breach.occurredAt,
    affectedPurposes: breach.affectedPurposes,
    affectedDataCategories: breach.affectedDataCategories,
    mitigation: breach.mitigation,
    drill: breach.drill,
    status: breach.status,
    principalNotificationDueAt: breach.principalNotificationDueAt,
    boardReportDueAt: breach.boardDueAt,
    certInReportDueAt: breach.discoveredAt + CERT_IN_REPORT_WINDOW_MS,
    reportedToUserAt: breach.reportedToUserAt,
    reportedToBoardAt: breach.reportedToBoardAt,
    detailedReportSubmittedAt: breach.detailedReportSubmittedAt,
    certInReportSubmittedAt: breach.certInReportSubmittedAt,
    principalNotificationDueState: principalNotificationDueState(breach, now),
    boardReportDueState: boardReportDueState(breach, now),
    affectedPrincipals: { total, notified, pending: total - notified },
    recordedBy: breach.recordedBy,
    createdAt: breach.createdAt,
    updatedAt: breach.updatedAt,
  };
}

/** One breach for staff, with its affected-principal counts. */
export async function staffBreach(
  db: Queryable,
  breach: BreachRecord,
  now: number,
): Promise<StaffBreachWire> {
  const counts = await affectedCounts(db, breach.organizationId, [breach.breachId]);
  return staffBreachToWire(breach, counts.get(breach.breachId), now);
}

/** A breach as the partner route (`GET /api/v1/breaches`, the outline's shape) shows it. */
export interface PartnerBreachWire {
  breachId: string;
  description: string;
  discoveredAt: number;
  occurredAt?: number;
  reportedToUserAt?: number;
  reportedToBoardAt?: number;
  detailedReportSubmittedAt?: number;
  certInReportSubmittedAt?: number;
  mitigation?: string;
  status: BreachStatus;
  principalNotificationDueAt: number;
  boardReportDueAt: number;
}

export function partnerBreachToWire(breach: BreachRecord): PartnerBreachWire {
  // The outline's optional fields are absent, not null, until they happen.
  const optional = <K extends string, V>(key: K, value: V | null) =>
    (value === null ? {} : { [key]: value }) as Partial<Record<K, V>>;
  return {
    breachId: breach.breachId,
    description: breach.description,
    discoveredAt: breach.discoveredAt,
    ...optional("occurredAt", breach.occurredAt),
    ...optional("reportedToUserAt", breach.reportedToUserAt),
    ...optional("reportedToBoardAt", breach.reportedToBoardAt),
    ...optional("detailedReportSubmittedAt", breach.detailedReportSubmittedAt),
    ...optional("certInReportSubmittedAt", breach.certInReportSubmittedAt),
    ...optional("mitigation", breach.mitigation),
    status: breach.status,
    principalNotificationDueAt: breach.principalNotificationDueAt,
    boardReportDueAt: breach.boardDueAt,
  };
}

// ----- record -----------------------------------------------------------------------------------

export interface RecordBreachInput {
  organizationId: string;
  description: unknown;
  discoveredAt: unknown;
  occurredAt?: unknown;
  affectedPurposes?: unknown;
  affectedDataCategories?: unknown;
  mitigation?: unknown;
  drill?: unknown;
  principalNotificationWindowHours?: unknown;
  actor: BreachActor;
}

/**
 * Records a breach in `tx`: a new `brc_` id, its clocks from the discovery time, a
 * `breach.recorded` chain entry and, unless it is a drill, the `breach.recorded` event.
 */
export async function recordBreach(
  tx: Queryable,
  input: RecordBreachInput,
  now: number,
): Promise<BreachRecord> {
  const description = text(input.description, "description", MAX_DESCRIPTION_LENGTH);
  const discoveredAt = pastInstant(input.discoveredAt, "discoveredAt", now);
  let occurredAt: number | null = null;
  if (input.occurredAt !== undefined) {
    occurredAt = pastInstant(input.occurredAt, "occurredAt", now);
    if (occurredAt > discoveredAt)
      throw validationError("occurredAt", "occurredAt may not be after discoveredAt");
  }
  const affectedPurposes =
    input.affectedPurposes === undefined ? [] : purposeLabels(input.affectedPurposes, "affectedPurposes");
  const affectedDataCategories =
    input.affectedDataCategories === undefined
      ? []
      : categoryLabels(input.affectedDataCategories, "affectedDataCategories");
  const mitigation =
    input.mitigation === undefined ? null : text(input.mitigation, "mitigation", MAX_MITIGATION_LENGTH);
  if (input.drill !== undefined && typeof input.drill !== "boolean")
    throw validationError("drill", "drill must be true or false");
  const drill = input.drill === true;
  const hours = windowHours(input.principalNotificationWindowHours);

  const times = { reportedToUserAt: null, reportedToBoardAt: null, detailedReportSubmittedAt: null };
  const breach: BreachRecord = {
    organizationId: input.organizationId,
    breachId: newId("brc"),
    description,
    discoveredAt,
    occurredAt,
    affectedPurposes,
    affectedDataCategories,
    mitigation,
    drill,
    principalNotificationDueAt: discoveredAt + hours * HOUR_MS,
    boardDueAt: discoveredAt + BOARD_REPORT_WINDOW_MS,
    ...times,
    certInReportSubmittedAt: null,
    status: breachStatusOf(times),
    recordedBy: input.actor.id,
    createdAt: now,
    updatedAt: now,
  };
  await insertBreach(tx, breach);
  await appendAuditEntry(
    tx,
    {
      organizationId: breach.organizationId,
      entryType: "breach.recorded",
      subjectId: breach.breachId,
      payload: {
        breachId: breach.breachId,
        discoveredAt,
        occurredAt,
        drill,
        principalNotificationDueAt: breach.principalNotificationDueAt,
        boardDueAt: breach.boardDueAt,
        textDigest: breachTextDigest(breach),
        status: breach.status,
        actor: { kind: input.actor.kind, id: input.actor.id },
      },
    },
    now,
  );
  // A drill rehearses the DPO's process; a fiduciary's backend that pages people on this event
  // must not be woken by one.
  if (!drill) {
    await enqueueEvent(
      tx,
      {
        organizationId: breach.organizationId,
        eventType: "breach.recorded",
        payload: {
          breachId: breach.breachId,
          discoveredAt,
          occurredAt,
          status: breach.status,
          principalNotificationDueAt: breach.principalNotificationDueAt,
          boardReportDueAt: breach.boardDueAt,
        },
      },
      now,
    );
  }
  return breach;
}

// ----- update -----------------------------------------------------------------------------------

export interface UpdateBreachInput {
  organizationId: string;
  breachId: string;
  description?: unknown;
  mitigation?: unknown;
  affectedPurposes?: unknown;
  affectedDataCategories?: unknown;
  reportedToBoardAt?: unknown;
  detailedReportSubmittedAt?: unknown;
  certInReportSubmittedAt?: unknown;
  actor: BreachActor;
}

const REPORT_FIELDS = ["reportedToBoardAt", "detailedReportSubmittedAt", "certInReportSubmittedAt"] as const;

/** The organisation's breach, locked for the rest of `tx`; NOT_FOUND for another's or none. */
export async function lockBreach(
  tx: Queryable,
  organizationId: string,
  breachId: string,
): Promise<BreachRecord> {
  const breach = await findBreach(tx, organizationId, breachId, { forUpdate: true });
  if (!breach) throw notFound(`No breach ${breachId} in this organisation`);
  return breach;
}

/**
 * Changes a breach's text and records its Board and CERT-In reports, in `tx`, with a
 * `breach.updated` chain entry. A report time is an instant that has happened, not before the
 * discovery; once recorded it is kept (the same value again is a no-op, another is CONFLICT); the
 * detailed report needs the first intimation (given before, or in the same call) and is not before
 * it. Nothing changed: no entry, the breach as it was.
 */
export async function updateBreachRecord(
  tx: Queryable,
  input: UpdateBreachInput,
  now: number,
): Promise<BreachRecord> {
  const given = [
    "description",
    "mitigation",
    "affectedPurposes",
    "affectedDataCategories",
    ...REPORT_FIELDS,
  ].filter((field) => input[field as keyof UpdateBreachInput] !== undefined);
  if (given.length === 0)
    throw validationError(
      "body",
      "Give at least one of description, mitigation, affectedPurposes, affectedDataCategories, " +
        "reportedToBoardAt, detailedReportSubmittedAt, certInReportSubmittedAt",
    );
  const description =
    input.description === undefined
      ? undefined
      : text(input.description, "description", MAX_DESCRIPTION_LENGTH);
  const mitigation =
    input.mitigation === undefined ? undefined : text(input.mitigation, "mitigation", MAX_MITIGATION_LENGTH);
  const affectedPurposes =
    input.affectedPurposes === undefined
      ? undefined
      : purposeLabels(input.affectedPurposes, "affectedPurposes");
  const affectedDataCategories =
    input.affectedDataCategories === undefined
      ? undefined
      : categoryLabels(input.affectedDataCategories, "affectedDataCategories");
  const reports: Partial<Record<(typeof REPORT_FIELDS)[number], number>> = {};
  for (const field of REPORT_FIELDS) {
    if (input[field] === null)
      throw validationError(field, `${field} cannot be unset once recorded; omit it to leave it as it is`);
    if (input[field] !== undefined) reports[field] = pastInstant(input[field], field, now);
  }

  const breach = await lockBreach(tx, input.organizationId, input.breachId);
  for (const field of REPORT_FIELDS) {
    const value = reports[field];
    if (value === undefined) continue;
    if (value < breach.discoveredAt)
      throw validationError(
        field,
        `${field} (${new Date(value).toISOString()}) is before the breach was discovered (${new Date(breach.discoveredAt).toISOString()})`,
      );
    const stored = breach[field];
    if (stored !== null && stored !== value)
      throw new Failure(
        "CONFLICT",
        `${field} is already recorded as ${new Date(stored).toISOString()}; a recorded report time is not changed`,
        { field },
      );
  }
  const reportedToBoardAt = reports.reportedToBoardAt ?? breach.reportedToBoardAt;
  const detailedReportSubmittedAt = reports.detailedReportSubmittedAt ?? breach.detailedReportSubmittedAt;
  if (detailedReportSubmittedAt !== null) {
    if (reportedToBoardAt === null)
      throw validationError(
        "detailedReportSubmittedAt",
        "detailedReportSubmittedAt needs the Board's first intimation: give reportedToBoardAt too",
      );
    if (detailedReportSubmittedAt < reportedToBoardAt)
      throw validationError(
        "detailedReportSubmittedAt",
        "detailedReportSubmittedAt may not be before reportedToBoardAt (the first intimation)",
      );
  }

  const next = {
    description: description ?? breach.description,
    mitigation: mitigation ?? breach.mitigation,
    affectedPurposes: affectedPurposes ?? breach.affectedPurposes,
    affectedDataCategories: affectedDataCategories ?? breach.affectedDataCategories,
    reportedToUserAt: breach.reportedToUserAt,
    reportedToBoardAt,
    detailedReportSubmittedAt,
    certInReportSubmittedAt: reports.certInReportSubmittedAt ?? breach.certInReportSubmittedAt,
  };
  const unchanged =
    canonicalJson({ ...next, reportedToUserAt: null }) ===
    canonicalJson({
      description: breach.description,
      mitigation: breach.mitigation,
      affectedPurposes: breach.affectedPurposes,
      affectedDataCategories: breach.affectedDataCategories,
      reportedToUserAt: null,
      reportedToBoardAt: breach.reportedToBoardAt,
      detailedReportSubmittedAt: breach.detailedReportSubmittedAt,
      certInReportSubmittedAt: breach.certInReportSubmittedAt,
    });
  if (unchanged) return breach;

  const updated = await updateBreach(tx, breach.organizationId, breach.breachId, {
    ...next,
    status: breachStatusOf(next),
    updatedAt: now,
  });
  await appendAuditEntry(
    tx,
    {
      organizationId: updated.organizationId,
      entryType: "breach.updated",
      subjectId: updated.breachId,
      payload: {
        breachId: updated.breachId,
        reportedToBoardAt: updated.reportedToBoardAt,
        detailedReportSubmittedAt: updated.detailedReportSubmittedAt,
        certInReportSubmittedAt: updated.certInReportSubmittedAt,
        textDigest: breachTextDigest(updated),
        status: updated.status,
        actor: { kind: input.actor.kind, id: input.actor.id },
      },
    },
    now,
  );
  return updated;
}

// ----- lists ------------------------------------------------------------------------------------

function oneOf<T extends string>(values: readonly T[], value: unknown, field: string): T | undefined {
  if (value === undefined) return undefined;
  const known = values.find((v) => v === value);
  if (known === undefined) throw validationError(field, `${field} must be one of ${values.join(", ")}`);
  return known;
}

export interface BreachListQuery extends PageRequest {
  status?: unknown;
  dueState?: unknown;
  drill?: unknown;
}

/**
 * One page of the organisation's breaches, newest discovery first: `status`, `dueState` (either
 * clock in that state at `now`) and `drill` filter; the partner route passes `drill: false`.
 */
export async function pageBreaches(
  db: Queryable,
  organizationId: string,
  query: BreachListQuery,
  now: number,
  list = "listStaffBreaches",
): Promise<Page<BreachRecord>> {
  const status = oneOf(BREACH_STATUSES, query.status, "status");
  const dueState = oneOf(DUE_STATES, query.dueState, "dueState");
  if (query.drill !== undefined && typeof query.drill !== "boolean")
    throw validationError("drill", "drill must be true or false");
  const drill = query.drill as boolean | undefined;
  return keysetPage(
    query,
    {
      // The filters are part of the scope: a cursor of one filtered list does not page another. A
      // dueState list moves with time; its cursor is still a position, so a walk neither repeats
      // nor skips a breach that stays in the state.
      scope: pageScope(list, organizationId, status ?? "", dueState ?? "", String(drill ?? "")),
      shape: ["number", "string"],
      keyOf: (b: BreachRecord): [number, string] => [b.discoveredAt, b.breachId],
    },
    (after, limit) =>
      listBreachesOfOrganization(db, organizationId, { status, dueState, drill, now, after, limit }),
  );
}

/** The page as staff see it (affected-principal counts read for the page in one statement). */
export async function staffBreachPage(
  db: Queryable,
  organizationId: string,
  page: Page<BreachRecord>,
  now: number,
): Promise<StaffBreachWire[]> {
  const counts = await affectedCounts(
    db,
    organizationId,
    page.items.map((b) => b.breachId),
  );
  return page.items.map((b) => staffBreachToWire(b, counts.get(b.breachId), now));
}

/** The organisation's breach, for reading; NOT_FOUND for another's or none. */
export async function getBreach(
  db: Queryable,
  organizationId: string,
  breachId: string,
): Promise<BreachRecord> {
  const breach = await findBreach(db, organizationId, breachId);
  if (!breach) throw notFound(`No breach ${breachId} in this organisation`);
  return breach;
}
