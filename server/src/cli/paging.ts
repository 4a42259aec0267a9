// The command line prints whole lists: a paged rules function (lib/paging.ts) walked to its end,
// one page of the largest size at a time, so no single query grows with the organisation.
import { MAX_PAGE_SIZE, type Page, type PageRequest } from "../lib/paging.js";

/** Every item of a paged list, in its order. */
export async function everyItem<T>(read: (request: PageRequest) => Promise<Page<T>>): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read({ cursor, limit: MAX_PAGE_SIZE });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return items;
}
