// The rules of the records of processing activities (RoPA): what an activity must say, how an
// update merges into it, archiving, and the chain entries that make every change verifiable. The
// HTTP routes (routes.ts) and `guard ropa` (cli/commands/ropa.ts) both call these, so an input
// refused on one is refused on the other with the same message and field.
import { createHash } from "node:crypto";
import { appendAuditEntry } from "../audit/chain.js";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { HOME_COUNTRY, isCountryCode } from "./countries.js";
import {
  findProcessingActivity,
  insertProcessingActivity,
  LEGAL_BASES,
  listProcessingActivities,
  RECIPIENT_ROLES,
  setProcessingActivityArchived,
  updateProcessingActivity,
  type ActivityContent,
  type LegalBasis,
  type ProcessingActivity,
  type Recipient,
  type RecipientRole,
} from "./store.js";

export const MAX_NAME_LENGTH = 200;
export const MAX_PURPOSE_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 2000;
export const MAX_STORAGE_LOCATION_LENGTH = 200;
export const MAX_CATEGORY_LENGTH = 200;
export const MAX_CATEGORIES = 100;
export const MAX_RECIPIENTS = 100;
export const MAX_DESTINATIONS = 249;

/** The fields a staff member writes, in the order messages and audit entries list them. */
export const CONTENT_FIELDS = [
  "name",
  "purpose",
  "description",
  "dataCategories",
  "legalBasis",
  "recipients",
  "storageLocation",
  "crossesBorder",
  "destinationCountries",
] as const satisfies readonly (keyof ActivityContent)[];
export type ContentField = (typeof CONTENT_FIELDS)[number];

export const ENTRY_CREATED = "ropa.activity_created";
export const ENTRY_UPDATED = "ropa.activity_updated";
export const ENTRY_ARCHIVED = "ropa.activity_archived";
export const ENTRY_RESTORED = "ropa.activity_restored";
export const ACTIVITY_ENTRY_TYPES = [ENTRY_CREATED, ENTRY_UPDATED, ENTRY_ARCHIVED, ENTRY_RESTORED] as const;

/** Who changed an activity: a staff member, the organisation's service key, or the CLI's OS user. */
export interface ActivityActor {
  kind: "staff" | "service" | "system";
  id: string;
}

// ----- validation ---------------------------------------------------------------------------------

/** Free text of 1..max characters that is not only whitespace; stored as given. */
function text(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim().length === 0)
    throw validationError(field, `${field} must be 1-${max} characters, not only whitespace`);
  if (value.length > max) throw validationError(field, `${field} must be at most ${max} characters`);
  return value;
}

function purposeOf(value: unknown): string {
  const purpose = text(value, "purpose", MAX_PURPOSE_LENGTH);
  // The consent purpose label's rule (contract `Purpose`), so an activity can name a consent purpose.
  if (purpose.includes("|")) throw validationError("purpose", "purpose may not contain |");
  return purpose;
}

function descriptionOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return text(value, "description", MAX_DESCRIPTION_LENGTH);
}

function dataCategoriesOf(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_CATEGORIES)
    throw validationError(
      "dataCategories",
      `dataCategories must be a list of 1-${MAX_CATEGORIES} categories`,
    );
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const field = `dataCategories[${i}]`;
    const category = text(item, field, MAX_CATEGORY_LENGTH);
    // The consent data type's rule (contract `DataType`): a category can name a consented data type.
    if (/[|,]/.test(category)) throw validationError(field, `${field} may not contain | or ,`);
    if (seen.has(category)) throw validationError(field, `${field} repeats "${category}"`);
    seen.add(category);
    return category;
  });
}

function legalBasisOf(value: unknown): LegalBasis {
  const basis = LEGAL_BASES.find((known) => known === value);
  if (!basis) throw validationError("legalBasis", `legalBasis must be one of ${LEGAL_BASES.join(", ")}`);
  return basis;
}

function countryOf(value: unknown, field: string): string {
  if (!isCountryCode(value))
    throw validationError(
      field,
      `${field} must be an assigned ISO 3166-1 alpha-2 country code in capitals (such as US, SG, DE), not ${JSON.stringify(value)}`,
    );
  return value;
}

