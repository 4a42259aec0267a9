// Public notice reads: published notices only; drafts and other organisations' notices are 404.
import { findOrganizationById } from "../accounts/organizations.js";
import type { RouteModule } from "../http/app.js";
import { notFound } from "../http/errors.js";
import { findPublishedNotice, listPublishedNotices, noticeBody } from "./notices.js";

export const noticeRoutes: RouteModule = ({ db }) => [
  {
    operationId: "getNoticesForOrg",
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      if (!(await findOrganizationById(db, orgId))) throw notFound("No such organisation");
      return { notices: (await listPublishedNotices(db, orgId)).map(noticeBody) };
    },
  },
  {
    operationId: "getNoticeById",
    handler: async (request) => {
      const { noticeId } = request.params as { noticeId: string };
      const notice = await findPublishedNotice(db, noticeId);
      if (!notice) throw notFound("No such published notice");
      return noticeBody(notice);
    },
  },
];
