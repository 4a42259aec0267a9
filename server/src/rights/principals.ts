// The principals that rights records belong to are the accounts domain's: records name them by
// principal id, and the externalId that the wire and the events show is read from there.
import { findPrincipalsByIds } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";

type PrincipalKey = { organizationId: string; principalId: string };

/** The items, each with its principal's externalId (read in one go). */
export async function withExternalIds<T extends PrincipalKey>(
  db: Queryable,
  items: readonly T[],
): Promise<(T & { externalId: string })[]> {
  const key = (k: PrincipalKey) => `${k.organizationId}\u0000${k.principalId}`;
  const unique = new Map(items.map((item) => [key(item), item]));
  const found = await findPrincipalsByIds(db, [...unique.values()]);
  const externalIds = new Map(found.map((p) => [key(p), p.externalId]));
  return items.map((item) => {
    const externalId = externalIds.get(key(item));
    // Every rights table references principals by a foreign key: a missing one is a broken invariant.
    if (externalId === undefined) throw new Error(`principal ${item.principalId} does not exist`);
    return { ...item, externalId };
  });
}

/**
 * withExternalIds for records filed by callers who may already know each principal's external id
 * (a principal's token names it): reads only the ones not given. `known[i]` goes with `items[i]`.
 */
export async function withKnownExternalIds<T extends PrincipalKey>(
  db: Queryable,
  items: readonly T[],
  known: readonly { externalId?: string | undefined }[],
): Promise<(T & { externalId: string })[]> {
  const unknown = items.filter((_, i) => known[i]!.externalId === undefined);
  const read = unknown.length === 0 ? [] : await withExternalIds(db, unknown);
  let next = 0;
  return items.map((item, i) => {
    const externalId = known[i]!.externalId;
    return externalId === undefined ? read[next++]! : { ...item, externalId };
  });
}
