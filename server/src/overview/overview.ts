// The staff overview: an organisation's recent activity in one read, for the dashboard's charts.
// This domain owns no table; each count is an aggregate in the store of the domain that owns the
// rows (GROUP BY in SQL), so what is read stays proportional to the window, never to the history.
import { consentEventsPerDay } from "../consent/store.js";
import type { Queryable } from "../db/database.js";
import { decisionCounts } from "../gate/store.js";
import { validationError } from "../lib/failure.js";
import { dsrQueueHealth } from "../rights/store/dsr.js";
import { grievanceQueueHealth } from "../rights/store/grievances.js";
import type { QueueHealth } from "../rights/store/queue.js";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

/** The contract's bounds (staffGetOverview's parameters), kept here too for callers other than HTTP. */
export const OVERVIEW_DAYS = { min: 1, max: 366 } as const;
export const OVERVIEW_UTC_OFFSET_MINUTES = { min: -720, max: 840 } as const;

export interface OverviewRequest {
  days: number;
  utcOffsetMinutes: number;
}

export interface Overview {
  days: number;
  utcOffsetMinutes: number;
  from: number;
  to: number;
  consentsPerDay: { day: string; purpose: string; given: number; withdrawn: number }[];
  rights: { dsr: QueueHealth; grievances: QueueHealth };
  gate: { allow: number; deny: number };
}

function assertWhole(value: number, range: { min: number; max: number }, field: string): void {
  if (!Number.isInteger(value) || value < range.min || value > range.max) {
    throw validationError(field, `${field} must be a whole number from ${range.min} to ${range.max}`);
  }
}

/**
 * The window: `days` calendar days at `utcOffsetMinutes` from UTC ending with today, so `from` is
 * the start of the first of them (in UTC epoch ms) and the window ends at `now`.
 */
export function overviewWindow(request: OverviewRequest, now: number): { from: number; offsetMs: number } {
  const offsetMs = request.utcOffsetMinutes * MINUTE_MS;
  const today = Math.floor((now + offsetMs) / DAY_MS);
  return { from: (today - (request.days - 1)) * DAY_MS - offsetMs, offsetMs };
}

/** A day number (days since 1970-01-01 in the shifted time) as `YYYY-MM-DD`. */
const dayString = (dayNumber: number): string => new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);

/** The organisation's overview at `now`. */
export async function buildOverview(
  db: Queryable,
  organizationId: string,
  request: OverviewRequest,
  now: number,
): Promise<Overview> {
  assertWhole(request.days, OVERVIEW_DAYS, "days");
  assertWhole(request.utcOffsetMinutes, OVERVIEW_UTC_OFFSET_MINUTES, "utcOffsetMinutes");
  const { from, offsetMs } = overviewWindow(request, now);
  const queueAt = { now, closedSince: from };
  const [perDay, dsr, grievances, gate] = await Promise.all([
    consentEventsPerDay(db, organizationId, { from, until: now, offsetMs }),
    dsrQueueHealth(db, organizationId, queueAt),
    grievanceQueueHealth(db, organizationId, queueAt),
    decisionCounts(db, organizationId, { from, until: now }),
  ]);
  return {
    days: request.days,
    utcOffsetMinutes: request.utcOffsetMinutes,
    from,
    to: now,
    consentsPerDay: perDay.map((d) => ({
      day: dayString(d.dayNumber),
      purpose: d.purpose,
      given: d.given,
      withdrawn: d.withdrawn,
    })),
    rights: { dsr, grievances },
    gate,
  };
}
