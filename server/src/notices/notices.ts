// Notices as versioned, immutable evidence. A published version is never edited: publishing
// changed content makes version n+1 and marks version n superseded, in one transaction. Publishing
// identical content again is a no-op that returns the current version. Staff drafts, preview,
// publication from a draft and archiving are in lifecycle.ts.
import { createHash } from "node:crypto";
import type { Database, Queryable } from "../db/database.js";
import { Failure } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { isNoticeLanguage } from "./languages.js";
import {
  findPublishedVersion,
  findPublishedVersionOrFallback,
  insertNotice,
  insertPublishedVersion,
  latestVersion,
  listPublishedVersions,
  lockNoticeByKey,
  supersedePublishedVersion,
  type StoredVersion,
} from "./store.js";

export interface NoticeItemizedPurpose {
  purpose: string;
  personalDataDescription: string;
  /**
   * Whether the purpose is tracking, behavioural monitoring or targeted advertising (DPDP s.9(3));
   * when absent the consent domain judges by the purpose's label.
   */
  tracking?: boolean;
  /** The personal-data types consent to this purpose covers (what consent records name), if set. */
  dataTypes?: string[];
}

export interface NoticeLanguageContent {
  title: string;
  body: string;
  withdrawal?: string;
  rights?: string;
  complaint?: string;
}

export interface NoticeDraft {
  /** The organisation's name for this notice; the same key publishes a new version of it. */
  key: string;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, NoticeLanguageContent>;
}

export type NoticeStatus = "draft" | "published" | "superseded" | "archived";

export interface NoticeVersion {
  noticeId: string;
  organizationId: string;
  version: number;
  status: NoticeStatus;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, NoticeLanguageContent>;
  languages: string[];
  publishedAt: number | null;
  /** The notice's key, where the read fetched it (published versions). */
  key?: string;
}

/** A notice that breaks a rule: VALIDATION_ERROR on `field`, its message prefixed by the field. */
export class NoticeValidationError extends Failure {
  override name = "NoticeValidationError";
  constructor(field: string, message: string) {
    super("VALIDATION_ERROR", `${field}: ${message}`, { field });
  }
}

const TEXT_FIELDS = ["title", "body", "withdrawal", "rights", "complaint"] as const;
export type NoticeTextField = (typeof TEXT_FIELDS)[number];
const TEXT_LIMITS: Record<NoticeTextField, number> = {
  title: 500,
  body: 100_000,
  withdrawal: 20_000,
  rights: 20_000,
  complaint: 20_000,
};

/** A draft's content: like a notice, but any part may still be missing (drafts may be incomplete). */
export interface NoticeDraftContent {
  itemized: NoticeItemizedPurpose[];
  content: Record<string, Partial<NoticeLanguageContent>>;
}

function requireText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new NoticeValidationError(field, "must be a non-empty string");
  if (value.length > max) throw new NoticeValidationError(field, `must be at most ${max} characters`);
  return value;
}

function parseKey(value: unknown): string {
  const key = value === undefined ? "default" : requireText(value, "key", 64);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(key))
    throw new NoticeValidationError("key", "lowercase letters, digits and hyphens");
  return key;
}

function parseItemized(value: unknown, partial: boolean): NoticeItemizedPurpose[] {
  if (partial && value === undefined) return [];
  if (!Array.isArray(value) || (!partial && value.length === 0)) {
    throw new NoticeValidationError("itemized", "must list at least one purpose");
  }
  if (value.length > 100) throw new NoticeValidationError("itemized", "at most 100 purposes");
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const entry = (item ?? {}) as Record<string, unknown>;
    const purpose = requireText(entry.purpose, `itemized[${i}].purpose`, 200);
    // The purpose is part of the audit hash, whose fields are joined with `|`.
    if (purpose.includes("|"))
      throw new NoticeValidationError(`itemized[${i}].purpose`, "must not contain |");
    if (seen.has(purpose))
      throw new NoticeValidationError(`itemized[${i}].purpose`, `duplicate purpose ${purpose}`);
    seen.add(purpose);
    const personalDataDescription = requireText(
      entry.personalDataDescription,
      `itemized[${i}].personalDataDescription`,
      2000,
    );
    const parsed: NoticeItemizedPurpose = { purpose, personalDataDescription };
    if (entry.tracking !== undefined) {
      if (typeof entry.tracking !== "boolean")
        throw new NoticeValidationError(`itemized[${i}].tracking`, "must be true or false");
      parsed.tracking = entry.tracking;
    }
    if (entry.dataTypes !== undefined) parsed.dataTypes = parseDataTypes(entry.dataTypes, i);
    return parsed;
  });
}

