// The staff queues' filters and the due-soon instant, shared by the DSR and grievance tables (both
// have status, created_at and due_at). Conditions are SQL fragments over those unqualified columns.
import type { Expression, SqlBool } from "kysely";
import { sql } from "../../db/query.js";
import { DUE_SOON_FRACTION } from "../settings.js";

/**
 * One page's worth of a keyset read: the rows after `after` (the last row's sort key, the list's
 * order columns ending with the id) in the list's order, at most `limit` of them.
 */
export interface KeysetRead {
  after?: readonly [number, string] | undefined;
  limit: number;
}

export interface QueueFilter {
  status?: string | undefined;
  type?: string | undefined;
  dueBefore?: number | undefined;
  dueAfter?: number | undefined;
  overdue?: boolean | undefined;
  dueSoon?: boolean | undefined;
}

/** When an item becomes nearly due, in SQL: the same instant as clocks.ts's `dueSoonAt`. */
const dueSoonAtSql = () =>
  sql<number>`(created_at + ((due_at - created_at) * ${sql.lit(DUE_SOON_FRACTION.numerator)}) / ${sql.lit(DUE_SOON_FRACTION.denominator)})`;

// Literals, not parameters: the open-by-deadline partial indexes are WHERE status IN (those).
const isOpen = (openStatuses: readonly string[]) =>
  sql<SqlBool>`status IN (${sql.join(openStatuses.map((status) => sql.lit(status)))})`;

/** Open items past their deadline at `now`. */
export const overdueAt = (openStatuses: readonly string[], now: number) =>
  sql<SqlBool>`(${isOpen(openStatuses)} AND due_at <= ${now})`;

/** Open items with the due-soon share of their period elapsed at `now`, not yet overdue. */
export const dueSoonAt = (openStatuses: readonly string[], now: number) =>
  sql<SqlBool>`(${isOpen(openStatuses)} AND due_at > ${now} AND ${dueSoonAtSql()} <= ${now})`;

/** The conditions of a staff queue filter ("overdue" and "due soon" only ever describe open items). */
export function queueConditions(
  openStatuses: readonly string[],
  filter: QueueFilter,
  now: number,
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [];
  if (filter.status !== undefined) conditions.push(sql<SqlBool>`status = ${filter.status}`);
  if (filter.dueBefore !== undefined) conditions.push(sql<SqlBool>`due_at < ${filter.dueBefore}`);
  if (filter.dueAfter !== undefined) conditions.push(sql<SqlBool>`due_at > ${filter.dueAfter}`);
  if (filter.overdue !== undefined) {
    const overdue = overdueAt(openStatuses, now);
    conditions.push(filter.overdue ? overdue : sql<SqlBool>`NOT ${overdue}`);
  }
  if (filter.dueSoon !== undefined) {
    const dueSoon = dueSoonAt(openStatuses, now);
    conditions.push(filter.dueSoon ? dueSoon : sql<SqlBool>`NOT ${dueSoon}`);
  }
  return conditions;
}

/** How a queue stands at a moment: its open items by deadline, and the items closed lately. */
export interface QueueHealth {
  /** Open, neither due soon nor overdue. */
  open: number;
  /** Open and due soon (as `dueSoonAt`, the queue filter's and the clock sweep's rule), not yet overdue. */
  dueSoon: number;
  /** Open and past due (as `overdueAt`). */
  overdue: number;
  /** Closed at or after `closedSince`. */
  closedInPeriod: number;
}

/**
 * The counts of a queue's health, one aggregate row over the rows `queueHealthRows` keeps. "Due
 * soon" is the queue filter's rule (`dueSoonAt`), so a count on the overview is exactly what the
 * filtered queue lists.
 */
export function queueHealthCounts(openStatuses: readonly string[], at: { now: number; closedSince: number }) {
  const dueSoon = dueSoonAt(openStatuses, at.now);
  const overdue = overdueAt(openStatuses, at.now);
  return [
    sql<number>`count(*) FILTER (WHERE ${isOpen(openStatuses)} AND NOT ${dueSoon} AND NOT ${overdue})`.as(
      "open_count",
    ),
    sql<number>`count(*) FILTER (WHERE ${dueSoon})`.as("due_soon_count"),
    sql<number>`count(*) FILTER (WHERE ${overdue})`.as("overdue_count"),
    sql<number>`count(*) FILTER (WHERE closed_at >= ${at.closedSince})`.as("closed_count"),
  ] as const;
}

/**
 * The rows a queue's health counts: the open ones (closed_at is null exactly while the status is
 * open) and the ones closed since `closedSince`; one range of the (organization_id, closed_at)
 * index each (migration 0091), so neither the closed history nor other organisations are read.
 */
export const queueHealthRows = (closedSince: number) =>
  sql<SqlBool>`(closed_at IS NULL OR closed_at >= ${closedSince})`;

export const toQueueHealth = (r: {
  open_count: number;
  due_soon_count: number;
  overdue_count: number;
  closed_count: number;
}): QueueHealth => ({
  open: r.open_count,
  dueSoon: r.due_soon_count,
  overdue: r.overdue_count,
  closedInPeriod: r.closed_count,
});
