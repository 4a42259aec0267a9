import { useEffect, useState } from "react";
import { describeDue, formatDate } from "../lib/time.js";

export { DUE_SOON_MS, dueState, type DueState } from "../lib/time.js";

/** The time now, refreshed every `everyMs` (a minute by default): enough for SLA countdowns. */
export function useNow(everyMs = 60_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** An SLA deadline: "Due in 3 days", "Due soon: 5 h left", "Overdue by 2 h" (words and colour). */
export function Countdown({ dueAt }: { dueAt: number }) {
  const now = useNow();
  const { state, text } = describeDue(dueAt, now);
  return (
    <span className={`countdown countdown-${state}`} title={`Due ${formatDate(dueAt)}`}>
      {state === "ok" ? null : (
        <span className="countdown-icon" aria-hidden="true">
          {state === "overdue" ? "!" : "◷"}
        </span>
      )}
      {text}
    </span>
  );
}

/** A date in the user's locale and time zone, in a <time> element. */
export function DateTime({ value }: { value: number | null | undefined }) {
  if (value === null || value === undefined) return <span>—</span>;
  return <time dateTime={new Date(value).toISOString()}>{formatDate(value)}</time>;
}
