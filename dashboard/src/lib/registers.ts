// The compliance registers' form logic (issue 27): what staff type, as the contract takes it. Pure,
// so the Node tests run it: list parsing, datetime-local inputs, and the partial updates that send
// only what changed (an update is an audit-chain entry naming the fields it changed, so sending
// unchanged fields would record changes that never happened).
import type { components, operations } from "../api/schema.js";

type Schemas = components["schemas"];
export type LegalBasis = Schemas["ProcessingActivity"]["legalBasis"];
export type RecipientRole = Schemas["ProcessingActivityRecipient"]["role"];

/** The five legal bases of the contract, with the words staff read (DPDP Act s.4, s.7). */
export const LEGAL_BASES: readonly (readonly [LegalBasis, string])[] = [
  ["consent", "Consent (s.6)"],
  ["deemed_consent", "Legitimate use / deemed consent (s.7)"],
  ["legal_obligation", "Legal obligation (s.7(c)-(e))"],
  ["vital_interest", "Vital interest: medical emergency, disaster (s.7(f)-(h))"],
  ["public_task", "Function of the State (s.7(b))"],
];

export const RECIPIENT_ROLES: readonly (readonly [RecipientRole, string])[] = [
  ["processor", "Processor"],
  ["recipient", "Recipient"],
  ["joint_fiduciary", "Joint fiduciary"],
];

export const legalBasisLabel = (basis: LegalBasis): string =>
  LEGAL_BASES.find(([value]) => value === basis)?.[1] ?? basis;

/** Items one per line (labels that may contain commas, such as consent purposes). */
export function splitLines(text: string): string[] {
  return unique(text.split(/\r?\n/));
}

/** Items separated by commas or lines (data categories, which may not contain a comma). */
export function splitList(text: string): string[] {
  return unique(text.split(/[,\r\n]/));
}

/** Country codes separated by commas or blanks, in capitals (the contract's CountryCode). */
export function parseCountries(text: string): string[] {
  return unique(text.split(/[\s,;]+/).map((code) => code.toUpperCase()));
}

function unique(items: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const raw of items) {
    const item = raw.trim();
    if (item === "" || seen.has(item)) continue;
    seen.add(item);
    out.push(item);
  }
  return out;
}

