// Notice routes. Public reads serve published versions only (drafts, archived notices and other
// organisations' notices are 404). Staff routes run the lifecycle in lifecycle.ts for the
// session's organisation: any role reads, admin and dpo write.
import { findOrganizationById } from "../accounts/store.js";
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { notFound } from "../lib/failure.js";
import { pageInMemory, pageScope } from "../lib/paging.js";
import { NOTICE_LANGUAGE_LIST } from "./languages.js";
import {
  archiveNotice,
  createNoticeIn,
  discardDraft,
  listStaffNotices,
  previewDraft,
  publishDraft,
  readNoticeVersion,
  saveDraft,
  type NoticeDraftRecord,
  type NoticeVersionRecord,
  type StaffNotice,
} from "./lifecycle.js";
import {
  findPublishedNotice,
  isPublishable,
  listPublishedNotices,
  noticeBody,
  noticeProblems,
  parseDraftContent,
  parseNoticeKey,
  type NoticeLanguageContent,
  type NoticeVersion,
} from "./notices.js";

const WRITERS = ["admin", "dpo"] as const;
const TEXT_FIELDS = ["title", "body", "withdrawal", "rights", "complaint"] as const;

const draftBody = (draft: NoticeDraftRecord) => {
  const problems = noticeProblems(draft);
  return {
    noticeId: draft.noticeId,
    key: draft.key,
    itemized: draft.itemized,
    content: draft.content,
    languages: draft.languages,
    createdAt: draft.createdAt,
    updatedAt: draft.updatedAt,
    updatedBy: draft.updatedBy,
    publishable: problems.length === 0,
    problems,
  };
};

const staffVersionBody = (version: NoticeVersionRecord) => ({
  ...noticeBody(version),
  supersededAt: version.supersededAt,
  archivedAt: version.archivedAt,
  publishedBy: version.publishedBy,
  archivedBy: version.archivedBy,
});

const staffNoticeHead = (notice: StaffNotice) => ({
  noticeId: notice.noticeId,
  key: notice.key,
  createdAt: notice.createdAt,
  status: notice.status,
  publishedVersion: notice.publishedVersion,
  latestVersion: notice.latestVersion,
});

const staffNoticeSummary = (notice: StaffNotice) => ({
  ...staffNoticeHead(notice),
  draft: notice.draft && {
    updatedAt: notice.draft.updatedAt,
    updatedBy: notice.draft.updatedBy,
    publishable: noticeProblems(notice.draft).length === 0,
  },
  versions: notice.versions.map((v) => ({
    version: v.version,
    status: v.status,
    languages: v.languages,
    publishedAt: v.publishedAt,
    supersededAt: v.supersededAt,
    archivedAt: v.archivedAt,
    publishedBy: v.publishedBy,
  })),
});

export const noticeRoutes: RouteModule = ({ db, clock }) => [
  {
    operationId: "getNoticesForOrg",
    handler: async (request) => {
      const { orgId } = request.params;
      if (!(await findOrganizationById(db, orgId))) throw notFound("No such organisation");
      const page = await listPublishedNotices(db, orgId, request.query);
      return { notices: page.items.map(noticeBody), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "getNoticeById",
    handler: async (request) => {
      const { noticeId } = request.params;
      const notice = await findPublishedNotice(db, noticeId);
      if (!notice) throw notFound("No such published notice");
      return noticeBody(notice);
    },
  },
  {
    operationId: "getNoticeLanguages",
    handler: async () => ({ languages: [...NOTICE_LANGUAGE_LIST] }),
  },
  {
    operationId: "listStaffNotices",
    handler: async (request) => {
      const { organizationId } = staffOf(request);
      // An organisation's notices are few (one per purpose set), so the list is read whole and paged here.
      const page = pageInMemory(await listStaffNotices(db, organizationId), request.query, {
        scope: pageScope("listStaffNotices", organizationId),
        shape: ["number", "string"],
        keyOf: (notice) => [notice.createdAt, notice.noticeId],
      });
      return { notices: page.items.map(staffNoticeSummary), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "createStaffNotice",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, { write }) => {
      const staff = staffOf(request);
      const key = parseNoticeKey(request.body.key);
      const draft = parseDraftContent(request.body);
      return write(async (tx) =>
        draftBody(await createNoticeIn(tx, staff.organizationId, { key, draft }, staff.staffId, clock.now())),
      );
    },
  },
  {
    operationId: "getStaffNotice",
    handler: async (request) => {
      const { noticeId } = request.params;
      const [notice] = await listStaffNotices(db, staffOf(request).organizationId, { noticeId });
      if (!notice) throw notFound("No such notice in this organisation");
      return {
        ...staffNoticeHead(notice),
        draft: notice.draft && draftBody(notice.draft),
        versions: notice.versions.map(staffVersionBody),
      };
    },
  },
  {
    operationId: "saveNoticeDraft",
    roles: WRITERS,
    handler: async (request) => {
      const staff = staffOf(request);
      const { noticeId } = request.params;
      const draft = parseDraftContent(request.body);
      return draftBody(
        await saveDraft(db, staff.organizationId, noticeId, draft, staff.staffId, clock.now()),
      );
    },
  },
  {
    operationId: "discardNoticeDraft",
    roles: WRITERS,
    handler: async (request) => {
      const { noticeId } = request.params;
      return { discarded: await discardDraft(db, staffOf(request).organizationId, noticeId) };
    },
  },
  {
    operationId: "previewNoticeDraft",
    handler: async (request) => {
      const staff = staffOf(request);
      const { noticeId } = request.params;
      const preview = await previewDraft(db, staff.organizationId, noticeId);
      const { draft } = preview;
      const renderings = draft.languages.map((language) => {
        const info = NOTICE_LANGUAGE_LIST.find((l) => l.code === language)!;
        const text: Partial<NoticeLanguageContent> = draft.content[language] ?? {};
        return {
          language,
          name: info.name,
          nativeName: info.nativeName,
          direction: info.direction,
          ...text,
          itemized: draft.itemized,
          missing: TEXT_FIELDS.filter((field) => text[field] === undefined),
        };
      });
      // A complete draft is also shown as the notice publishing it would create.
      const notice: NoticeVersion | undefined = isPublishable(draft)
        ? {
            noticeId,
            organizationId: staff.organizationId,
            version: preview.nextVersion,
            status: "draft",
            itemized: draft.itemized,
            content: draft.content,
            languages: draft.languages,
            publishedAt: null,
          }
        : undefined;
      return {
        noticeId,
        nextVersion: preview.nextVersion,
        unchanged: preview.unchanged,
        publishable: preview.problems.length === 0,
        problems: preview.problems,
        renderings,
        ...(notice ? { notice: noticeBody(notice) } : {}),
      };
    },
  },
  {
    operationId: "publishNoticeDraft",
    roles: WRITERS,
    handler: async (request) => {
      const staff = staffOf(request);
      const { noticeId } = request.params;
      const published = await publishDraft(db, staff.organizationId, noticeId, staff.staffId, clock.now());
      const version = await readNoticeVersion(db, staff.organizationId, noticeId, published.version);
      return { ...published, notice: noticeBody(version!) };
    },
  },
  {
    operationId: "archiveStaffNotice",
    roles: WRITERS,
    handler: async (request) => {
      const staff = staffOf(request);
      const { noticeId } = request.params;
      const archived = await archiveNotice(db, staff.organizationId, noticeId, staff.staffId, clock.now());
      return staffVersionBody(archived);
    },
  },
];