/** An itemised purpose's data types: what consent records name, so the audit hash's rules apply. */
function parseDataTypes(value: unknown, i: number): string[] {
  const field = `itemized[${i}].dataTypes`;
  if (!Array.isArray(value) || value.length === 0 || value.length > 100)
    throw new NoticeValidationError(field, "must list 1 to 100 data types");
  const seen = new Set<string>();
  return value.map((item: unknown, j) => {
    const dataType = requireText(item, `${field}[${j}]`, 200);
    if (/[|,]/.test(dataType)) throw new NoticeValidationError(`${field}[${j}]`, "must not contain | or ,");
    if (seen.has(dataType))
      throw new NoticeValidationError(`${field}[${j}]`, `duplicate data type ${dataType}`);
    seen.add(dataType);
    return dataType;
  });
}

function parseContent(value: unknown, partial: boolean): Record<string, Partial<NoticeLanguageContent>> {
  if (partial && value === undefined) return {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new NoticeValidationError("content", "must map language codes to { title, body }");
  }
  const content: Record<string, Partial<NoticeLanguageContent>> = {};
  for (const [language, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!isNoticeLanguage(language)) {
      throw new NoticeValidationError(
        `content.${language}`,
        "not English or an Eighth Schedule language code",
      );
    }
    if (typeof raw !== "object" || raw === null || Array.isArray(raw))
      throw new NoticeValidationError(`content.${language}`, "must be an object of texts");
    const text = raw as Record<string, unknown>;
    const entry: Partial<NoticeLanguageContent> = {};
    for (const field of TEXT_FIELDS) {
      // A published notice always has a title and body; a draft may be filled in piece by piece.
      const required = !partial && (field === "title" || field === "body");
      if (text[field] !== undefined || required)
        entry[field] = requireText(text[field], `content.${language}.${field}`, TEXT_LIMITS[field]);
    }
    content[language] = entry;
  }
  if (!partial && Object.keys(content).length === 0)
    throw new NoticeValidationError("content", "must have at least one language");
  return content;
}

/** Checks a notice from a file or request; returns it normalised (only known fields kept). */
export function parseNoticeDraft(input: unknown): NoticeDraft {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new NoticeValidationError("notice", "must be a JSON object with itemized and content");
  }
  const raw = input as Record<string, unknown>;
  const key = parseKey(raw.key);
  const itemized = parseItemized(raw.itemized, false);
  const content = parseContent(raw.content, false) as Record<string, NoticeLanguageContent>;
  return { key, itemized, content };
}

/** Checks a staff draft: the same rules on what is there, but nothing is required yet. */
export function parseDraftContent(input: { itemized?: unknown; content?: unknown }): NoticeDraftContent {
  return { itemized: parseItemized(input.itemized, true), content: parseContent(input.content, true) };
}

/** Parses a notice key (`default` when absent). */
export function parseNoticeKey(value: unknown): string {
  return parseKey(value);
}

export interface NoticeProblem {
  field: string;
  message: string;
}

// DPDP Rules, Rule 3: the notice itemises the personal data and purposes, and gives the means to
// withdraw consent, to exercise the principal's rights and to complain to the Board, in every
// language it is offered in.
const RULE_3_TEXTS: Record<Exclude<NoticeTextField, "title" | "body">, string> = {
  withdrawal: "how to withdraw consent",
  rights: "how to exercise the principal's rights",
  complaint: "how to complain to the Data Protection Board",
};

