// The notice the hosted banner shows by default: the published notice with key `default`, else the
// first published notice (banner/README.md, `data-notice`), read through the staff routes.
import { api, ok, type Schemas } from "../../api/client.js";
import type { PreviewNotice } from "../../ui/banner-preview/index.js";

export interface PublishedNotice {
  key: string;
  version: number;
  notice: PreviewNotice;
}

export async function loadDefaultNotice(): Promise<PublishedNotice | null> {
  const summaries: Schemas["StaffNoticeSummary"][] = [];
  let cursor: string | undefined;
  do {
    const page = await ok(
      api.GET("/api/v1/staff/notices", { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }),
    );
    summaries.push(...page.notices);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  const published = summaries.filter((n) => n.publishedVersion !== null);
  const chosen = published.find((n) => n.key === "default") ?? published[0];
  if (!chosen) return null;
  const detail = await ok(
    api.GET("/api/v1/staff/notices/{noticeId}", { params: { path: { noticeId: chosen.noticeId } } }),
  );
  const version = detail.versions.find((v) => v.version === chosen.publishedVersion);
  if (!version) return null;
  return {
    key: detail.key,
    version: version.version,
    notice: {
      itemized: version.itemized,
      content: version.content,
      languages:
        version.languages && version.languages.length > 0 ? version.languages : Object.keys(version.content),
    },
  };
}
