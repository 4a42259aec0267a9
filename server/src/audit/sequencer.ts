// The audit chain's sequencer. Writers queue entries in their own transactions (chain.ts); the
// sequencer gives committed entries their positions and hashes, in batches, the way a transparency
// log merges its queue: one transaction per organisation and batch locks the chain head, reads the
// oldest queued entries, writes them to the chain linked one to the next, deletes exactly them from
// the queue and moves the head. Either all of that commits or none of it does, so a crash anywhere
// leaves the entries queued for the next pass. Linking one entry twice, or giving one position
// twice, is refused by the link statements themselves even for a buggy caller: they fail unless
// every entry was still queued and the head still where the batch began (store.ts `linkEntries`;
// the chain is partitioned by month, so its unique indexes hold within a month: README.md).
//
// Every instance runs one (server.ts). It runs when this process commits queued entries (a wake,
// coalesced: a pass starts `LINK_GATHER_MS` after the first commit and links the organisations
// whose entries were committed by then or while the previous pass ran) and every `intervalMs` in
// any case, sweeping every organisation with queued entries, which picks up entries another
// instance queued and left behind (it crashed). Only the sweep asks the database which
// organisations have entries: over a queue that churns, that question costs far more than linking
// (bench/README.md, "Write path"), so it is asked once an interval, not on every wake. A session
// that finds an organisation's head locked leaves that organisation to whoever holds it.
//
// Order: entries of one organisation are linked in reference order among those committed. A write
// that depends on an earlier one (a withdrawal of a consent) starts after that one committed, so
// its reference is higher and it is linked after it; only writes that were concurrent (neither saw
// the other) may be linked in either order.
import { setTimeout as sleep } from "node:timers/promises";
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { entryHash, GENESIS_HASH, onEntryQueued } from "./chain.js";
import {
  countQueuedEntries,
  linkEntries,
  lockChainHeadUnlessBusy,
  organizationsWithQueuedEntries,
  readQueuedEntries,
  type ChainHead,
  type StoredAuditEntry,
} from "./store.js";

/** Entries linked per transaction. */
export const LINK_BATCH = 500;

/** How often every instance looks for entries left queued (by itself or another instance). */
export const SEQUENCER_INTERVAL_MS = 1_000;

/** Organisations one sweep reads; any beyond are found by the next. */
const SWEEP_ORGANIZATIONS = 1_000;

/**
 * How long a pass waits after the first commit that wakes it, so that one pass (one transaction,
 * one WAL flush) links the entries of the commits that follow closely rather than one each.
 */
export const LINK_GATHER_MS = 5;

/**
 * Links up to `limit` of the organisation's oldest queued entries in one transaction. How many it
 * linked, or "busy" when another session holds the head (and is linking them).
 */
export async function linkQueuedEntries(
  db: Database,
  organizationId: string,
  now: number,
  limit = LINK_BATCH,
): Promise<number | "busy"> {
  return db.transaction(async (tx) => {
    const head = await lockChainHeadUnlessBusy(tx, organizationId, GENESIS_HASH, now);
    if (head === "busy") return "busy";
    return (await linkBatch(tx, organizationId, head, limit)).linked;
  });
}

/** Links up to `limit` queued entries after `head`, which `tx` holds locked; the new head. */
async function linkBatch(
  tx: Queryable,
  organizationId: string,
  head: ChainHead,
  limit: number,
): Promise<{ linked: number; head: ChainHead }> {
  const queued = await readQueuedEntries(tx, organizationId, limit);
  let prevHash = head.lastHash;
  let seq = head.lastSeq;
  const linked: StoredAuditEntry[] = queued.map((entry) => {
    seq += 1;
    const hash = entryHash({ ...entry, prevHash, seq, organizationId });
    const chained = { ...entry, seq, prevHash, entryHash: hash };
    prevHash = hash;
    return chained;
  });
  await linkEntries(tx, organizationId, head, linked);
  return { linked: linked.length, head: { lastSeq: seq, lastHash: prevHash } };
}

/**
 * Links everything queued for the organisation inside `tx`, which already holds its chain head
 * (`lockChainHeadUnlessBusy`): for work that must see the whole chain under the head's lock (the
 * log-retention purge, audit/purge.ts). The new head.
 */
export async function linkQueuedUnderLock(
  tx: Queryable,
  organizationId: string,
  head: ChainHead,
): Promise<ChainHead> {
  let current = head;
  for (;;) {
    const batch = await linkBatch(tx, organizationId, current, LINK_BATCH);
    current = batch.head;
    if (batch.linked < LINK_BATCH) return current;
  }
}