/** What still stops a draft from being published, in field order; empty when it is complete. */
export function noticeProblems(draft: NoticeDraftContent): NoticeProblem[] {
  const problems: NoticeProblem[] = [];
  if (draft.itemized.length === 0)
    problems.push({
      field: "itemized",
      message: "itemized must list at least one purpose with the personal data it uses",
    });
  const languages = Object.keys(draft.content);
  if (languages.length === 0)
    problems.push({ field: "content", message: "content must have at least one language" });
  for (const language of languages) {
    const text = draft.content[language] ?? {};
    for (const field of TEXT_FIELDS) {
      if (text[field] !== undefined) continue;
      const what = field in RULE_3_TEXTS ? RULE_3_TEXTS[field as keyof typeof RULE_3_TEXTS] : field;
      problems.push({
        field: `content.${language}.${field}`,
        message: `content.${language}.${field} is required to publish (${what})`,
      });
    }
  }
  return problems;
}

/** A notice's content once every Rule 3 text is there. */
export type CompleteNoticeContent = Omit<NoticeDraft, "key">;

/** Whether nothing stops the draft from being published. */
export function isPublishable<T extends NoticeDraftContent>(draft: T): draft is T & CompleteNoticeContent {
  return noticeProblems(draft).length === 0;
}

/** Throws the first completeness problem as a NoticeValidationError. */
export function assertPublishable(draft: NoticeDraftContent): asserts draft is CompleteNoticeContent {
  const [first] = noticeProblems(draft);
  if (first) throw new NoticeValidationError(first.field, first.message.replace(`${first.field} `, ""));
}

export function contentHash(draft: NoticeDraftContent): string {
  // Field order is fixed here (JSONB does not keep it), and languages are hashed in sorted order,
  // so the same texts always hash alike however they were stored or sent.
  const languages = Object.keys(draft.content).sort();
  const canonical = JSON.stringify({
    // `tracking` is left out when absent, so notices without it hash as they always did.
    itemized: draft.itemized.map((p) => ({
      purpose: p.purpose,
      personalDataDescription: p.personalDataDescription,
      tracking: p.tracking,
      dataTypes: p.dataTypes,
    })),
    content: languages.map((l) => [l, inTextFieldOrder(draft.content[l] ?? {})]),
  });
  return createHash("sha256").update(canonical).digest("hex");
}

function inTextFieldOrder(text: Partial<NoticeLanguageContent>): Partial<NoticeLanguageContent> {
  const ordered: Partial<NoticeLanguageContent> = {};
  for (const field of TEXT_FIELDS) if (text[field] !== undefined) ordered[field] = text[field];
  return ordered;
}

/** JSONB keeps no key order, so content is rebuilt in the stored language order and field order. */
export function inDisplayOrder<T extends Partial<NoticeLanguageContent>>(
  content: Record<string, T>,
  languages: readonly string[],
): Record<string, T> {
  const ordered: Record<string, T> = {};
  for (const language of [...languages, ...Object.keys(content)]) {
    const text = content[language];
    if (text !== undefined && !(language in ordered)) ordered[language] = inTextFieldOrder(text) as T;
  }
  return ordered;
}

const toVersion = (stored: StoredVersion): NoticeVersion => ({
  noticeId: stored.noticeId,
  organizationId: stored.organizationId,
  version: stored.version,
  status: stored.status,
  itemized: stored.itemized,
  content: inDisplayOrder(stored.content, stored.languages),
  languages: stored.languages,
  publishedAt: stored.publishedAt,
  ...(stored.key === undefined ? {} : { key: stored.key }),
});

export interface PublishResult {
  noticeId: string;
  version: number;
  created: boolean;
}

