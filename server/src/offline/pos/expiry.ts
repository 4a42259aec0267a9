// The background job that moves pending POS requests past their 72 hours to `expired`, where staff
// find them (listPosConsentRequests). Every instance runs one; they share the work safely, since
// each batch claims rows with FOR UPDATE SKIP LOCKED (store.ts claimExpiredPosRequests) and marks
// them in the same statement, each batch in its own short transaction with its chain entries.
// The job only keeps the queue current: the page and the close route apply the deadline themselves,
// so a request is never answerable after it whether or not the job has run.
import type { Database } from "../../db/database.js";
import type { Clock } from "../../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../../lib/periodic-job.js";
import { expireDuePosRequests } from "./requests.js";

const BATCH = 200;

/** Expires every pending request past its deadline at `now`; how many it expired. */
export async function sweepExpiredPosRequests(
  db: Database,
  now: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  for (;;) {
    const count = await db.transaction((tx) => expireDuePosRequests(tx, now, BATCH));
    total += count;
    // A short batch means nothing due is left that no one else is expiring.
    if (count < BATCH || stopping()) return total;
  }
}

/** Runs the sweep now and every `intervalMs` (default a minute) until stopped. */
export function startPosExpirySweep(options: {
  db: Database;
  clock: Clock;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    run: (stopping) => sweepExpiredPosRequests(options.db, options.clock.now(), stopping),
    intervalMs: options.intervalMs ?? 60_000,
    onError: options.onError,
  });
}
