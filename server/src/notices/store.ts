// The notices domain's tables: notices (one row per notice and key; its row lock is the notice's
// mutex), notice_versions (immutable published evidence) and notice_drafts (the editable next
// version). Only this module reads or writes them. Every statement filters by organization_id,
// except the public reads that find a notice by its id alone (noticeOwner, findPublishedVersion).
import type { Queryable } from "../db/database.js";
import { announceInvalidation } from "../db/invalidation.js";
import { execute, first, qb, rows, sql, type InferResult } from "../db/query.js";
import type { NoticeItemizedPurpose, NoticeLanguageContent, NoticeStatus } from "./notices.js";

/** Whether the organisation has a notice with this id (drafts and archived notices included). */
export async function noticeExists(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<boolean> {
  const row = await first(
    db,
    qb
      .selectFrom("notices")
      .select("notice_id")
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId),
  );
  return row !== undefined;
}

/** The organisation that owns a notice; undefined for an unknown id. */
export async function noticeOwner(db: Queryable, noticeId: string): Promise<string | undefined> {
  const row = await first(
    db,
    qb.selectFrom("notices").select("organization_id").where("notice_id", "=", noticeId).limit(1),
  );
  return row?.organization_id;
}

// Stored shapes. JSONB columns are typed here from what the rule modules wrote (notices.ts parses
// every text before it is stored). Content comes back in JSONB's key order; the rule modules put it
// in display order (inDisplayOrder).

/** A notice_versions row. */
export interface StoredVersion {
  noticeId: string;
  organizationId: string;
  version: number;
  status: NoticeStatus;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, NoticeLanguageContent>;
  languages: string[];
  publishedAt: number | null;
  supersededAt: number | null;
  archivedAt: number | null;
  publishedBy: string | null;
  archivedBy: string | null;
  /** The notice's key; read with published versions (public reads), absent otherwise. */
  key?: string;
}

/** A notice_drafts row with its notice's key. */
export interface StoredDraft {
  noticeId: string;
  key: string;
  itemized: NoticeItemizedPurpose[];
  content: Record<string, Partial<NoticeLanguageContent>>;
  languages: string[];
  createdAt: number;
  updatedAt: number;
  updatedBy: string | null;
}

/** The newest version's number, status and content hash (what publishing compares against). */
export interface LatestVersion {
  version: number;
  status: NoticeStatus;
  contentHash: string;
}

const VERSION_COLUMNS = [
  "v.notice_id",
  "v.organization_id",
  "v.version",
  "v.status",
  "v.itemized",
  "v.content",
  "v.languages",
  "v.published_at",
  "v.superseded_at",
  "v.archived_at",
  "v.published_by",
  "v.archived_by",
] as const;

const selectVersions = () => qb.selectFrom("notice_versions as v").select(VERSION_COLUMNS);

type VersionRow = InferResult<ReturnType<typeof selectVersions>>[number];

const toStoredVersion = (row: VersionRow): StoredVersion => ({
  noticeId: row.notice_id,
  organizationId: row.organization_id,
  version: row.version,
  status: row.status as NoticeStatus,
  itemized: row.itemized as NoticeItemizedPurpose[],
  content: row.content as Record<string, NoticeLanguageContent>,
  languages: row.languages as string[],
  publishedAt: row.published_at,
  supersededAt: row.superseded_at,
  archivedAt: row.archived_at,
  publishedBy: row.published_by,
  archivedBy: row.archived_by,
});

/** Published versions joined to their notices (public reads). */
const selectPublished = () =>
  qb
    .selectFrom("notices as n")
    .innerJoin("notice_versions as v", (join) =>
      join.onRef("v.organization_id", "=", "n.organization_id").onRef("v.notice_id", "=", "n.notice_id"),
    )
    .select([...VERSION_COLUMNS, "n.notice_key"])
    .where("v.status", "=", "published");

const toPublishedVersion = (row: VersionRow & { notice_key: string }): StoredVersion => ({
  ...toStoredVersion(row),
  key: row.notice_key,
});

const selectDrafts = () =>
  qb
    .selectFrom("notice_drafts as d")
    .innerJoin("notices as n", (join) =>
      join.onRef("n.organization_id", "=", "d.organization_id").onRef("n.notice_id", "=", "d.notice_id"),
    )
    .select([
      "d.notice_id",
      "n.notice_key",
      "d.itemized",
      "d.content",
      "d.languages",
      "d.created_at",
      "d.updated_at",
      "d.updated_by",
    ]);

