// Loading what the banner shows: the organisation (by slug), then in parallel the banner settings
// for this host and the notice (BANNER-SPEC "Loading sequence"). A host the organisation has not
// registered gets no CORS grant, so its requests fail like a network error: the caller shows no
// banner and warns once.
import type { GuardClient } from "../../sdks/js/src/index.js";
import type { BannerNotice, BannerSettings } from "./types.js";

export interface LoadedConfig {
  organizationId: string;
  notice: BannerNotice;
  settings: BannerSettings;
}

/** The notice to show from a page of published notices: key `default`, else the first. */
export function pickNotice(notices: readonly BannerNotice[]): BannerNotice | undefined {
  return notices.find((notice) => notice.key === "default") ?? notices[0];
}

/** The notice's languages: its `languages` list, else the keys of its content. */
export const noticeLanguages = (notice: BannerNotice): string[] =>
  notice.languages && notice.languages.length > 0 ? notice.languages : Object.keys(notice.content);

// One quick attempt per read: the visitor is on the page now, and a banner that never appears
// leaves every tagged tag blocked (safe); the next page view tries again.
const READ = { maxRetries: 0, timeoutMs: 10_000 };

export async function loadConfig(
  client: GuardClient,
  slug: string,
  noticeId: string | undefined,
  hostname: string,
): Promise<LoadedConfig | undefined> {
  const org = await client.getOrganization(slug, READ);
  const [banner, notice] = await Promise.all([
    client.getBannerConfig(org.orgId, { domain: hostname }, READ),
    noticeId === undefined
      ? client.getNotices(org.orgId, { limit: 100 }, READ).then((page) => pickNotice(page.notices))
      : client.getNotice(noticeId, READ).then((found) =>
          // A notice id of another organisation is a mistake in the page, never shown.
          found.organizationId === org.orgId ? found : undefined,
        ),
  ]);
  if (!notice || notice.itemized.length === 0) return undefined;
  return {
    organizationId: org.orgId,
    notice,
    settings: (banner.bannerSettings ?? {}) as BannerSettings,
  };
}
