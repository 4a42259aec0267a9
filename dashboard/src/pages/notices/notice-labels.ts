// Words for a notice's lifecycle, shared by the list and the detail page.
import type { Schemas } from "../../api/client.js";

export const STATUS_LABELS: Record<Schemas["StaffNoticeSummary"]["status"], string> = {
  draft: "Never published",
  published: "Published",
  archived: "Archived",
};

export const VERSION_STATUS_LABELS: Record<Schemas["StaffNoticeVersionSummary"]["status"], string> = {
  draft: "Draft",
  published: "Published (current)",
  superseded: "Superseded",
  archived: "Archived",
};

/** When the notice last changed: its draft, else its newest version's last lifecycle event. */
export function lastChange(notice: Schemas["StaffNoticeSummary"]): number {
  const times = [notice.createdAt, notice.draft?.updatedAt ?? null];
  for (const v of notice.versions) times.push(v.publishedAt, v.supersededAt, v.archivedAt);
  return Math.max(...times.filter((t): t is number => typeof t === "number"));
}
