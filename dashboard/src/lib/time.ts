// Dates and SLA deadlines as staff read them. Pure (the clock is a parameter) so Node tests run it.

/** A deadline closer than this is "due soon" (the contract's dueSoon filter uses the same 24 hours). */
export const DUE_SOON_MS = 24 * 60 * 60 * 1000;

export type DueState = "ok" | "due-soon" | "overdue";

export function dueState(dueAt: number, now: number): DueState {
  if (dueAt <= now) return "overdue";
  return dueAt - now < DUE_SOON_MS ? "due-soon" : "ok";
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** "3 days 4 h", "5 h 20 min", "12 min", "under a minute". */
export function formatSpan(ms: number): string {
  const span = Math.abs(ms);
  if (span < MINUTE) return "under a minute";
  const days = Math.floor(span / DAY);
  const hours = Math.floor((span % DAY) / HOUR);
  const minutes = Math.floor((span % HOUR) / MINUTE);
  if (days > 0)
    return hours > 0
      ? `${days} ${days === 1 ? "day" : "days"} ${hours} h`
      : `${days} ${days === 1 ? "day" : "days"}`;
  if (hours > 0) return minutes > 0 ? `${hours} h ${minutes} min` : `${hours} h`;
  return `${minutes} min`;
}

/** The words a countdown shows, so the state never depends on colour alone. */
export function describeDue(dueAt: number, now: number): { state: DueState; text: string } {
  const state = dueState(dueAt, now);
  const span = formatSpan(dueAt - now);
  if (state === "overdue") return { state, text: `Overdue by ${span}` };
  if (state === "due-soon") return { state, text: `Due soon: ${span} left` };
  return { state, text: `Due in ${span}` };
}

/** Epoch ms as a date and time in the user's locale, with the time zone named. */
export function formatDate(epochMs: number | null | undefined, locale?: string, timeZone?: string): string {
  if (epochMs === null || epochMs === undefined) return "—";
  return new Intl.DateTimeFormat(locale, {
    // dateStyle/timeStyle cannot be combined with timeZoneName, so the parts are named one by one.
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
    ...(timeZone ? { timeZone } : {}),
  }).format(new Date(epochMs));
}
