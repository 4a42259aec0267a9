// Statutory clocks. Every DSR and grievance gets `dueAt` = filing time + the organisation's
// response period in force when it was filed. Staff see where each item stands (`dueState`,
// computed on read from the current time) and the sweep raises `*.due_soon` once 80 % of the
// period has elapsed and `*.overdue` once the deadline passes — each at most once per item, because
// the sweep claims the item by setting its *_raised_at column in the same transaction as the event.
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { enqueueEvent } from "../webhooks/outbox.js";

export type DueState = "on_time" | "due_soon" | "overdue" | "met" | "missed";
export const DUE_STATES: readonly DueState[] = ["on_time", "due_soon", "overdue", "met", "missed"];

/** The share of the period after which an open item counts as nearly due. */
export const DUE_SOON_FRACTION = { numerator: 4, denominator: 5 } as const;

/** When an item filed at `createdAt` and due at `dueAt` becomes nearly due. */
export function dueSoonAt(createdAt: number, dueAt: number): number {
  return (
    createdAt +
    Math.floor(((dueAt - createdAt) * DUE_SOON_FRACTION.numerator) / DUE_SOON_FRACTION.denominator)
  );
}

/** SQL for the same instant, over a table's created_at / due_at. */
export const DUE_SOON_SQL = `(created_at + ((due_at - created_at) * ${DUE_SOON_FRACTION.numerator}) / ${DUE_SOON_FRACTION.denominator})`;

export function dueStateOf(
  item: { createdAt: number; dueAt: number; closedAt: number | null },
  now: number,
): DueState {
  if (item.closedAt !== null) return item.closedAt <= item.dueAt ? "met" : "missed";
  if (now >= item.dueAt) return "overdue";
  if (now >= dueSoonAt(item.createdAt, item.dueAt)) return "due_soon";
  return "on_time";
}

interface ClockTable {
  table: "dsr_requests" | "grievances";
  idColumn: "request_id" | "grievance_id";
  idField: "requestId" | "grievanceId";
  openStatuses: readonly string[];
  extraColumns: string;
  eventPrefix: "dsr" | "grievance";
}

const CLOCK_TABLES: readonly ClockTable[] = [
  {
    table: "dsr_requests",
    idColumn: "request_id",
    idField: "requestId",
    openStatuses: ["pending", "in_progress"],
    extraColumns: ", type",
    eventPrefix: "dsr",
  },
  {
    table: "grievances",
    idColumn: "grievance_id",
    idField: "grievanceId",
    openStatuses: ["open", "in_progress"],
    extraColumns: "",
    eventPrefix: "grievance",
  },
];

type ClaimedRow = {
  organization_id: string;
  item_id: string;
  principal_id: string;
  status: string;
  created_at: number;
  due_at: number;
  type?: string;
};

const BATCH = 200;

async function raiseBatch(
  tx: Queryable,
  spec: ClockTable,
  kind: "due_soon" | "overdue",
  now: number,
): Promise<number> {
  const statuses = spec.openStatuses.map((s) => `'${s}'`).join(", ");
  const condition =
    kind === "overdue"
      ? "overdue_raised_at IS NULL AND due_at <= $1"
      : `due_soon_raised_at IS NULL AND overdue_raised_at IS NULL AND due_at > $1 AND ${DUE_SOON_SQL} <= $1`;
  // SKIP LOCKED: several instances sweep at once without waiting on each other, and an item being
  // moved by a staff request right now is simply picked up by the next sweep if still open.
  const claimed = await tx.query<ClaimedRow>(
    `UPDATE ${spec.table} SET ${kind}_raised_at = $1
      WHERE (organization_id, ${spec.idColumn}) IN (
        SELECT organization_id, ${spec.idColumn} FROM ${spec.table}
         WHERE status IN (${statuses}) AND ${condition}
         ORDER BY due_at LIMIT ${BATCH} FOR UPDATE SKIP LOCKED)
      RETURNING organization_id, ${spec.idColumn} AS item_id, principal_id, status, created_at, due_at${spec.extraColumns}`,
    [now],
  );
  if (claimed.length === 0) return 0;
  const externalIds = new Map<string, string>();
  const principals = await tx.query<{ organization_id: string; principal_id: string; external_id: string }>(
    `SELECT organization_id, principal_id, external_id FROM principals
      WHERE (organization_id, principal_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
    [claimed.map((r) => r.organization_id), claimed.map((r) => r.principal_id)],
  );
  for (const p of principals) externalIds.set(`${p.organization_id}/${p.principal_id}`, p.external_id);
  for (const row of claimed) {
    await enqueueEvent(
      tx,
      {
        organizationId: row.organization_id,
        eventType: `${spec.eventPrefix}.${kind}`,
        payload: {
          [spec.idField]: row.item_id,
          ...(row.type ? { type: row.type } : {}),
          status: row.status,
          createdAt: row.created_at,
          dueAt: row.due_at,
          externalId: externalIds.get(`${row.organization_id}/${row.principal_id}`) ?? null,
        },
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
  for (const spec of CLOCK_TABLES) {
    // Overdue first, so an item the sweep first sees after its deadline raises only `overdue`.
    for (const kind of ["overdue", "due_soon"] as const) {
      for (;;) {
        const count = await db.transaction((tx) => raiseBatch(tx, spec, kind, now));
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
}): { stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 60_000;
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (stopped || running) return;
    running = sweepRightsClocks(options.db, options.clock.now())
      .catch((error: unknown) => options.onError?.(error))
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(tick, intervalMs);
  timer.unref();
  tick();
  return {
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