function recipientsOf(value: unknown): Recipient[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_RECIPIENTS)
    throw validationError("recipients", `recipients must be a list of at most ${MAX_RECIPIENTS} recipients`);
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const field = `recipients[${i}]`;
    if (typeof item !== "object" || item === null || Array.isArray(item))
      throw validationError(field, `${field} must be an object with name, role and optionally country`);
    const given = item as Record<string, unknown>;
    const name = text(given.name, `${field}.name`, MAX_NAME_LENGTH);
    const role = RECIPIENT_ROLES.find((known) => known === given.role);
    if (!role)
      throw validationError(`${field}.role`, `${field}.role must be one of ${RECIPIENT_ROLES.join(", ")}`);
    const key = `${role}\n${name}`;
    if (seen.has(key)) throw validationError(field, `${field} repeats the ${role} "${name}"`);
    seen.add(key);
    const recipient: Recipient = { name, role: role satisfies RecipientRole };
    if (given.country !== undefined && given.country !== null)
      recipient.country = countryOf(given.country, `${field}.country`);
    return recipient;
  });
}

function destinationsOf(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_DESTINATIONS)
    throw validationError(
      "destinationCountries",
      `destinationCountries must be a list of at most ${MAX_DESTINATIONS} country codes`,
    );
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const field = `destinationCountries[${i}]`;
    const country = countryOf(item, field);
    if (country === HOME_COUNTRY)
      throw validationError(field, `${field} is ${HOME_COUNTRY}: list only the countries outside India`);
    if (seen.has(country)) throw validationError(field, `${field} repeats ${country}`);
    seen.add(country);
    return country;
  });
}

/**
 * The rules that tie fields together, on the activity as a whole (a create, or an update after
 * merging): destinations exactly when the data crosses the border, and every recipient abroad is
 * among them (handing data to a processor in another country is itself a transfer, s.16).
 */
function checkWhole(content: ActivityContent): ActivityContent {
  if (content.crossesBorder && content.destinationCountries.length === 0)
    throw validationError(
      "destinationCountries",
      "destinationCountries must list at least one country when crossesBorder is true",
    );
  if (!content.crossesBorder && content.destinationCountries.length > 0)
    throw validationError(
      "destinationCountries",
      "destinationCountries must be empty when crossesBorder is false",
    );
  content.recipients.forEach((recipient, i) => {
    const country = recipient.country;
    if (country === undefined || country === HOME_COUNTRY) return;
    if (!content.destinationCountries.includes(country))
      throw validationError(
        `recipients[${i}].country`,
        `recipients[${i}].country is ${country}, outside India: set crossesBorder and list ${country} in destinationCountries`,
      );
  });
  return content;
}

function crossesBorderOf(value: unknown): boolean {
  if (typeof value !== "boolean")
    throw validationError("crossesBorder", "crossesBorder must be true or false");
  return value;
}

const PARSERS: { [F in ContentField]: (value: unknown) => ActivityContent[F] } = {
  name: (value) => text(value, "name", MAX_NAME_LENGTH),
  purpose: purposeOf,
  description: descriptionOf,
  dataCategories: dataCategoriesOf,
  legalBasis: legalBasisOf,
  recipients: recipientsOf,
  storageLocation: (value) => text(value, "storageLocation", MAX_STORAGE_LOCATION_LENGTH),
  crossesBorder: crossesBorderOf,
  destinationCountries: destinationsOf,
};

/** A new activity's content from a request body or the CLI. Fields not listed here are ignored. */
export function parseActivityContent(input: Record<string, unknown>): ActivityContent {
  return checkWhole({
    name: PARSERS.name(input.name),
    purpose: PARSERS.purpose(input.purpose),
    description: PARSERS.description(input.description),
    dataCategories: PARSERS.dataCategories(input.dataCategories),
    legalBasis: PARSERS.legalBasis(input.legalBasis),
    recipients: PARSERS.recipients(input.recipients),
    storageLocation: PARSERS.storageLocation(input.storageLocation),
    crossesBorder: PARSERS.crossesBorder(input.crossesBorder),
    destinationCountries: PARSERS.destinationCountries(input.destinationCountries),
  });
}

/** Fields an update may clear with null (the optional ones). */
const CLEARABLE: ReadonlySet<ContentField> = new Set(["description", "recipients", "destinationCountries"]);

/**
 * An update merged into the current content, then checked as a whole. Only the fields present
 * change; null clears an optional field. Turning crossesBorder off without naming
 * destinationCountries clears them (they would otherwise contradict it). VALIDATION_ERROR on `body`
 * when the update names no field at all.
 */
