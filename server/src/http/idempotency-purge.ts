// The background job that deletes expired idempotency keys (their 24-hour window over), so no
// request pays for the cleanup. Every instance runs one; they share the work safely, since each
// batch skips the keys another session holds (idempotency.ts purgeExpiredKeys). Each batch is its
// own statement and commit, so a purge never holds many row locks or a long transaction.
import type { Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { purgeExpiredKeys } from "./idempotency.js";

export interface IdempotencyPurgeOptions {
  db: Queryable;
  clock: Clock;
  /** Between runs, ms; default a minute. */
  intervalMs?: number;
  /** Keys deleted per statement; default 1000. */
  batch?: number;
  onError?: (error: unknown) => void;
}

/**
 * Deletes every key expired at `now`, in batches of `batch`, until none is left or `stopping` says
 * so (between batches, so a shutdown does not wait for a long backlog); how many it deleted.
 */
export async function purgeAllExpiredKeys(
  db: Queryable,
  now: number,
  batch: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await purgeExpiredKeys(db, now, batch);
    total += deleted;
    // A short batch means nothing expired is left that no one else is deleting.
    if (deleted < batch || stopping()) return total;
  }
}

/** Runs the purge now and every `intervalMs` until stopped; a failed run is reported and retried next time. */
export function startIdempotencyPurge(options: IdempotencyPurgeOptions): PeriodicJob {
  const batch = options.batch ?? 1000;
  return startPeriodicJob({
    run: (stopping) => purgeAllExpiredKeys(options.db, options.clock.now(), batch, stopping),
    intervalMs: options.intervalMs ?? 60_000,
    onError: options.onError,
  });
}