/**
 * Links everything queued for each of the organisations; how many entries it linked, and the
 * organisations whose head another session held (left to that session).
 */
export async function linkOrganizations(
  db: Database,
  organizationIds: Iterable<string>,
  now: number,
): Promise<{ linked: number; busy: string[] }> {
  let linked = 0;
  const busy: string[] = [];
  for (const organizationId of organizationIds) {
    for (;;) {
      const result = await linkQueuedEntries(db, organizationId, now);
      if (result === "busy") {
        busy.push(organizationId);
        break;
      }
      linked += result;
      if (result < LINK_BATCH) break;
    }
  }
  return { linked, busy };
}

/** One pass over every organisation with queued entries. */
export async function linkAllQueued(
  db: Database,
  now: number,
): Promise<{ linked: number; busyOrganizations: number }> {
  const { linked, busy } = await linkOrganizations(
    db,
    await organizationsWithQueuedEntries(db, SWEEP_ORGANIZATIONS),
    now,
  );
  return { linked, busyOrganizations: busy.length };
}

/**
 * Links everything the organisation had queued when called (and what is queued meanwhile), waiting
 * for another session that holds the head. For readers that need positions: `guard audit verify`,
 * the staff lookup. Gives up with an error after `timeoutMs`.
 */
export async function linkQueuedOf(
  db: Database,
  organizationId: string,
  now: number,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while ((await countQueuedEntries(db, organizationId)) > 0) {
    const result = await linkQueuedEntries(db, organizationId, now);
    if (result !== "busy") continue;
    if (Date.now() > deadline)
      throw new Error("the audit chain head stayed locked; entries are still queued");
    await sleep(5);
  }
}

export interface AuditSequencer {
  /** Stops polling, waits for the pass in flight, then links what is still queued. */
  stop(): Promise<void>;
}

/** Starts this instance's sequencer (see the top of this file). */
export function startAuditSequencer(options: {
  db: Database;
  clock: Clock;
  intervalMs?: number;
  gatherMs?: number;
  onError?: (error: unknown) => void;
}): AuditSequencer {
  const { db, clock } = options;
  const intervalMs = options.intervalMs ?? SEQUENCER_INTERVAL_MS;
  const gatherMs = options.gatherMs ?? LINK_GATHER_MS;
  let running: Promise<void> | undefined;
  let gathering: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = false;
  // Organisations whose entries this process committed since the last pass took them.
  const woken = new Set<string>();
  // The first pass sweeps: entries a killed process left are linked at start.
  let sweepDue = true;

  const pass = async (): Promise<void> => {
    do {
      again = false;
      const sweep = sweepDue;
      sweepDue = false;
      const wokenNow = [...woken];
      woken.clear();
      // Those woken are linked whatever the sweep's bounded read returns.
      const organizations = sweep
        ? new Set([...wokenNow, ...(await organizationsWithQueuedEntries(db, SWEEP_ORGANIZATIONS))])
        : wokenNow;
      const { busy } = await linkOrganizations(db, organizations, clock.now());
      // Whoever holds a busy head may have read its queue before our entries committed: look again.
      if (busy.length > 0 && !stopped) {
        for (const organizationId of busy) woken.add(organizationId);
        await sleep(5);
        again = true;
      }
    } while (again && !stopped);
  };
  const runPass = () => {
    gathering = undefined;
    if (running) {
      again = true;
      return;
    }
    if (stopped) return;
    running = pass()
      .catch((error: unknown) => {
        // What the failed pass took is still queued; the next sweep looks for it again.
        sweepDue = true;
        options.onError?.(error);
      })
      .finally(() => {
        running = undefined;
      });
  };
  // A commit's wake-up starts a pass a moment later (gathering the commits that follow it), or
  // asks the pass in flight to look again.
  const wake = (organizationId: string) => {
    woken.add(organizationId);
    if (running) again = true;
    else gathering ??= setTimeout(runPass, gatherMs);
  };
  const unsubscribe = onEntryQueued(wake);
  const sweepNow = () => {
    sweepDue = true;
    runPass();
  };
  const timer = setInterval(sweepNow, intervalMs);
  timer.unref();
  sweepNow();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(gathering);
      unsubscribe();
      await running;
      await linkAllQueued(db, clock.now()).catch((error: unknown) => options.onError?.(error));
    },
  };
}
