// The Overview chart's data: the API lists only the (day, purpose) pairs that had consents given or
// withdrawn, oldest first; the chart needs every day of the range (an empty day is a gap, not a
// missing bar) and one stable order of purposes (the legend and the stacking must agree). Pure, so
// the arithmetic of days at an offset is tested without a browser.
import type { Schemas } from "../../api/client.js";

type Overview = Schemas["StaffOverview"];

const DAY_MS = 86_400_000;

export interface DaySeries {
  /** `YYYY-MM-DD` at the overview's offset. */
  day: string;
  /** Per purpose, in `ConsentSeries.purposes` order. */
  given: number[];
  withdrawn: number[];
  totalGiven: number;
  totalWithdrawn: number;
}

export interface ConsentSeries {
  /** Purposes with any consent in the range, most given first (ties by name), so the biggest sits at the bottom. */
  purposes: string[];
  days: DaySeries[];
  /** The tallest single bar (given or withdrawn) of any day, for the y scale. */
  max: number;
  totalGiven: number;
  totalWithdrawn: number;
}

/** The calendar day `index` days after the overview's first day, as the API names days. */
export function dayAt(overview: Pick<Overview, "from" | "utcOffsetMinutes">, index: number): string {
  // `from` is the first day's midnight at the offset: shifting by the offset puts it at UTC midnight.
  return new Date(overview.from + overview.utcOffsetMinutes * 60_000 + index * DAY_MS)
    .toISOString()
    .slice(0, 10);
}

export function consentSeries(
  overview: Pick<Overview, "from" | "utcOffsetMinutes" | "days" | "consentsPerDay">,
) {
  const byPurpose = new Map<string, number>();
  for (const row of overview.consentsPerDay)
    byPurpose.set(row.purpose, (byPurpose.get(row.purpose) ?? 0) + row.given);
  const purposes = [...byPurpose.keys()].sort(
    (a, b) => (byPurpose.get(b) ?? 0) - (byPurpose.get(a) ?? 0) || a.localeCompare(b),
  );
  const slot = new Map(purposes.map((p, i) => [p, i]));
  const days: DaySeries[] = [];
  const index = new Map<string, DaySeries>();
  for (let i = 0; i < overview.days; i++) {
    const entry: DaySeries = {
      day: dayAt(overview, i),
      given: purposes.map(() => 0),
      withdrawn: purposes.map(() => 0),
      totalGiven: 0,
      totalWithdrawn: 0,
    };
    days.push(entry);
    index.set(entry.day, entry);
  }
  let totalGiven = 0;
  let totalWithdrawn = 0;
  for (const row of overview.consentsPerDay) {
    const entry = index.get(row.day);
    const at = slot.get(row.purpose);
    // A day outside the range would be a server bug; skipping it keeps the chart honest to its axis.
    if (!entry || at === undefined) continue;
    entry.given[at] = (entry.given[at] ?? 0) + row.given;
    entry.withdrawn[at] = (entry.withdrawn[at] ?? 0) + row.withdrawn;
    entry.totalGiven += row.given;
    entry.totalWithdrawn += row.withdrawn;
    totalGiven += row.given;
    totalWithdrawn += row.withdrawn;
  }
  const max = days.reduce((m, d) => Math.max(m, d.totalGiven, d.totalWithdrawn), 0);
  return { purposes, days, max, totalGiven, totalWithdrawn } satisfies ConsentSeries;
}

/** Round y-axis ticks (0, then 1/2/5 × 10^n steps) covering `max`; at least [0, 1]. */
export function axisTicks(max: number, target = 4): number[] {
  if (max <= 0) return [0, 1];
  const raw = max / target;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= raw) ?? 10 * magnitude;
  const whole = Math.max(1, Math.round(step));
  const ticks: number[] = [];
  for (let v = 0; v < max + whole; v += whole) ticks.push(v);
  return ticks;
}

/** The browser's offset from UTC in minutes, as the API takes it (India: 330; getTimezoneOffset is the negation). */
export function browserUtcOffsetMinutes(at = new Date()): number {
  return -at.getTimezoneOffset();
}

/** "26 Nov" for a `YYYY-MM-DD` day, in the user's locale (the day itself, no time zone shift). */
export function formatDay(day: string, locale?: string, long = false): string {
  const [y, m, d] = day.split("-").map(Number);
  return new Intl.DateTimeFormat(locale, {
    day: "numeric",
    month: "short",
    ...(long ? { year: "numeric", weekday: "short" } : {}),
    timeZone: "UTC",
  }).format(new Date(Date.UTC(y ?? 1970, (m ?? 1) - 1, d ?? 1)));
}
