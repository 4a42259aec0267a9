// The published version a new consent is given against, read on every capture: served from a
// per-instance cache that every change of a published version announces (topic `notices`, in
// store.ts, inside the publishing or archiving transaction). "Published nothing" is cached like a
// version, since publishing announces too; an unknown notice id is never stored, so probing with
// made-up ids cannot fill the cache.
import type { Queryable } from "../db/database.js";
import { processInvalidations } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import type { NoticeItemizedPurpose } from "./notices.js";
import { publishedItemization } from "./store.js";

export type PublishedItemization = { version: number; itemized: NoticeItemizedPurpose[] } | null;

// Read from code handed only `db` (consent capture), so it listens to every feed of the process.
const cache = new ReadThroughCache<{ organizationId: string; published: PublishedItemization }>(
  processInvalidations,
  { topic: "notices", max: 10_000, ttlMs: 60_000 },
);

/**
 * The notice's published version and its itemised purposes; null when the organisation has the
 * notice but nothing published, undefined when it has no such notice.
 */
export async function currentItemization(
  db: Queryable,
  organizationId: string,
  noticeId: string,
): Promise<PublishedItemization | undefined> {
  // The separator cannot occur in either id, so no two pairs share a key.
  const entry = await cache.get(`${organizationId} ${noticeId}`, async () => {
    const published = await publishedItemization(db, organizationId, noticeId);
    return published === undefined ? undefined : { organizationId, published };
  });
  return entry?.published;
}
