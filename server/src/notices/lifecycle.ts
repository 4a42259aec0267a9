// The staff side of a notice's life: draft -> published -> superseded | archived.
// - A draft is the editable next version (at most one per notice). It may be incomplete.
// - Publishing a draft checks Rule 3 completeness, appends it as the next immutable version (the
//   previous published version becomes superseded) and deletes the draft, in one transaction.
// - Archiving moves the published version to archived: public reads then 404 and new consents
//   are refused, while consents already given keep pointing at that exact version.
// Every change takes the notice row's lock, so publishes, archives and draft edits of one notice
// take turns across instances.
import type { Database, Queryable } from "../db/database.js";
import { Failure, notFound } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import {
  appendPublishedVersion,
  assertPublishable,
  contentHash,
  inDisplayOrder,
  noticeProblems,
  type NoticeDraftContent,
  type NoticeProblem,
  type NoticeVersion,
  type PublishResult,
} from "./notices.js";
import {
  archivePublishedVersion,
  deleteDraft,
  insertNotice,
  latestVersion,
  listDrafts,
  listNotices,
  listVersions,
  lockNotice,
  lockNoticeByKey,
  noticeExists,
  publishedVersionNumber,
  readDraft,
  readVersion,
  writeDraft,
  type StoredDraft,
  type StoredVersion,
} from "./store.js";

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

const toDraft = (stored: StoredDraft): NoticeDraftRecord => ({
  ...stored,
  content: inDisplayOrder(stored.content, stored.languages),
});

const toVersionRecord = (stored: StoredVersion): NoticeVersionRecord => ({
  ...stored,
  content: inDisplayOrder(stored.content, stored.languages),
});

const noSuchNotice = () => notFound("No such notice in this organisation");

/** Locks the notice row (the per-notice mutex); NOT_FOUND for another organisation's notice. */
async function lockOwnNotice(tx: Queryable, organizationId: string, noticeId: string): Promise<void> {
  if (!(await lockNotice(tx, organizationId, noticeId))) throw noSuchNotice();
}

async function draftOf(db: Queryable, organizationId: string, noticeId: string) {
  const stored = await readDraft(db, organizationId, noticeId);
  return stored && toDraft(stored);
}

const sameDraft = (a: NoticeDraftContent, b: NoticeDraftContent) =>
  contentHash(a) === contentHash(b) &&
  JSON.stringify(Object.keys(a.content)) === JSON.stringify(Object.keys(b.content));

/**
 * Creates a notice (never published yet) with its first draft. Creating again with the same key
 * and the same draft is a replay and answers the existing notice; with other content it is a
 * CONFLICT.
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
  const inserted = await insertNotice(tx, organizationId, { noticeId: newId("ntc"), key: input.key }, now);
  if (inserted !== undefined) {
    await writeDraft(tx, organizationId, inserted, input.draft, staffId, now);
    return (await draftOf(tx, organizationId, inserted))!;
  }
  const noticeId = (await lockNoticeByKey(tx, organizationId, input.key))!;
  const draft = await draftOf(tx, organizationId, noticeId);
  if (!draft || !sameDraft(draft, input.draft)) {
    throw new Failure(
      "CONFLICT",
      `A notice with key "${input.key}" already exists (${noticeId}); edit its draft instead`,
    );
  }
  return draft;
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
    await lockOwnNotice(tx, organizationId, noticeId);
    const current = await draftOf(tx, organizationId, noticeId);
    // A retried save changes nothing, not even who edited last and when.
    if (current && sameDraft(current, draft)) return current;
    await writeDraft(tx, organizationId, noticeId, draft, staffId, now);
    return (await draftOf(tx, organizationId, noticeId))!;
  });
}

/** Discards the draft; false when there was none. */
export async function discardDraft(db: Database, organizationId: string, noticeId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    await lockOwnNotice(tx, organizationId, noticeId);
    return deleteDraft(tx, organizationId, noticeId);
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
  const draft = await draftOf(db, organizationId, noticeId);
  if (!draft) {
    if (await noticeExists(db, organizationId, noticeId)) throw notFound("This notice has no draft");
    throw noSuchNotice();
  }
  const latest = await latestVersion(db, organizationId, noticeId);
  const unchanged = latest?.status === "published" && latest.contentHash === contentHash(draft);
  return {
    draft,
    nextVersion: unchanged ? latest.version : (latest?.version ?? 0) + 1,
    unchanged,
    problems: noticeProblems(draft),
  };
}

/**
 * Publishes the draft as the next version and deletes it. Without a draft, a notice that has a
 * published version answers that version (a retried publish), and one that has none is an
 * INVALID_STATUS_TRANSITION. An incomplete draft is a VALIDATION_ERROR naming the field.
 */
export async function publishDraft(
  db: Database,
  organizationId: string,
  noticeId: string,
  staffId: string | null,
  now: number,
): Promise<PublishResult> {
  return db.transaction(async (tx) => {
    await lockOwnNotice(tx, organizationId, noticeId);
    const draft = await draftOf(tx, organizationId, noticeId);
    if (!draft) {
      const published = await publishedVersionNumber(tx, organizationId, noticeId);
      if (published !== undefined) return { noticeId, version: published, created: false };
      throw new Failure("INVALID_STATUS_TRANSITION", "This notice has no draft to publish");
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
    await deleteDraft(tx, organizationId, noticeId);
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
    await lockOwnNotice(tx, organizationId, noticeId);
    await archivePublishedVersion(tx, organizationId, noticeId, staffId, now);
    const latest = await readVersion(tx, organizationId, noticeId);
    if (!latest)
      throw new Failure(
        "INVALID_STATUS_TRANSITION",
        "This notice was never published, so it cannot be archived",
      );
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
  const notices = await listNotices(db, organizationId, only?.noticeId);
  const drafts = await listDrafts(db, organizationId, only?.noticeId);
  const versions = await listVersions(db, organizationId, only?.noticeId);
  return notices.map((n) => {
    const own = versions.filter((v) => v.noticeId === n.noticeId).map(toVersionRecord);
    const draft = drafts.find((d) => d.noticeId === n.noticeId);
    return {
      ...n,
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
  const stored = await readVersion(db, organizationId, noticeId, version);
  return stored && toVersionRecord(stored);
}
