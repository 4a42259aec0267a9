// Cursor paging for list routes. A page is the items after a position in the list's fixed order;
// the position (the last item's sort key, which always ends with the item's id) travels as an
// opaque cursor. Because the key is a position rather than an offset, an item inserted or removed
// elsewhere during a walk neither repeats nor skips the others.
//
// A cursor is `<key>.<check>`: the key as base64url JSON, and a truncated SHA-256 over the list's
// scope (route, organisation and, for a principal's own lists, the principal) and the key. A cursor
// from another list, another tenant, or edited by hand fails the check and is refused as
// VALIDATION_ERROR on `cursor`. The check is not a secret: the organisation filter in every query is
// what keeps tenants apart; the check only makes a wrong cursor an error instead of a silent jump.
import { createHash } from "node:crypto";
import { validationError } from "./failure.js";

/** Page size when the caller gives none, and the most a page holds (larger limits are clamped). */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

export type SortKey = readonly (string | number)[];
/** The JSON type of each element of a list's sort key, checked when a cursor is read. */
export type KeyShape = readonly ("string" | "number")[];

export interface PageRequest {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export interface Page<T> {
  items: T[];
  /** Pass back as `cursor` for the next page; null on the last page. */
  nextCursor: string | null;
}

/** Who a cursor belongs to: one list of one tenant (and principal, for a principal's own lists). */
export const pageScope = (route: string, ...owners: string[]): string => [route, ...owners].join("\n");

const check = (scope: string, key: string): string =>
  createHash("sha256").update(scope).update("\n").update(key).digest().subarray(0, 9).toString("base64url");

export function encodeCursor(scope: string, key: SortKey): string {
  const encoded = Buffer.from(JSON.stringify(key)).toString("base64url");
  return `${encoded}.${check(scope, encoded)}`;
}

const badCursor = () =>
  validationError("cursor", "cursor must be the nextCursor of an earlier page of this list");

/** The sort key a cursor names; VALIDATION_ERROR (`cursor`) unless this list issued it. */
export function decodeCursor(scope: string, cursor: string, shape: KeyShape): SortKey {
  const dot = cursor.indexOf(".");
  if (dot <= 0) throw badCursor();
  const encoded = cursor.slice(0, dot);
  if (cursor.slice(dot + 1) !== check(scope, encoded)) throw badCursor();
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(encoded, "base64url").toString("utf8"));
  } catch {
    throw badCursor();
  }
  if (!Array.isArray(key) || key.length !== shape.length) throw badCursor();
  key.forEach((part, i) => {
    if (typeof part !== shape[i] || (typeof part === "number" && !Number.isSafeInteger(part)))
      throw badCursor();
  });
  return key as SortKey;
}

/** The page size for a requested limit: the default when absent, at most MAX_PAGE_SIZE. */
export const pageSize = (
  limit: number | undefined,
  defaults = { size: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE },
) => Math.min(limit ?? defaults.size, defaults.max);

/**
 * A page from rows read with `limit + 1`: the extra row only says whether another page follows.
 * `keyOf` gives a row's sort key, in the order and shape the list's query keys on.
 */
export function pageFromRows<T>(
  rows: T[],
  limit: number,
  scope: string,
  keyOf: (row: T) => SortKey,
): Page<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(scope, keyOf(last)) : null };
}

const compareKeys = (a: SortKey, b: SortKey): number => {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return 0;
};

/**
 * Pages a list read whole: for the lists whose length is set by an organisation's configuration
 * (keys, endpoints, notices, domains), not by its traffic. `keyOf` must give a unique key; with
 * `descending` the list runs from the largest key down. The list is sorted here by that key, so the
 * order and the cursor can never disagree.
 */
export function pageInMemory<T>(
  all: readonly T[],
  request: PageRequest,
  list: { scope: string; shape: KeyShape; keyOf: (item: T) => SortKey; descending?: boolean },
): Page<T> {
  const sign = list.descending ? -1 : 1;
  const keyed = all.map((item) => ({ item, key: list.keyOf(item) }));
  keyed.sort((a, b) => sign * compareKeys(a.key, b.key));
  const after =
    request.cursor === undefined ? undefined : decodeCursor(list.scope, request.cursor, list.shape);
  const rest = after ? keyed.filter((k) => sign * compareKeys(k.key, after) > 0) : keyed;
  const page = pageFromRows(rest, pageSize(request.limit), list.scope, (k) => k.key);
  return { items: page.items.map((k) => k.item), nextCursor: page.nextCursor };
}

/**
 * A page read by keyset from a store: `read` gets the key to start after (undefined on the first
 * page) and how many rows to read (one more than the page, to learn whether another follows).
 */
export async function keysetPage<T, K extends SortKey>(
  request: PageRequest,
  list: {
    scope: string;
    shape: KeyShape;
    keyOf: (item: T) => K;
    defaults?: { size: number; max: number };
  },
  read: (after: K | undefined, limit: number) => Promise<T[]>,
): Promise<Page<T>> {
  const after =
    request.cursor === undefined ? undefined : (decodeCursor(list.scope, request.cursor, list.shape) as K);
  const limit = pageSize(request.limit, list.defaults);
  return pageFromRows(await read(after, limit + 1), limit, list.scope, list.keyOf);
}