type DraftRow = InferResult<ReturnType<typeof selectDrafts>>[number];

const toStoredDraft = (row: DraftRow): StoredDraft => ({
  noticeId: row.notice_id,
  key: row.notice_key,
  itemized: row.itemized as NoticeItemizedPurpose[],
  content: row.content as Record<string, Partial<NoticeLanguageContent>>,
  languages: row.languages as string[],
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  updatedBy: row.updated_by,
});

// Notices (the rows whose lock serialises every change to one notice).

/**
 * Inserts a notice under `key` unless the organisation already has one; the new notice's id, or
 * undefined when the key was taken.
 */
export async function insertNotice(
  tx: Queryable,
  organizationId: string,
  notice: { noticeId: string; key: string },
  now: number,
): Promise<string | undefined> {
  const row = await first(
    tx,
    qb
      .insertInto("notices")
      .values({
        organization_id: organizationId,
        notice_id: notice.noticeId,
        notice_key: notice.key,
        created_at: now,
      })
      .onConflict((oc) => oc.columns(["organization_id", "notice_key"]).doNothing())
      .returning("notice_id"),
  );
  return row?.notice_id;
}

/** Locks the notice with this key until the transaction ends; its id, or undefined. */
export async function lockNoticeByKey(
  tx: Queryable,
  organizationId: string,
  key: string,
): Promise<string | undefined> {
  const row = await first(
    tx,
    qb
      .selectFrom("notices")
      .select("notice_id")
      .where("organization_id", "=", organizationId)
      .where("notice_key", "=", key)
      .forUpdate(),
  );
  return row?.notice_id;
}

/** Locks the notice until the transaction ends; false when the organisation has no such notice. */
export async function lockNotice(tx: Queryable, organizationId: string, noticeId: string): Promise<boolean> {
  const row = await first(
    tx,
    qb
      .selectFrom("notices")
      .select("notice_id")
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .forUpdate(),
  );
  return row !== undefined;
}

/** The organisation's notices (or the one named), oldest first. */
export async function listNotices(
  db: Queryable,
  organizationId: string,
  noticeId?: string,
): Promise<{ noticeId: string; key: string; createdAt: number }[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("notices")
      .select(["notice_id", "notice_key", "created_at"])
      .where("organization_id", "=", organizationId)
      .$if(noticeId !== undefined, (q) => q.where("notice_id", "=", noticeId!))
      .orderBy("created_at")
      .orderBy("notice_id"),
  );
  return found.map((n) => ({ noticeId: n.notice_id, key: n.notice_key, createdAt: n.created_at }));
}

// Versions.

/** The newest version of a notice, whatever its status. */
export async function latestVersion(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<LatestVersion | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("notice_versions")
      .select(["version", "status", "content_hash"])
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .orderBy("version", "desc")
      .limit(1),
  );
  return row && { version: row.version, status: row.status as NoticeStatus, contentHash: row.content_hash };
}

/** The number of the notice's published version, if it has one. */
export async function publishedVersionNumber(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<number | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("notice_versions")
      .select("version")
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .where("status", "=", "published"),
  );
  return row?.version;
}

/** The numbers of these notices' published versions, by notice id (a notice with none is absent). */
export async function publishedVersionNumbers(
  db: Queryable,
  organizationId: string,
  noticeIds: readonly string[],
): Promise<Map<string, number>> {
  if (noticeIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("notice_versions")
      .select(["notice_id", "version"])
      .where("organization_id", "=", organizationId)
      .where("notice_id", "in", noticeIds)
      .where("status", "=", "published"),
  );
  return new Map(found.map((r) => [r.notice_id, r.version]));
}

/**
 * Tells every instance's cache of published versions (published-cache.ts) that the organisation's
 * published notices changed, when (and only if) the writing transaction commits.
 */
function announcePublishedChange(tx: Queryable, organizationId: string): Promise<void> {
  return announceInvalidation(tx, { topic: "notices", organizationId });
}

/** Marks the notice's published version superseded. */
export async function supersedePublishedVersion(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("notice_versions")
      .set({ status: "superseded", superseded_at: now })
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .where("status", "=", "published"),
  );
  await announcePublishedChange(tx, organizationId);
}

