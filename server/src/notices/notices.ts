// Notices as versioned, immutable evidence. A published version is never edited: publishing
// changed content makes version n+1 and marks version n superseded, in one transaction. Publishing
// identical content again is a no-op that returns the current version.
import { createHash } from "node:crypto";
import type { Database, Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { isNoticeLanguage } from "./languages.js";

export interface NoticeItemizedPurpose {
  purpose: string;
  personalDataDescription: string;
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
}

export class NoticeValidationError extends Error {
  override name = "NoticeValidationError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

const TEXT_FIELDS = ["title", "body", "withdrawal", "rights", "complaint"] as const;

function requireText(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new NoticeValidationError(field, "must be a non-empty string");
  if (value.length > max) throw new NoticeValidationError(field, `must be at most ${max} characters`);
  return value;
}

/** Checks a notice from a file or request; returns it normalised (only known fields kept). */
export function parseNoticeDraft(input: unknown): NoticeDraft {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new NoticeValidationError("notice", "must be a JSON object with itemized and content");
  }
  const raw = input as Record<string, unknown>;
  const key = raw.key === undefined ? "default" : requireText(raw.key, "key", 64);
  if (!/^[a-z0-9][a-z0-9-]*$/.test(key))
    throw new NoticeValidationError("key", "lowercase letters, digits and hyphens");
  if (!Array.isArray(raw.itemized) || raw.itemized.length === 0) {
    throw new NoticeValidationError("itemized", "must list at least one purpose");
  }
  if (raw.itemized.length > 100) throw new NoticeValidationError("itemized", "at most 100 purposes");
  const seen = new Set<string>();
  const itemized = raw.itemized.map((item: unknown, i) => {
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
    return { purpose, personalDataDescription };
  });
  if (typeof raw.content !== "object" || raw.content === null || Array.isArray(raw.content)) {
    throw new NoticeValidationError("content", "must map language codes to { title, body }");
  }
  const content: Record<string, NoticeLanguageContent> = {};
  for (const [language, value] of Object.entries(raw.content as Record<string, unknown>)) {
    if (!isNoticeLanguage(language)) {
      throw new NoticeValidationError(
        `content.${language}`,
        "not English or an Eighth Schedule language code",
      );
    }
    const text = (value ?? {}) as Record<string, unknown>;
    const entry: NoticeLanguageContent = {
      title: requireText(text.title, `content.${language}.title`, 500),
      body: requireText(text.body, `content.${language}.body`, 100_000),
    };
    for (const field of TEXT_FIELDS.slice(2)) {
      if (text[field] !== undefined)
        entry[field] = requireText(text[field], `content.${language}.${field}`, 20_000);
    }
    content[language] = entry;
  }
  if (Object.keys(content).length === 0)
    throw new NoticeValidationError("content", "must have at least one language");
  return { key, itemized, content };
}

function contentHash(draft: NoticeDraft): string {
  // Key order is fixed by parseNoticeDraft, and languages are hashed in sorted order.
  const languages = Object.keys(draft.content).sort();
  const canonical = JSON.stringify({
    itemized: draft.itemized,
    content: languages.map((l) => [l, draft.content[l]]),
  });
  return createHash("sha256").update(canonical).digest("hex");
}

type VersionRow = {
  notice_id: string;
  organization_id: string;
  version: number;
  status: NoticeStatus;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, NoticeLanguageContent>;
  languages: string[];
  published_at: number | null;
};

const VERSION_COLUMNS =
  "v.notice_id, v.organization_id, v.version, v.status, v.itemized, v.content, v.languages, v.published_at";

const toVersion = (row: VersionRow): NoticeVersion => ({
  noticeId: row.notice_id,
  organizationId: row.organization_id,
  version: row.version,
  status: row.status,
  itemized: row.itemized,
  content: row.content,
  languages: row.languages,
  publishedAt: row.published_at,
});

/** Publishes `draft` as the notice's next version (or returns the current one when unchanged). */
export async function publishNotice(
  db: Database,
  organizationId: string,
  draft: NoticeDraft,
  now: number,
): Promise<{ noticeId: string; version: number; created: boolean }> {
  const hash = contentHash(draft);
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO notices (organization_id, notice_id, notice_key, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (organization_id, notice_key) DO NOTHING`,
      [organizationId, newId("ntc"), draft.key, now],
    );
    // Row lock: concurrent publishes of one notice take turns, so version numbers never collide.
    const [notice] = await tx.query<{ notice_id: string }>(
      "SELECT notice_id FROM notices WHERE organization_id = $1 AND notice_key = $2 FOR UPDATE",
      [organizationId, draft.key],
    );
    const noticeId = notice!.notice_id;
    const [latest] = await tx.query<{ version: number; status: NoticeStatus; content_hash: string }>(
      `SELECT version, status, content_hash FROM notice_versions
        WHERE organization_id = $1 AND notice_id = $2 ORDER BY version DESC LIMIT 1`,
      [organizationId, noticeId],
    );
    if (latest && latest.status === "published" && latest.content_hash === hash) {
      return { noticeId, version: latest.version, created: false };
    }
    const version = (latest?.version ?? 0) + 1;
    await tx.query(
      `UPDATE notice_versions SET status = 'superseded'
        WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'`,
      [organizationId, noticeId],
    );
    await tx.query(
      `INSERT INTO notice_versions
         (organization_id, notice_id, version, status, itemized, content, languages, content_hash, created_at, published_at)
       VALUES ($1, $2, $3, 'published', $4::jsonb, $5::jsonb, $6::jsonb, $7, $8, $8)`,
      [
        organizationId,
        noticeId,
        version,
        JSON.stringify(draft.itemized),
        JSON.stringify(draft.content),
        JSON.stringify(Object.keys(draft.content)),
        hash,
        now,
      ],
    );
    return { noticeId, version, created: true };
  });
}

/** The published version of a notice, found by id alone (public read). */
export async function findPublishedNotice(
  db: Queryable,
  noticeId: string,
): Promise<NoticeVersion | undefined> {
  const rows = await db.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM notices n
       JOIN notice_versions v ON v.organization_id = n.organization_id AND v.notice_id = n.notice_id
      WHERE n.notice_id = $1 AND v.status = 'published'`,
    [noticeId],
  );
  return rows[0] && toVersion(rows[0]);
}

/** Every published notice of an organisation, oldest notice first. */
export async function listPublishedNotices(db: Queryable, organizationId: string): Promise<NoticeVersion[]> {
  const rows = await db.query<VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM notices n
       JOIN notice_versions v ON v.organization_id = n.organization_id AND v.notice_id = n.notice_id
      WHERE n.organization_id = $1 AND v.status = 'published'
      ORDER BY n.created_at, n.notice_id`,
    [organizationId],
  );
  return rows.map(toVersion);
}

/** The wire shape (`Notice` schema). `_id` is the 1.6.0 name of the id; `noticeId` the 1.7.0 one. */
export function noticeBody(notice: NoticeVersion) {
  return {
    _id: notice.noticeId,
    noticeId: notice.noticeId,
    organizationId: notice.organizationId,
    version: notice.version,
    itemized: notice.itemized,
    content: notice.content,
    status: notice.status,
    publishedAt: notice.publishedAt,
    languages: notice.languages,
  };
}
