// Statutory clocks. Every DSR and grievance gets `dueAt` = filing time + the organisation's
// response period in force when it was filed. Staff see where each item stands (`dueState`,
// computed on read from the current time) and the sweep raises `*.due_soon` once 80 % of the
// period has elapsed and `*.overdue` once the deadline passes — each at most once per item, because
// the sweep claims the item by setting its *_raised_at column in the same transaction as the event.
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { startPeriodicJob, type PeriodicJob } from "../lib/periodic-job.js";
import { enqueueEvent } from "../webhooks/outbox.js";
import { withExternalIds } from "./principals.js";
import { DUE_SOON_FRACTION } from "./settings.js";
import { claimDsrClockEvents } from "./store/dsr.js";
import { claimGrievanceClockEvents } from "./store/grievances.js";

export type DueState = "on_time" | "due_soon" | "overdue" | "met" | "missed";

/**
 * When an item filed at `createdAt` and due at `dueAt` becomes nearly due: once DUE_SOON_FRACTION
 * (settings.ts) of its period has elapsed.
 */
export function dueSoonAt(createdAt: number, dueAt: number): number {
  return (
    createdAt +
    Math.floor(((dueAt - createdAt) * DUE_SOON_FRACTION.numerator) / DUE_SOON_FRACTION.denominator)
  );
}

export function dueStateOf(
  item: { createdAt: number; dueAt: number; closedAt: number | null },
  now: number,
): DueState {
  if (item.closedAt !== null) return item.closedAt <= item.dueAt ? "met" : "missed";
  if (now >= item.dueAt) return "overdue";
  if (now >= dueSoonAt(item.createdAt, item.dueAt)) return "due_soon";
  return "on_time";
}

type ClockKind = "due_soon" | "overdue";

/** What an item owed a clock event carries into it: ids and dates, no free text. */
interface ClockItem {
  organizationId: string;
  principalId: string;
  payload: Record<string, unknown>;
}

/** The tables with clocks: each claims a batch of items owed an event, and names the event. */
const CLOCKS: readonly {
  eventPrefix: "dsr" | "grievance";
  claim: (tx: Queryable, kind: ClockKind, now: number, limit: number) => Promise<ClockItem[]>;
}[] = [
  {
    eventPrefix: "dsr",
    claim: async (tx, kind, now, limit) =>
      (await claimDsrClockEvents(tx, kind, now, limit)).map((r) => ({
        organizationId: r.organizationId,
        principalId: r.principalId,
        payload: {
          requestId: r.requestId,
          type: r.type,
          status: r.status,
          createdAt: r.createdAt,
          dueAt: r.dueAt,
        },
      })),
  },
  {
    eventPrefix: "grievance",
    claim: async (tx, kind, now, limit) =>
      (await claimGrievanceClockEvents(tx, kind, now, limit)).map((r) => ({
        organizationId: r.organizationId,
        principalId: r.principalId,
        payload: { grievanceId: r.grievanceId, status: r.status, createdAt: r.createdAt, dueAt: r.dueAt },
      })),
  },
];

const BATCH = 200;

/**
 * Claims one batch of items owed `kind` and raises the event of each in the same transaction, so
 * an item is claimed and its event written together or not at all. The number claimed.
 */
async function raiseBatch(
  tx: Queryable,
  clock: (typeof CLOCKS)[number],
  kind: ClockKind,
  now: number,
): Promise<number> {
  const claimed = await clock.claim(tx, kind, now, BATCH);
  for (const item of await withExternalIds(tx, claimed)) {
    await enqueueEvent(
      tx,
      {
        organizationId: item.organizationId,
        eventType: `${clock.eventPrefix}.${kind}`,
        payload: { ...item.payload, externalId: item.externalId },
      },
      now,
    );
  }
  return claimed.length;
}

export interface SweepResult {
  dueSoon: number;
  overdue: number;
}

/** Raises every pending due-soon and overdue event once; safe to run on several instances at once. */
export async function sweepRightsClocks(db: Database, now: number): Promise<SweepResult> {
  const result: SweepResult = { dueSoon: 0, overdue: 0 };
  for (const clock of CLOCKS) {
    // Overdue first, so an item the sweep first sees after its deadline raises only `overdue`.
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
export function startRightsClockSweep(options: {
  db: Database;
  clock: Clock;
  intervalMs?: number;
  onError?: (error: unknown) => void;
}): PeriodicJob {
  return startPeriodicJob({
    run: () => sweepRightsClocks(options.db, options.clock.now()),
    intervalMs: options.intervalMs ?? 60_000,
    onError: options.onError,
  });
}
