// The staff side of a notice's life: draft -> published -> superseded | archived.
// - A draft is the editable next version (at most one per notice). It may be incomplete.
// - Publishing a draft checks Rule 3 completeness, appends it as the next immutable version (the
//   previous published version becomes superseded) and deletes the draft, in one transaction.
// - Archiving moves the published version to archived: public reads then 404 and new consents
//   are refused, while consents already given keep pointing at that exact version.
// Every change takes the notice row's lock, so publishes, archives and draft edits of one notice
// take turns across instances.
import type { Database, Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import {
  appendPublishedVersion,
  assertPublishable,
  contentHash,
  inDisplayOrder,
  noticeProblems,
  type NoticeDraftContent,
  type NoticeItemizedPurpose,
  type NoticeLanguageContent,
  type NoticeProblem,
  type NoticeStatus,
  type NoticeVersion,
  type PublishResult,
} from "./notices.js";

export class NoticeNotFoundError extends Error {
  override name = "NoticeNotFoundError";
}

/** A lifecycle move the notice's state does not allow (INVALID_STATUS_TRANSITION). */
export class NoticeTransitionError extends Error {
  override name = "NoticeTransitionError";
}

/** Creating a notice under a key that another notice (with other content) already uses. */
export class NoticeKeyTakenError extends Error {
  override name = "NoticeKeyTakenError";
  constructor(
    readonly key: string,
    readonly noticeId: string,
  ) {
    super(`A notice with key "${key}" already exists (${noticeId}); edit its draft instead`);
  }
}

export interface NoticeDraftRecord extends NoticeDraftContent {
  noticeId: string;
  key: string;
  languages: string[];
  createdAt: number;
  updatedAt: number;
  updatedBy: string | null;
}

/** The lifecycle state of a notice as a whole. */
export type NoticeLifecycle = "draft" | "published" | "archived";

export interface NoticeVersionRecord extends NoticeVersion {
  supersededAt: number | null;
  archivedAt: number | null;
  publishedBy: string | null;
  archivedBy: string | null;
}

export interface StaffNotice {
  noticeId: string;
  key: string;
  createdAt: number;
  status: NoticeLifecycle;
  publishedVersion: number | null;
  latestVersion: number | null;
  draft: NoticeDraftRecord | null;
  versions: NoticeVersionRecord[];
}

type DraftRow = {
  notice_id: string;
  notice_key: string;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, Partial<NoticeLanguageContent>>;
  languages: string[];
  created_at: number;
  updated_at: number;
  updated_by: string | null;
};

const toDraft = (row: DraftRow): NoticeDraftRecord => ({
  noticeId: row.notice_id,
  key: row.notice_key,
  itemized: row.itemized,
  content: inDisplayOrder(row.content, row.languages),
  languages: row.languages,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  updatedBy: row.updated_by,
});

const DRAFT_SELECT = `SELECT d.notice_id, n.notice_key, d.itemized, d.content, d.languages, d.created_at,
       d.updated_at, d.updated_by
  FROM notice_drafts d JOIN notices n ON n.organization_id = d.organization_id AND n.notice_id = d.notice_id`;

type VersionRow = {
  notice_id: string;
  organization_id: string;
  version: number;
  status: NoticeStatus;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, NoticeLanguageContent>;
  languages: string[];
  published_at: number | null;
  superseded_at: number | null;
  archived_at: number | null;
  published_by: string | null;
  archived_by: string | null;
};

const toVersionRecord = (row: VersionRow): NoticeVersionRecord => ({
  noticeId: row.notice_id,
  organizationId: row.organization_id,
  version: row.version,
  status: row.status,
  itemized: row.itemized,
  content: inDisplayOrder(row.content, row.languages),
  languages: row.languages,
  publishedAt: row.published_at,
  supersededAt: row.superseded_at,
  archivedAt: row.archived_at,
  publishedBy: row.published_by,
  archivedBy: row.archived_by,
});

/** Locks the notice row (the per-notice mutex); throws NoticeNotFoundError for another org's. */
async function lockNotice(tx: Queryable, organizationId: string, noticeId: string): Promise<string> {
  const [row] = await tx.query<{ notice_key: string }>(
    "SELECT notice_key FROM notices WHERE organization_id = $1 AND notice_id = $2 FOR UPDATE",
    [organizationId, noticeId],
  );
  if (!row) throw new NoticeNotFoundError("No such notice in this organisation");
  return row.notice_key;
}

async function readDraft(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<NoticeDraftRecord | undefined> {
  const rows = await db.query<DraftRow>(`${DRAFT_SELECT} WHERE d.organization_id = $1 AND d.notice_id = $2`, [
    organizationId,
    noticeId,
  ]);
  return rows[0] && toDraft(rows[0]);
}

async function writeDraft(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  draft: NoticeDraftContent,
  staffId: string | null,
  now: number,
): Promise<void> {
  await tx.query(
    `INSERT INTO notice_drafts (organization_id, notice_id, itemized, content, languages, created_at, updated_at, updated_by)
     VALUES ($1, $2, $3::jsonb, $4::jsonb, $5::jsonb, $6, $6, $7)
     ON CONFLICT (organization_id, notice_id) DO UPDATE
       SET itemized = EXCLUDED.itemized, content = EXCLUDED.content, languages = EXCLUDED.languages,
           updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
    [
      organizationId,
      noticeId,
      JSON.stringify(draft.itemized),
      JSON.stringify(draft.content),
      JSON.stringify(Object.keys(draft.content)),
      now,
      staffId,
    ],
  );
}

const sameDraft = (a: NoticeDraftContent, b: NoticeDraftContent) =>
  contentHash(a) === contentHash(b) &&
  JSON.stringify(Object.keys(a.content)) === JSON.stringify(Object.keys(b.content));

/**
 * Creates a notice (never published yet) with its first draft. Creating again with the same key
 * and the same draft is a replay and answers the existing notice; with other content it is
 * NoticeKeyTakenError.
 */
export async function createNotice(
  db: Database,
  organizationId: string,
  input: { key: string; draft: NoticeDraftContent },
  staffId: string | null,
  now: number,
): Promise<NoticeDraftRecord> {
  return db.transaction((tx) => createNoticeIn(tx, organizationId, input, staffId, now));
}

/** createNotice inside the caller's transaction. */
export async function createNoticeIn(
  tx: Queryable,
  organizationId: string,
  input: { key: string; draft: NoticeDraftContent },
  staffId: string | null,
  now: number,
): Promise<NoticeDraftRecord> {
  const [inserted] = await tx.query<{ notice_id: string }>(
    `INSERT INTO notices (organization_id, notice_id, notice_key, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id, notice_key) DO NOTHING RETURNING notice_id`,
    [organizationId, newId("ntc"), input.key, now],
  );
  if (inserted) {
    await writeDraft(tx, organizationId, inserted.notice_id, input.draft, staffId, now);
  } else {
    const [existing] = await tx.query<{ notice_id: string }>(
      "SELECT notice_id FROM notices WHERE organization_id = $1 AND notice_key = $2 FOR UPDATE",
      [organizationId, input.key],
    );
    const noticeId = existing!.notice_id;
    const draft = await readDraft(tx, organizationId, noticeId);
    if (!draft || !sameDraft(draft, input.draft)) throw new NoticeKeyTakenError(input.key, noticeId);
    return draft;
  }
  return (await readDraft(tx, organizationId, inserted.notice_id))!;
}

/** Replaces the notice's draft (starting one if it has none). Published versions are untouched. */
export async function saveDraft(
  db: Database,
  organizationId: string,
  noticeId: string,
  draft: NoticeDraftContent,
  staffId: string | null,
  now: number,
): Promise<NoticeDraftRecord> {
  return db.transaction(async (tx) => {
    await lockNotice(tx, organizationId, noticeId);
    const current = await readDraft(tx, organizationId, noticeId);
    // A retried save changes nothing, not even who edited last and when.
    if (current && sameDraft(current, draft)) return current;
    await writeDraft(tx, organizationId, noticeId, draft, staffId, now);
    return (await readDraft(tx, organizationId, noticeId))!;
  });
}

/** Discards the draft; false when there was none. */
export async function discardDraft(db: Database, organizationId: string, noticeId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockNotice(tx, organizationId, noticeId);
    const deleted = await tx.query(
      "DELETE FROM notice_drafts WHERE organization_id = $1 AND notice_id = $2 RETURNING notice_id",
      [organizationId, noticeId],
    );
    return deleted.length > 0;
  });
}

export interface NoticeDraftPreview {
  draft: NoticeDraftRecord;
  /** The version number publishing would create. */
  nextVersion: number;
  /** Publishing would change nothing: the published version already has this content. */
  unchanged: boolean;
  problems: NoticeProblem[];
}

/** What publishing the draft would produce, and what still stops it. */
export async function previewDraft(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<NoticeDraftPreview> {
  const draft = await readDraft(db, organizationId, noticeId);
  if (!draft) {
    const exists = await db.query("SELECT 1 FROM notices WHERE organization_id = $1 AND notice_id = $2", [
      organizationId,
      noticeId,
    ]);
    throw new NoticeNotFoundError(
      exists.length > 0 ? "This notice has no draft" : "No such notice in this organisation",
    );
  }
  const [latest] = await db.query<{ version: number; status: NoticeStatus; content_hash: string }>(
    `SELECT version, status, content_hash FROM notice_versions
      WHERE organization_id = $1 AND notice_id = $2 ORDER BY version DESC LIMIT 1`,
    [organizationId, noticeId],
  );
  const unchanged = latest?.status === "published" && latest.content_hash === contentHash(draft);
  return {
    draft,
    nextVersion: unchanged ? latest.version : (latest?.version ?? 0) + 1,
    unchanged,
    problems: noticeProblems(draft),
  };
}

/**
 * Publishes the draft as the next version and deletes it. Without a draft, a notice that has a
 * published version answers that version (a retried publish), and one that has none is a
 * NoticeTransitionError. An incomplete draft throws NoticeValidationError naming the field.
 */
export async function publishDraft(
  db: Database,
  organizationId: string,
  noticeId: string,
  staffId: string | null,
  now: number,
): Promise<PublishResult> {
  return db.transaction(async (tx) => {
    await lockNotice(tx, organizationId, noticeId);
    const draft = await readDraft(tx, organizationId, noticeId);
    if (!draft) {
      const [published] = await tx.query<{ version: number }>(
        "SELECT version FROM notice_versions WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'",
        [organizationId, noticeId],
      );
      if (published) return { noticeId, version: published.version, created: false };
      throw new NoticeTransitionError("This notice has no draft to publish");
    }
    assertPublishable(draft);
    const result = await appendPublishedVersion(
      tx,
      organizationId,
      noticeId,
      { itemized: draft.itemized, content: draft.content },
      now,
      staffId,
    );
    await tx.query("DELETE FROM notice_drafts WHERE organization_id = $1 AND notice_id = $2", [
      organizationId,
      noticeId,
    ]);
    return result;
  });
}

/**
 * Archives the notice: its published version becomes archived. Archiving an archived notice
 * answers the archived version again; a notice never published cannot be archived.
 */
export async function archiveNotice(
  db: Database,
  organizationId: string,
  noticeId: string,
  staffId: string | null,
  now: number,
): Promise<NoticeVersionRecord> {
  return db.transaction(async (tx) => {
    await lockNotice(tx, organizationId, noticeId);
    await tx.query(
      `UPDATE notice_versions SET status = 'archived', archived_at = $3, archived_by = $4
        WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'`,
      [organizationId, noticeId, now, staffId],
    );
    const [latest] = await tx.query<VersionRow>(
      `SELECT * FROM notice_versions WHERE organization_id = $1 AND notice_id = $2
        ORDER BY version DESC LIMIT 1`,
      [organizationId, noticeId],
    );
    if (!latest) throw new NoticeTransitionError("This notice was never published, so it cannot be archived");
    return toVersionRecord(latest);
  });
}