/** Inserts a new published version (its content already checked and hashed). */
export async function insertPublishedVersion(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  version: {
    version: number;
    itemized: NoticeItemizedPurpose[];
    content: Record<string, NoticeLanguageContent>;
    contentHash: string;
    publishedBy: string | null;
  },
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb.insertInto("notice_versions").values({
      organization_id: organizationId,
      notice_id: noticeId,
      version: version.version,
      status: "published",
      itemized: JSON.stringify(version.itemized),
      content: JSON.stringify(version.content),
      languages: JSON.stringify(Object.keys(version.content)),
      content_hash: version.contentHash,
      created_at: now,
      published_at: now,
      published_by: version.publishedBy,
    }),
  );
  await announcePublishedChange(tx, organizationId);
}

/** Marks the notice's published version archived. */
export async function archivePublishedVersion(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  staffId: string | null,
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("notice_versions")
      .set({ status: "archived", archived_at: now, archived_by: staffId })
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .where("status", "=", "published"),
  );
  await announcePublishedChange(tx, organizationId);
}

/** One version of a notice; the newest when `version` is omitted. */
export async function readVersion(
  db: Queryable,
  organizationId: string,
  noticeId: string,
  version?: number,
): Promise<StoredVersion | undefined> {
  const row = await first(
    db,
    selectVersions()
      .where("v.organization_id", "=", organizationId)
      .where("v.notice_id", "=", noticeId)
      .$if(version !== undefined, (q) => q.where("v.version", "=", version!))
      .orderBy("v.version", "desc")
      .limit(1),
  );
  return row && toStoredVersion(row);
}

/** Every version of the organisation's notices (or of the one named), by notice then version. */
export async function listVersions(
  db: Queryable,
  organizationId: string,
  noticeId?: string,
): Promise<StoredVersion[]> {
  const found = await rows(
    db,
    selectVersions()
      .where("v.organization_id", "=", organizationId)
      .$if(noticeId !== undefined, (q) => q.where("v.notice_id", "=", noticeId!))
      .orderBy("v.notice_id")
      .orderBy("v.version"),
  );
  return found.map(toStoredVersion);
}

/** The published version of a notice, found by id alone (public read). */
export async function findPublishedVersion(
  db: Queryable,
  noticeId: string,
): Promise<StoredVersion | undefined> {
  const row = await first(db, selectPublished().where("n.notice_id", "=", noticeId));
  return row && toPublishedVersion(row);
}

/**
 * The published version of the organisation's notice `preferredNoticeId` if it has one, else the
 * published version of its notice with `fallbackKey`.
 */
export async function findPublishedVersionOrFallback(
  db: Queryable,
  organizationId: string,
  preferredNoticeId: string | null,
  fallbackKey: string,
): Promise<StoredVersion | undefined> {
  const preferred = preferredNoticeId ?? "";
  const row = await first(
    db,
    selectPublished()
      .where("n.organization_id", "=", organizationId)
      .where((eb) => eb.or([eb("n.notice_id", "=", preferred), eb("n.notice_key", "=", fallbackKey)]))
      .orderBy(sql`(n.notice_id = ${preferred})`, "desc")
      .limit(1),
  );
  return row && toPublishedVersion(row);
}

/**
 * The published versions of the organisation, oldest notice first (its creation time, then id),
 * each with that sort key; with `read`, at most `read.limit` after the key `read.after`.
 */
export async function listPublishedVersions(
  db: Queryable,
  organizationId: string,
  read?: { after?: readonly [number, string] | undefined; limit: number },
): Promise<{ key: [number, string]; version: StoredVersion }[]> {
  let query = selectPublished()
    .select("n.created_at as notice_created_at")
    .where("n.organization_id", "=", organizationId);
  const after = read?.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("n.created_at", "n.notice_id"), ">", eb.tuple(...after)));
  if (read) query = query.limit(read.limit);
  const found = await rows(db, query.orderBy("n.created_at").orderBy("n.notice_id"));
  return found.map((row) => ({
    key: [row.notice_created_at, row.notice_id],
    version: toPublishedVersion(row),
  }));
}

// Drafts (at most one per notice; not evidence, so replaced and deleted freely).

