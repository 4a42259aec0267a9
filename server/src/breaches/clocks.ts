// The breach clocks' events, raised by a sweep rather than on read (the rights clock sweep's
// pattern): `breach.principal_notification_due_soon` / `_overdue` (the "without delay" window of
// r.7(1)) and `breach.board_report_due_soon` / `_overdue` (the 72-hour detailed report of
// r.7(2)(b)). Each is raised at most once per breach, because the sweep claims the breach by setting
// its *_raised_at column in the same transaction as the event; drills raise nothing.
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { claimBreachClockEvents, type BreachClock, type ClaimedBreach } from "./store/breaches.js";

type ClockKind = "due_soon" | "overdue";

/** Each clock's event prefix and what its events carry: ids and dates, never the description. */
const CLOCKS: readonly {
  clock: BreachClock;
  event: string;
  payload: (b: ClaimedBreach) => Record<string, unknown>;
}[] = [
  {
    clock: "principal",
    event: "breach.principal_notification",
    payload: (b) => ({
      breachId: b.breachId,
      discoveredAt: b.discoveredAt,
      principalNotificationDueAt: b.dueAt,
    }),
  },
  {
    clock: "board",
    event: "breach.board_report",
    payload: (b) => ({
      breachId: b.breachId,
      discoveredAt: b.discoveredAt,
      boardReportDueAt: b.dueAt,
      reportedToBoardAt: b.reportedToBoardAt,
    }),
  },
];

const BATCH = 200;

async function raiseBatch(
  tx: Queryable,
  clock: (typeof CLOCKS)[number],
  kind: ClockKind,
  now: number,
): Promise<number> {
  const claimed = await claimBreachClockEvents(tx, clock.clock, kind, now, BATCH);
  for (const breach of claimed) {
    await enqueueEvent(
      tx,
      {
        organizationId: breach.organizationId,
        eventType: `${clock.event}_${kind}`,
        payload: clock.payload(breach),
      },
      now,
    );
  }
  return claimed.length;
}

export interface BreachSweepResult {
  dueSoon: number;
  overdue: number;
}

/** Raises every pending breach clock event once; safe to run on several instances at once. */
export async function sweepBreachClocks(db: Database, now: number): Promise<BreachSweepResult> {
  const result: BreachSweepResult = { dueSoon: 0, overdue: 0 };
  for (const clock of CLOCKS) {
    // Overdue first, so a clock the sweep first sees past its deadline raises only `overdue`.
    for (const kind of ["overdue", "due_soon"] as const) {
      for (;;) {
        const count = await db.transaction((tx) => raiseBatch(tx, clock, kind, now));
        if (kind === "overdue") result.overdue += count;
        else result.dueSoon += count;
        if (count < BATCH) break;
      }
    }
  }
  return result;
}

/** Runs the sweep every `intervalMs` until stopped; errors go to `onError` and the next run retries. */
export function startBreachClockSweep(options: {
  db: Database;
  clock: Clock;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    run: () => sweepBreachClocks(options.db, options.clock.now()),
    intervalMs: options.intervalMs ?? 60_000,
    onError: options.onError,
  });
}