function lifecycleOf(versions: NoticeVersionRecord[]): NoticeLifecycle {
  if (versions.some((v) => v.status === "published")) return "published";
  return versions.some((v) => v.status === "archived") ? "archived" : "draft";
}

/** Every notice of the organisation with its draft and all its versions, oldest notice first. */
export async function listStaffNotices(
  db: Queryable,
  organizationId: string,
  only?: { noticeId: string },
): Promise<StaffNotice[]> {
  // One notice, or all of them: the same condition on each table's own alias.
  const filter = (alias: string) => (only ? ` AND ${alias}.notice_id = $2` : "");
  const params = only ? [organizationId, only.noticeId] : [organizationId];
  const notices = await db.query<{ notice_id: string; notice_key: string; created_at: number }>(
    `SELECT n.notice_id, n.notice_key, n.created_at FROM notices n
      WHERE n.organization_id = $1${filter("n")} ORDER BY n.created_at, n.notice_id`,
    params,
  );
  const drafts = await db.query<DraftRow>(
    `${DRAFT_SELECT} WHERE d.organization_id = $1${filter("d")}`,
    params,
  );
  const versions = await db.query<VersionRow>(
    `SELECT v.* FROM notice_versions v WHERE v.organization_id = $1${filter("v")}
      ORDER BY v.notice_id, v.version`,
    params,
  );
  return notices.map((n) => {
    const own = versions.filter((v) => v.notice_id === n.notice_id).map(toVersionRecord);
    const draft = drafts.find((d) => d.notice_id === n.notice_id);
    return {
      noticeId: n.notice_id,
      key: n.notice_key,
      createdAt: n.created_at,
      status: lifecycleOf(own),
      publishedVersion: own.find((v) => v.status === "published")?.version ?? null,
      latestVersion: own.at(-1)?.version ?? null,
      draft: draft ? toDraft(draft) : null,
      versions: own,
    };
  });
}

/** One version of one of the organisation's notices. */
export async function readNoticeVersion(
  db: Queryable,
  organizationId: string,
  noticeId: string,
  version: number,
): Promise<NoticeVersionRecord | undefined> {
  const [row] = await db.query<VersionRow>(
    "SELECT * FROM notice_versions WHERE organization_id = $1 AND notice_id = $2 AND version = $3",
    [organizationId, noticeId, version],
  );
  return row && toVersionRecord(row);
}
