// Group commit for one route's writes (issue 25). Requests that arrive while earlier groups are
// being written wait in a queue; the next group takes all of them (up to `maxItems`) and writes them
// in one transaction: the route's own multi-row statements, and for keyed requests one statement
// that stores every Idempotency-Key with its answer. Per-statement and per-commit
// costs are then paid per group instead of per request, and the commit (a WAL flush) is shared.
//
// Groups leave as lib/group-commit.ts sends them: no timer, so an idle server adds no delay and a
// busy one batches by itself.
//
// What a group cannot write in its statements goes alone: every item of a group one of whose keys
// another request holds, a second item with the same key, an item the route's group write declines (e.g. a consent the
// insert refused because one is active), or every item of a group whose transaction failed. Such an
// item is written afterwards through the route's ordinary `write` (its own transaction, key claim
// and answer), which gives it exactly the answer it would have had without grouping: a replay, a
// conflict, a failure of its own. A group is therefore never an item's only chance, and one item's
// failure never fails the others.
import type { Database, Queryable } from "./database.js";
import type { Clock } from "../lib/clock.js";
import { GroupCommit } from "../lib/group-commit.js";

/** What a route's group write answers for one item: its value, or ALONE to write it by itself. */
export const ALONE = Symbol("write alone");
export type GroupAnswer<T> = T | typeof ALONE;

/** The idempotency side of a group (http/idempotency.ts implements it). */
export interface GroupKeys<K> {
  /**
   * Stores each key with its item's answer in `tx`, after the group's writes; per key, whether it
   * was stored (false: another request holds the key, or held it first while this group wrote).
   */
  claimAnswered(
    tx: Queryable,
    answers: readonly { key: K; value: unknown }[],
    now: number,
  ): Promise<boolean[]>;
  /** Two items with the same identity cannot both be stored in one statement. */
  identity(key: K): string;
}

/** A key another request holds: the group rolls back, and each of its items is written alone. */
class KeyHeldElsewhere extends Error {}

export interface WriteGroupOptions<I, T> {
  /**
   * Writes the items in `tx`, one transaction for the group, and answers per item in order. Throws
   * only for what fails the whole group (the items then go alone); an item the statements cannot
   * write is answered ALONE.
   */
  write(tx: Queryable, items: readonly I[], now: number): Promise<GroupAnswer<T>[]>;
  /** Items per group (bounds a statement's size). */
  maxItems?: number;
  /** Groups written at once, each on its own connection. */
  maxGroupsInFlight?: number;
}

/** An item's outcome in its group: written (with its value) or to be written alone. */
export type GroupOutcome<T> = { written: true; value: T } | { written: false };

interface Entry<I> {
  item: I;
  key: unknown;
  keys: GroupKeys<unknown> | undefined;
}

export class WriteGroup<I, T> {
  private readonly groups: GroupCommit<Entry<I>, GroupOutcome<T>>;

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly options: WriteGroupOptions<I, T>,
  ) {
    this.groups = new GroupCommit((entries) => this.writeGroup(entries), {
      maxGroupSize: options.maxItems ?? 256,
      maxInFlight: options.maxGroupsInFlight ?? 2,
    });
  }

  /**
   * Queues `item` for the next group, with its Idempotency-Key when the request carries one.
   * Never rejects: a failure is `{ written: false }`, to be written alone.
   */
  submit<K>(item: I, keyed?: { key: K; keys: GroupKeys<K> }): Promise<GroupOutcome<T>> {
    return this.groups.submit({ item, key: keyed?.key, keys: keyed?.keys as GroupKeys<unknown> | undefined });
  }

  private async writeGroup(entries: Entry<I>[]): Promise<GroupOutcome<T>[]> {
    try {
      return await this.db.transaction((tx) => this.writeEntries(tx, entries));
    } catch {
      // The whole group rolled back (a deadlock, a lost connection, an unexpected error): each item
      // is written alone, and whatever made the group fail then fails only the items it concerns.
      return entries.map(() => ({ written: false }));
    }
  }

  private async writeEntries(tx: Queryable, entries: Entry<I>[]): Promise<GroupOutcome<T>[]> {
    const now = this.clock.now();
    const writable = this.firstOfEachKey(entries);
    const answers = await this.options.write(
      tx,
      writable.map((i) => entries[i]!.item),
      now,
    );
    const outcomes: GroupOutcome<T>[] = entries.map(() => ({ written: false }));
    const answered = new Map<GroupKeys<unknown>, { key: unknown; value: unknown }[]>();
    writable.forEach((index, j) => {
      const entry = entries[index]!;
      const answer = answers[j];
      if (answer === undefined) throw new Error("a group write must answer every item");
      if (answer === ALONE) return;
      outcomes[index] = { written: true, value: answer };
      if (entry.keys) push(answered, entry.keys, { key: entry.key, value: answer });
    });
    // Keys are stored after the writes, with their answers, in one statement: a key is almost
    // never held elsewhere (a replay of a finished request is answered before its handler runs),
    // so the group does not pay a claim and an update per key for the rare retry that races its
    // original. When one is held, the whole group rolls back and each item is written alone,
    // where the key's own claim waits for the holder and replays or conflicts as it should.
    for (const [keys, list] of answered) {
      // Stored in one order by every group, so two groups never wait on each other's keys.
      list.sort((a, b) => compare(keys.identity(a.key), keys.identity(b.key)));
      const stored = await keys.claimAnswered(tx, list, now);
      if (stored.includes(false)) throw new KeyHeldElsewhere();
    }
    return outcomes;
  }

  /** The entries the group writes: all but a second entry with a key already in the group. */
  private firstOfEachKey(entries: Entry<I>[]): number[] {
    const writable: number[] = [];
    const seen = new Set<string>();
    entries.forEach((entry, i) => {
      if (entry.keys) {
        const identity = entry.keys.identity(entry.key);
        if (seen.has(identity)) return; // alone, after the first commits: then a replay
        seen.add(identity);
      }
      writable.push(i);
    });
    return writable;
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * A group whose items are written together by `writeMany`, the multi-row form of the write that
 * also writes an item alone. An item `check` refuses (throws for) goes alone, where the same check
 * fails its request with its own error and the rest of the group is written without it.
 */
export function batchWriteGroup<I, T>(
  db: Database,
  clock: Clock,
  check: (item: I) => void,
  writeMany: (tx: Queryable, items: readonly I[], now: number) => Promise<T[]>,
): WriteGroup<I, T> {
  return new WriteGroup<I, T>(db, clock, {
    async write(tx, items, now) {
      const writable = items.map((item) => {
        try {
          check(item);
          return true;
        } catch {
          return false;
        }
      });
      const written = await writeMany(
        tx,
        items.filter((_, i) => writable[i]),
        now,
      );
      let next = 0;
      return items.map((_, i) => (writable[i] ? written[next++]! : ALONE));
    },
  });
}