/**
 * Appends `content` as the next published version of a notice whose row the caller holds locked
 * (`FOR UPDATE` on notices), superseding the published one; a no-op returning the current version
 * when the published version already has this content. Completeness is the caller's concern.
 */
export async function appendPublishedVersion(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  content: CompleteNoticeContent,
  now: number,
  publishedBy: string | null,
): Promise<PublishResult> {
  const hash = contentHash(content);
  const latest = await latestVersion(tx, organizationId, noticeId);
  if (latest && latest.status === "published" && latest.contentHash === hash) {
    return { noticeId, version: latest.version, created: false };
  }
  const version = (latest?.version ?? 0) + 1;
  await supersedePublishedVersion(tx, organizationId, noticeId, now);
  await insertPublishedVersion(
    tx,
    organizationId,
    noticeId,
    { version, itemized: content.itemized, content: content.content, contentHash: hash, publishedBy },
    now,
  );
  return { noticeId, version, created: true };
}

/**
 * Publishes `draft` as the next version of the notice with its key (creating the notice on first
 * use), or returns the current version when unchanged. This is the versioning primitive; it does
 * not check Rule 3 completeness, which `guard notice publish` and the staff routes do first
 * (`assertPublishable`).
 */
export async function publishNotice(
  db: Database,
  organizationId: string,
  draft: NoticeDraft,
  now: number,
  options: { publishedBy?: string | null } = {},
): Promise<PublishResult> {
  return db.transaction(async (tx) => {
    await insertNotice(tx, organizationId, { noticeId: newId("ntc"), key: draft.key }, now);
    // Row lock: concurrent publishes of one notice take turns, so version numbers never collide.
    const noticeId = await lockNoticeByKey(tx, organizationId, draft.key);
    return appendPublishedVersion(tx, organizationId, noticeId!, draft, now, options.publishedBy ?? null);
  });
}

/** The published version of a notice, found by id alone (public read). */
export async function findPublishedNotice(
  db: Queryable,
  noticeId: string,
): Promise<NoticeVersion | undefined> {
  const stored = await findPublishedVersion(db, noticeId);
  return stored && toVersion(stored);
}

/** The organisation's default notice is the one with this key (what `guard notice publish` uses by default). */
const DEFAULT_NOTICE_KEY = "default";

/**
 * The published version of `preferredNoticeId` (a notice of this organisation) if it has one, else
 * the published version of the organisation's default notice; undefined when neither resolves.
 */
export async function findPublishedNoticeOrDefault(
  db: Queryable,
  organizationId: string,
  preferredNoticeId: string | null,
): Promise<NoticeVersion | undefined> {
  const stored = await findPublishedVersionOrFallback(
    db,
    organizationId,
    preferredNoticeId,
    DEFAULT_NOTICE_KEY,
  );
  return stored && toVersion(stored);
}

/** One page of the published notices of an organisation, oldest notice first. */
export async function listPublishedNotices(
  db: Queryable,
  organizationId: string,
  page: PageRequest = {},
): Promise<Page<NoticeVersion>> {
  const found = await keysetPage(
    page,
    {
      scope: pageScope("getNoticesForOrg", organizationId),
      shape: ["number", "string"],
      keyOf: (row: { key: [number, string] }) => row.key,
    },
    (after, limit) => listPublishedVersions(db, organizationId, { after, limit }),
  );
  return { items: found.items.map((row) => toVersion(row.version)), nextCursor: found.nextCursor };
}

/** The wire shape (`Notice` schema). `_id` is the 1.6.0 name of the id; `noticeId` the 1.7.0 one. */
export function noticeBody(notice: NoticeVersion) {
  return {
    _id: notice.noticeId,
    noticeId: notice.noticeId,
    ...(notice.key === undefined ? {} : { key: notice.key }),
    organizationId: notice.organizationId,
    version: notice.version,
    itemized: notice.itemized,
    content: notice.content,
    status: notice.status,
    publishedAt: notice.publishedAt,
    languages: notice.languages,
  };
}
