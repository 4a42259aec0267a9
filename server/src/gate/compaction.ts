// The background job that keeps the decision log small on disk (issue 27, item 4): every second
// it moves the runs verify wrote more than a second ago into blocks (store.ts compactDecisions,
// migration 0107), then VACUUMs the runs table so the next seconds of runs reuse its space. Every
// instance runs one; an advisory lock lets one pass run at a time (a skipped pass costs nothing,
// the next one takes what is left). A run is answered from whichever tier holds it, identically,
// so nothing waits for this job; it only decides how long a decision costs a run's row.
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { compactDecisions, vacuumRuns } from "./store.js";

/** Runs are moved once decided this long ago: the runs of one second share a block's row. */
export const COMPACTION_DELAY_MS = 1_000;

export interface DecisionCompactionOptions {
  db: Database;
  clock: Clock;
  /** Between passes, ms; default a second. */
  intervalMs?: number;
  /** Runs moved per statement; default 20 000 (a backlog, such as a migrated log, goes in several). */
  batch?: number;
  onError?: (error: unknown) => void;
}

/**
 * One pass: moves every run decided before `now - COMPACTION_DELAY_MS`, `batch` runs a statement,
 * until none is left, another instance holds the lock, or `stopping` says so; then VACUUMs the
 * runs table if anything moved. How many runs moved.
 */
export async function compactDecisionLog(
  db: Database,
  now: number,
  batch: number,
  stopping: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  for (;;) {
    const moved = await compactDecisions(db, now - COMPACTION_DELAY_MS, batch);
    total += moved ?? 0;
    if (moved === null || moved < batch || stopping()) break;
  }
  if (total > 0) await vacuumRuns(db);
  return total;
}

/** Runs the compaction now and every `intervalMs` until stopped; a failed pass is reported and retried. */
export function startDecisionCompaction(options: DecisionCompactionOptions): PeriodicJob {
  const batch = options.batch ?? 20_000;
  return startPeriodicJob({
    run: (stopping) => compactDecisionLog(options.db, options.clock.now(), batch, stopping),
    intervalMs: options.intervalMs ?? 1_000,
    onError: options.onError,
  });
}