export function mergeActivityUpdate(
  current: ActivityContent,
  patch: Record<string, unknown>,
): ActivityContent {
  const given = CONTENT_FIELDS.filter((field) => patch[field] !== undefined);
  if (given.length === 0)
    throw validationError("body", `An update must set at least one of ${CONTENT_FIELDS.join(", ")}`);
  const merged: ActivityContent = { ...current };
  for (const field of given) {
    const value = patch[field];
    if (value === null && !CLEARABLE.has(field)) throw validationError(field, `${field} cannot be cleared`);
    (merged as unknown as Record<string, unknown>)[field] = PARSERS[field](value);
  }
  if (patch.crossesBorder === false && patch.destinationCountries === undefined)
    merged.destinationCountries = [];
  return checkWhole(merged);
}

/** The fields whose value differs between two versions, in CONTENT_FIELDS order. */
export const changedFields = (before: ActivityContent, after: ActivityContent): ContentField[] =>
  CONTENT_FIELDS.filter((field) => canonicalJson(before[field]) !== canonicalJson(after[field]));

// ----- audit --------------------------------------------------------------------------------------

/**
 * What an entry commits to for each field: SHA-256 of the value's canonical JSON. The chain keeps
 * digests rather than the text (descriptions, recipient names) and still pins every column down:
 * `guard audit verify` recomputes them from the row and names the column that differs.
 */
export function contentDigests(content: ActivityContent): Record<ContentField, string> {
  const out = {} as Record<ContentField, string>;
  for (const field of CONTENT_FIELDS)
    out[field] = createHash("sha256").update(canonicalJson(content[field])).digest("hex");
  return out;
}

async function record(
  tx: Queryable,
  entryType: (typeof ACTIVITY_ENTRY_TYPES)[number],
  activity: ProcessingActivity,
  fields: readonly string[],
  actor: ActivityActor,
): Promise<void> {
  await appendAuditEntry(
    tx,
    {
      organizationId: activity.organizationId,
      entryType,
      subjectId: activity.activityId,
      payload: {
        activityId: activity.activityId,
        fields: [...fields],
        digests: contentDigests(activity),
        // The whole state, so the latest entry alone verifies the row: older entries of a long-lived
        // activity can be purged (audit/purge.ts) without leaving the row unverifiable.
        createdAt: activity.createdAt,
        archivedAt: activity.archivedAt,
        actor: { kind: actor.kind, id: actor.id },
      },
    },
    // The entry's time is the row's updated_at: verify compares them.
    activity.updatedAt,
  );
}

// ----- changes ------------------------------------------------------------------------------------

export interface CreateInput {
  organizationId: string;
  body: Record<string, unknown>;
  actor: ActivityActor;
}

/** Records a new activity in `tx`, with a `ropa.activity_created` chain entry naming its fields. */
export async function createActivity(
  tx: Queryable,
  input: CreateInput,
  now: number,
): Promise<ProcessingActivity> {
  const content = parseActivityContent(input.body);
  const activity = await insertProcessingActivity(tx, {
    organizationId: input.organizationId,
    activityId: newId("act"),
    content,
    now,
  });
  const set = CONTENT_FIELDS.filter((field) => {
    const value = content[field];
    return value !== null && !(Array.isArray(value) && value.length === 0);
  });
  await record(tx, ENTRY_CREATED, activity, set, input.actor);
  return activity;
}

const missing = (activityId: string) => notFound(`No processing activity ${activityId} in this organisation`);

export interface UpdateInput {
  organizationId: string;
  activityId: string;
  patch: Record<string, unknown>;
  actor: ActivityActor;
}

/**
 * Applies a partial update in `tx` (the row locked meanwhile). An update that changes nothing
 * answers the activity unchanged, with no chain entry; an archived activity is CONFLICT (restore it
 * first: an archived record stays as it was when it stopped).
 */
export async function updateActivity(
  tx: Queryable,
  input: UpdateInput,
  now: number,
): Promise<ProcessingActivity> {
  const current = await findProcessingActivity(tx, input.organizationId, input.activityId, {
    forUpdate: true,
  });
  if (!current) throw missing(input.activityId);
  const merged = mergeActivityUpdate(current, input.patch);
  if (current.archivedAt !== null)
    throw new Failure(
      "CONFLICT",
      `Processing activity ${input.activityId} is archived; restore it before changing it`,
    );
  const changed = changedFields(current, merged);
  if (changed.length === 0) return current;
  // Never before the last change, so updated_at stays the time of the latest chain entry.
  const at = Math.max(now, current.updatedAt);
  const updated = await updateProcessingActivity(tx, input, merged, at);
  if (!updated) throw missing(input.activityId);
  await record(tx, ENTRY_UPDATED, updated, changed, input.actor);
  return updated;
}

