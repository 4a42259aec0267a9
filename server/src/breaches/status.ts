// A breach's status and its two statutory clocks, derived from its timestamps (README, "Status"
// and "Clocks"). One definition for the routes, the CLI, the sweep's SQL (store/breaches.ts uses
// the same due-soon share) and audit verify.
import { dueStateOf } from "../rights/clocks.js";
import type { BreachDueState, BreachStatus } from "./store/breaches.js";

export const HOUR_MS = 3_600_000;
/** r.7(2)(b): the detailed report to the Board within 72 hours of becoming aware of the breach. */
export const BOARD_REPORT_WINDOW_MS = 72 * HOUR_MS;
/** CERT-In Directions 2022, direction (ii): a cyber incident reported within 6 hours of noticing it. */
export const CERT_IN_REPORT_WINDOW_MS = 6 * HOUR_MS;
/** r.7(1) "without delay": the window chosen when the breach is recorded, by default 24 hours. */
export const DEFAULT_PRINCIPAL_NOTIFICATION_HOURS = 24;
export const MAX_PRINCIPAL_NOTIFICATION_HOURS = 72;

export interface BreachTimes {
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  detailedReportSubmittedAt: number | null;
}

/**
 * The first obligation still open, in the order the outline lists them:
 * - `reported_user_pending`: the affected principals have not all been told (reportedToUserAt unset);
 * - `reported_user_done`: they have, and the Board has had nothing yet;
 * - `reported_board_pending`: the Board has the first intimation, the detailed report is due;
 * - `reported_board_done`: the detailed report is submitted.
 * Principals come first: a breach whose Board reports are in but whose principals are not all told
 * stays `reported_user_pending`, because that duty is still open.
 */
export function breachStatusOf(times: BreachTimes): BreachStatus {
  if (times.reportedToUserAt === null) return "reported_user_pending";
  if (times.detailedReportSubmittedAt !== null) return "reported_board_done";
  if (times.reportedToBoardAt !== null) return "reported_board_pending";
  return "reported_user_done";
}

export interface BreachClocks {
  discoveredAt: number;
  principalNotificationDueAt: number;
  boardDueAt: number;
  reportedToUserAt: number | null;
  detailedReportSubmittedAt: number | null;
}

/** Where the principal-notification clock stands at `now`; met by reportedToUserAt. */
export const principalNotificationDueState = (breach: BreachClocks, now: number): BreachDueState =>
  dueStateOf(
    {
      createdAt: breach.discoveredAt,
      dueAt: breach.principalNotificationDueAt,
      closedAt: breach.reportedToUserAt,
    },
    now,
  );

/** Where the Board's 72-hour clock stands at `now`; met by the detailed report. */
export const boardReportDueState = (breach: BreachClocks, now: number): BreachDueState =>
  dueStateOf(
    { createdAt: breach.discoveredAt, dueAt: breach.boardDueAt, closedAt: breach.detailedReportSubmittedAt },
    now,
  );