/** An epoch-ms instant as a `datetime-local` value (the browser's time zone, to the minute). */
export function toLocalInput(epochMs: number): string {
  const d = new Date(epochMs);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A `datetime-local` value as epoch ms; undefined when empty or unreadable. */
export function fromLocalInput(value: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

// ----- Records of processing activities --------------------------------------------------------

export interface RecipientRow {
  name: string;
  role: RecipientRole;
  country: string;
}

export interface ActivityForm {
  name: string;
  purpose: string;
  description: string;
  dataCategories: string;
  legalBasis: LegalBasis;
  storageLocation: string;
  crossesBorder: boolean;
  destinationCountries: string;
  recipients: RecipientRow[];
}

export const EMPTY_ACTIVITY_FORM: ActivityForm = {
  name: "",
  purpose: "",
  description: "",
  dataCategories: "",
  legalBasis: "consent",
  storageLocation: "",
  crossesBorder: false,
  destinationCountries: "",
  recipients: [],
};

export function activityFormOf(activity: Schemas["ProcessingActivity"]): ActivityForm {
  return {
    name: activity.name,
    purpose: activity.purpose,
    description: activity.description ?? "",
    dataCategories: activity.dataCategories.join(", "),
    legalBasis: activity.legalBasis,
    storageLocation: activity.storageLocation,
    crossesBorder: activity.crossesBorder,
    destinationCountries: activity.destinationCountries.join(", "),
    recipients: activity.recipients.map((r) => ({ name: r.name, role: r.role, country: r.country ?? "" })),
  };
}

/** The rows staff filled in (blank rows dropped; a blank country omitted, not sent as ""). */
export function recipientsOf(rows: readonly RecipientRow[]): Schemas["ProcessingActivityRecipient"][] {
  return rows
    .filter((row) => row.name.trim() !== "" || row.country.trim() !== "")
    .map((row) => {
      const country = row.country.trim().toUpperCase();
      return { name: row.name.trim(), role: row.role, ...(country ? { country } : {}) };
    });
}

/**
 * The create body. Destinations are sent only when the data crosses the border (the contract
 * refuses them otherwise), so unticking "crosses the border" does not leave stale countries behind.
 * Text is sent trimmed but not otherwise judged: the server says what is wrong, at the field.
 */
export function activityCreateBody(form: ActivityForm): Schemas["CreateProcessingActivityRequest"] {
  const recipients = recipientsOf(form.recipients);
  const description = form.description.trim();
  return {
    name: form.name.trim(),
    purpose: form.purpose.trim(),
    ...(description ? { description } : {}),
    dataCategories: splitList(form.dataCategories),
    legalBasis: form.legalBasis,
    ...(recipients.length > 0 ? { recipients } : {}),
    storageLocation: form.storageLocation.trim(),
    crossesBorder: form.crossesBorder,
    ...(form.crossesBorder ? { destinationCountries: parseCountries(form.destinationCountries) } : {}),
  };
}

const sameList = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && a.every((item, i) => JSON.stringify(item) === JSON.stringify(b[i]));

/** The partial update from `original` to `form`: only the fields that changed; null when none did. */
export function activityPatch(
  original: Schemas["ProcessingActivity"],
  form: ActivityForm,
): Schemas["UpdateProcessingActivityRequest"] | null {
  const next = activityCreateBody(form);
  const patch: Schemas["UpdateProcessingActivityRequest"] = {};
  if (next.name !== original.name) patch.name = next.name;
  if (next.purpose !== original.purpose) patch.purpose = next.purpose;
  const description = next.description ?? null;
  if (description !== original.description) patch.description = description;
  if (!sameList(next.dataCategories, original.dataCategories)) patch.dataCategories = next.dataCategories;
  if (next.legalBasis !== original.legalBasis) patch.legalBasis = next.legalBasis;
  const recipients = next.recipients ?? [];
  if (!sameList(recipients, original.recipients))
    patch.recipients = recipients.length > 0 ? recipients : null;
  if (next.storageLocation !== original.storageLocation) patch.storageLocation = next.storageLocation;
  if (next.crossesBorder !== original.crossesBorder) patch.crossesBorder = next.crossesBorder;
  const destinations = next.destinationCountries ?? [];
  if (!sameList(destinations, original.destinationCountries))
    patch.destinationCountries = destinations.length > 0 ? destinations : null;
  return Object.keys(patch).length > 0 ? patch : null;
}

// ----- Breaches --------------------------------------------------------------------------------

export const BREACH_STATUS_LABELS: Record<Schemas["StaffBreach"]["status"], string> = {
  reported_user_pending: "Principals to be told",
  reported_user_done: "Principals told; Board not yet",
  reported_board_pending: "Board intimated; detailed report due",
  reported_board_done: "Detailed report submitted",
};

export interface BreachReportsForm {
  description: string;
  mitigation: string;
  reportedToBoardAt: string;
  detailedReportSubmittedAt: string;
  certInReportSubmittedAt: string;
}

export function breachReportsFormOf(breach: Schemas["StaffBreach"]): BreachReportsForm {
  const input = (ms: number | null) => (ms === null ? "" : toLocalInput(ms));
  return {
    description: breach.description,
    mitigation: breach.mitigation ?? "",
    reportedToBoardAt: input(breach.reportedToBoardAt),
    detailedReportSubmittedAt: input(breach.detailedReportSubmittedAt),
    certInReportSubmittedAt: input(breach.certInReportSubmittedAt),
  };
}

const REPORT_TIMES = ["reportedToBoardAt", "detailedReportSubmittedAt", "certInReportSubmittedAt"] as const;

/**
 * The breach update: changed text, and report times not yet recorded. A recorded report time is
 * kept by the server (another value is 409), and the input shows it only to the minute, so it is
 * never sent back. Null when nothing changed.
 */
export function breachPatch(
  breach: Schemas["StaffBreach"],
  form: BreachReportsForm,
): Schemas["UpdateBreachRequest"] | null {
  const patch: Schemas["UpdateBreachRequest"] = {};
  const description = form.description.trim();
  if (description !== breach.description) patch.description = description;
  const mitigation = form.mitigation.trim();
  if (mitigation !== (breach.mitigation ?? "") && !(mitigation === "" && breach.mitigation === null))
    patch.mitigation = mitigation;
  for (const field of REPORT_TIMES) {
    if (breach[field] !== null) continue;
    const at = fromLocalInput(form[field]);
    if (at !== undefined) patch[field] = at;
  }
  return Object.keys(patch).length > 0 ? patch : null;
}

// ----- Retention -------------------------------------------------------------------------------

export const ANCHOR_EVENT_LABELS: Record<Schemas["RetentionAnchorEvent"], string> = {
  consent_withdrawn: "Consent withdrawn",
  last_interaction: "Last interaction",
  account_closed: "Account closed",
  purpose_served: "Purpose served",
};

export const ERASURE_STATUS_LABELS: Record<Schemas["ScheduledErasureStatus"], string> = {
  scheduled: "Scheduled",
  held: "Held (legal hold)",
  due: "Due for erasure",
  cancelled: "Cancelled",
  executed: "Erased",
};

/** "3 years", "1 year 10 days", "45 days": a policy's window as staff think of it. */
export function formatDays(days: number): string {
  const years = Math.floor(days / 365);
  const rest = days % 365;
  const y = years === 1 ? "1 year" : `${years} years`;
  const d = rest === 1 ? "1 day" : `${rest} days`;
  if (years === 0) return d;
  return rest === 0 ? y : `${y} ${d}`;
}

/** A retention policy's changeable terms as its edit form holds them (inputs' strings). */
export interface PolicyTermsForm {
  name: string;
  durationDays: string;
  noticeHours: string;
  /** datetime-local; empty for no floor. */
  windowFloorAt: string;
}

/** The body of `PATCH /api/v1/staff/retention/policies/{policyId}`, as the contract types it. */
export type PolicyTermsPatch =
  operations["updateRetentionPolicy"]["requestBody"]["content"]["application/json"];

export function policyTermsFormOf(policy: Schemas["RetentionPolicy"]): PolicyTermsForm {
  return {
    name: policy.name,
    durationDays: String(policy.durationDays),
    noticeHours: String(policy.noticeHours),
    windowFloorAt: policy.windowFloorAt === null ? "" : toLocalInput(policy.windowFloorAt),
  };
}

/**
 * The policy update: only the inputs the user changed from the form as loaded (so a floor shown to
 * the minute is never sent back rounded), numbers as typed (the API names a bad one), an emptied
 * floor as null. Null when nothing changed. A changed `durationDays` or `windowFloorAt` moves every
 * window: the server cancels the policy's open erasures and schedules them anew.
 */
export function policyTermsPatch(loaded: PolicyTermsForm, form: PolicyTermsForm): PolicyTermsPatch | null {
  const patch: PolicyTermsPatch = {};
  if (form.name.trim() !== loaded.name) patch.name = form.name.trim();
  if (form.durationDays.trim() !== loaded.durationDays) patch.durationDays = Number(form.durationDays);
  if (form.noticeHours.trim() !== loaded.noticeHours) patch.noticeHours = Number(form.noticeHours);
  if (form.windowFloorAt !== loaded.windowFloorAt)
    patch.windowFloorAt = form.windowFloorAt === "" ? null : (fromLocalInput(form.windowFloorAt) ?? null);
  return Object.keys(patch).length > 0 ? patch : null;
}

/** Whether an update moves the policy's windows (its open erasures are then cancelled). */
export const movesWindows = (patch: PolicyTermsPatch): boolean =>
  patch.durationDays !== undefined || patch.windowFloorAt !== undefined;

// ----- Guard's own logs (DPDP Rules 2025 r.8(3)) ------------------------------------------------

/** The log classes of the contract's `LogRetentionPolicy` (every member but the statutory floor). */
export type LogClass = Exclude<keyof Schemas["LogRetentionPolicy"], "minimumRetainDays">;

/** The classes in the order the page lists them, with what staff call them. */
export const LOG_CLASS_LABELS: Record<LogClass, string> = {
  auditEntries: "Audit trail entries",
  consentEvents: "Consent events",
  gateDecisions: "Consent Gate decisions",
  webhookDeliveries: "Webhook deliveries",
};
export const LOG_CLASSES = Object.keys(LOG_CLASS_LABELS) as LogClass[];

/** Each class's period as its input holds it: whole days, or empty for "kept forever". */
export type LogRetentionForm = Record<LogClass, string>;

export function logRetentionFormOf(policy: Schemas["LogRetentionPolicy"]): LogRetentionForm {
  const days = (logClass: LogClass) => policy[logClass].retainDays;
  return Object.fromEntries(
    LOG_CLASSES.map((logClass) => [logClass, days(logClass) === null ? "" : String(days(logClass))]),
  ) as LogRetentionForm;
}

/**
 * The policy update: the classes whose input changed from the form as loaded, a number as typed
 * (the API names a period under a year), an emptied input as null (kept forever). Null when nothing
 * changed: the API refuses an empty update, and a class set again would record a change nobody made.
 */
export function logRetentionPatch(
  loaded: LogRetentionForm,
  form: LogRetentionForm,
): Partial<Record<LogClass, number | null>> | null {
  const patch: Partial<Record<LogClass, number | null>> = {};
  for (const logClass of LOG_CLASSES) {
    const value = form[logClass].trim();
    if (value === loaded[logClass]) continue;
    patch[logClass] = value === "" ? null : Number(value);
  }
  return Object.keys(patch).length > 0 ? patch : null;
}

export const NOTIFICATION_KIND_LABELS: Record<Schemas["PrincipalNotificationKind"], string> = {
  "retention.pre_erasure": "Coming erasure",
  "breach.affected": "Breach",
};