export interface ArchiveInput {
  organizationId: string;
  activityId: string;
  actor: ActivityActor;
}

/**
 * Archives (`archived` true) or restores an activity in `tx`. Already in that state: the activity
 * unchanged, no chain entry (a retried call is not an error). NOT_FOUND for another organisation's.
 */
export async function setActivityArchived(
  tx: Queryable,
  input: ArchiveInput & { archived: boolean },
  now: number,
): Promise<ProcessingActivity> {
  const current = await findProcessingActivity(tx, input.organizationId, input.activityId, {
    forUpdate: true,
  });
  if (!current) throw missing(input.activityId);
  if ((current.archivedAt !== null) === input.archived) return current;
  const at = Math.max(now, current.updatedAt);
  const changed = await setProcessingActivityArchived(tx, input, input.archived ? at : null, at);
  if (!changed) throw missing(input.activityId);
  await record(tx, input.archived ? ENTRY_ARCHIVED : ENTRY_RESTORED, changed, ["archivedAt"], input.actor);
  return changed;
}

/** The activity; NOT_FOUND when the organisation has none with that id. */
export async function getActivity(
  db: Queryable,
  organizationId: string,
  activityId: string,
): Promise<ProcessingActivity> {
  const activity = await findProcessingActivity(db, organizationId, activityId);
  if (!activity) throw missing(activityId);
  return activity;
}

// ----- lists --------------------------------------------------------------------------------------

const KEY_OF = (a: ProcessingActivity): [number, string] => [a.createdAt, a.activityId];

/** One page of the organisation's activities, newest first; active ones unless `archived`. */
export async function pageActivities(
  db: Queryable,
  organizationId: string,
  query: PageRequest & { archived?: boolean | undefined; crossesBorder?: boolean | undefined },
): Promise<Page<ProcessingActivity>> {
  const archived = query.archived ?? false;
  const crossesBorder = query.crossesBorder;
  return keysetPage(
    query,
    {
      // The filters are part of the scope: a cursor of the archived list does not page the active one.
      scope: pageScope("listProcessingActivities", organizationId, String(archived), String(crossesBorder)),
      shape: ["number", "string"],
      keyOf: KEY_OF,
    },
    (after, limit) => listProcessingActivities(db, organizationId, { archived, crossesBorder, after, limit }),
  );
}

/** One page of the active activities that cross the border (the partner route), newest first. */
export async function pageCrossBorderTransfers(
  db: Queryable,
  organizationId: string,
  query: PageRequest,
): Promise<Page<ProcessingActivity>> {
  return keysetPage(
    query,
    {
      scope: pageScope("listCrossBorderTransfers", organizationId),
      shape: ["number", "string"],
      keyOf: KEY_OF,
    },
    (after, limit) =>
      listProcessingActivities(db, organizationId, { archived: false, crossesBorder: true, after, limit }),
  );
}

// ----- wire ---------------------------------------------------------------------------------------

export interface RecipientWire {
  name: string;
  role: RecipientRole;
  country?: string;
}

const recipientToWire = (r: Recipient): RecipientWire =>
  r.country === undefined
    ? { name: r.name, role: r.role }
    : { name: r.name, role: r.role, country: r.country };

/** An activity as the contract's `ProcessingActivity` carries it. */
export const activityToWire = (a: ProcessingActivity) => ({
  activityId: a.activityId,
  name: a.name,
  purpose: a.purpose,
  description: a.description,
  dataCategories: a.dataCategories,
  legalBasis: a.legalBasis,
  recipients: a.recipients.map(recipientToWire),
  storageLocation: a.storageLocation,
  crossesBorder: a.crossesBorder,
  destinationCountries: a.destinationCountries,
  createdAt: a.createdAt,
  updatedAt: a.updatedAt,
  archivedAt: a.archivedAt,
});

/** An active cross-border activity as the contract's `CrossBorderTransfer` carries it. */
export const transferToWire = (a: ProcessingActivity) => ({
  activityId: a.activityId,
  activityName: a.name,
  purpose: a.purpose,
  dataCategories: a.dataCategories,
  legalBasis: a.legalBasis,
  createdAt: a.createdAt,
  destinationCountries: a.destinationCountries,
  recipients: a.recipients.map(recipientToWire),
  storageLocation: a.storageLocation,
});