/** The notice's draft, if it has one. */
export async function readDraft(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<StoredDraft | undefined> {
  const row = await first(
    db,
    selectDrafts().where("d.organization_id", "=", organizationId).where("d.notice_id", "=", noticeId),
  );
  return row && toStoredDraft(row);
}

/** The drafts of the organisation's notices (or of the one named). */
export async function listDrafts(
  db: Queryable,
  organizationId: string,
  noticeId?: string,
): Promise<StoredDraft[]> {
  const found = await rows(
    db,
    selectDrafts()
      .where("d.organization_id", "=", organizationId)
      .$if(noticeId !== undefined, (q) => q.where("d.notice_id", "=", noticeId!)),
  );
  return found.map(toStoredDraft);
}

/** Creates or replaces the notice's draft. */
export async function writeDraft(
  tx: Queryable,
  organizationId: string,
  noticeId: string,
  draft: {
    itemized: NoticeItemizedPurpose[];
    content: Record<string, Partial<NoticeLanguageContent>>;
  },
  staffId: string | null,
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .insertInto("notice_drafts")
      .values({
        organization_id: organizationId,
        notice_id: noticeId,
        itemized: JSON.stringify(draft.itemized),
        content: JSON.stringify(draft.content),
        languages: JSON.stringify(Object.keys(draft.content)),
        created_at: now,
        updated_at: now,
        updated_by: staffId,
      })
      .onConflict((oc) =>
        oc.columns(["organization_id", "notice_id"]).doUpdateSet((eb) => ({
          itemized: eb.ref("excluded.itemized"),
          content: eb.ref("excluded.content"),
          languages: eb.ref("excluded.languages"),
          updated_at: eb.ref("excluded.updated_at"),
          updated_by: eb.ref("excluded.updated_by"),
        })),
      ),
  );
}

/** Deletes the notice's draft; false when it had none. */
export async function deleteDraft(tx: Queryable, organizationId: string, noticeId: string): Promise<boolean> {
  const deleted = await rows(
    tx,
    qb
      .deleteFrom("notice_drafts")
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .returning("notice_id"),
  );
  return deleted.length > 0;
}

/**
 * What a new consent is given against: the notice's published version and its itemised purposes;
 * null when the organisation has the notice but nothing published, undefined when it has no such
 * notice. One statement, for the consent routes.
 */
export async function publishedItemization(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<{ version: number; itemized: NoticeItemizedPurpose[] } | null | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("notices as n")
      .leftJoin("notice_versions as v", (join) =>
        join
          .onRef("v.organization_id", "=", "n.organization_id")
          .onRef("v.notice_id", "=", "n.notice_id")
          .on("v.status", "=", "published"),
      )
      .select(["v.version", "v.itemized"])
      .where("n.organization_id", "=", organizationId)
      .where("n.notice_id", "=", noticeId),
  );
  if (!row) return undefined;
  if (row.version === null || row.itemized === null) return null;
  return { version: row.version, itemized: row.itemized as NoticeItemizedPurpose[] };
}

/** The itemised purposes of one version of a notice; undefined when there is no such version. */
export async function versionItemization(
  db: Queryable,
  organizationId: string,
  noticeId: string,
  version: number,
): Promise<NoticeItemizedPurpose[] | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("notice_versions")
      .select("itemized")
      .where("organization_id", "=", organizationId)
      .where("notice_id", "=", noticeId)
      .where("version", "=", version),
  );
  return row && (row.itemized as NoticeItemizedPurpose[]);
}

/**
 * The named versions of the organisation's notices (each a notice id and version), by notice then
 * version; unknown ones are left out. Used by the rights domain's summary of a principal's data.
 */
export async function readVersions(
  db: Queryable,
  organizationId: string,
  keys: readonly { noticeId: string; version: number }[],
): Promise<StoredVersion[]> {
  if (keys.length === 0) return [];
  const noticeIds = keys.map((k) => k.noticeId);
  const versions = keys.map((k) => k.version);
  const found = await rows(
    db,
    selectVersions()
      .where("v.organization_id", "=", organizationId)
      .where(
        sql<boolean>`(v.notice_id, v.version) IN (SELECT * FROM unnest(${noticeIds}::text[], ${versions}::int[]))`,
      )
      .orderBy("v.notice_id")
      .orderBy("v.version"),
  );
  return found.map(toStoredVersion);
}
