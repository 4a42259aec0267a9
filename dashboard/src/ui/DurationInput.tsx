// Shared by the organisation settings form and the Consent Gate page: a duration entered in
// human units (the API speaks milliseconds), and the API's field paths made comparable with the
// forms' input names (`consentGate.windowMs`, whether the API wrote it dotted or as a pointer).
import { useId } from "react";
import { ApiError } from "../api/errors.js";
import "./DurationInput.css";

export const DURATION_UNITS = [
  { unit: "seconds", ms: 1_000 },
  { unit: "minutes", ms: 60_000 },
  { unit: "hours", ms: 3_600_000 },
  { unit: "days", ms: 86_400_000 },
] as const;

export type DurationUnit = (typeof DURATION_UNITS)[number]["unit"];

export interface Duration {
  amount: string;
  unit: DurationUnit;
}

const unitMs = (unit: DurationUnit) => DURATION_UNITS.find((u) => u.unit === unit)!.ms;

/** The largest unit that expresses `ms` exactly: 3600000 -> 1 hours, 90000 -> 90 seconds. */
export function toDuration(ms: number): Duration {
  for (const { unit, ms: size } of [...DURATION_UNITS].reverse())
    if (ms % size === 0) return { amount: String(ms / size), unit };
  return { amount: String(ms / 1000), unit: "seconds" };
}

/** Milliseconds, or NaN for an amount that is not a number (the API then names the field). */
export function durationMs(duration: Duration): number {
  const amount = Number(duration.amount);
  return duration.amount.trim() === "" ? Number.NaN : Math.round(amount * unitMs(duration.unit));
}

/** "1 hour", "90 minutes", "30 seconds". */
export function describeDuration(ms: number): string {
  const { amount, unit } = toDuration(ms);
  return amount === "1" ? `1 ${unit.replace(/s$/, "")}` : `${amount} ${unit}`;
}

/** The error with its `field` written dotted (`/consentGate/windowMs` -> `consentGate.windowMs`). */
export function dottedFieldError(error: unknown): unknown {
  if (!(error instanceof ApiError) || !error.field?.startsWith("/")) return error;
  return new ApiError({
    status: error.status,
    code: error.code,
    message: error.message,
    field: error.field.slice(1).replaceAll("/", "."),
    requestId: error.requestId,
    retryAfter: error.retryAfter,
  });
}

/**
 * A number and a unit side by side. Rendered inside <Field>, which gives the number input its id,
 * name and error; the unit select is labelled by the same visible label plus "unit".
 */
export function DurationInput({
  value,
  onChange,
  disabled,
  units = DURATION_UNITS.map((u) => u.unit),
  unitLabel = "Unit",
  id,
  name,
  ...aria
}: {
  value: Duration;
  onChange: (next: Duration) => void;
  disabled?: boolean;
  units?: readonly DurationUnit[];
  /** The unit select's accessible name, e.g. "Alert window unit". */
  unitLabel?: string;
  id?: string;
  name?: string;
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  const unitId = useId();
  return (
    <span className="duration-input">
      <input
        id={id}
        name={name}
        type="number"
        inputMode="decimal"
        min="0"
        step="any"
        required
        value={value.amount}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, amount: event.target.value })}
        {...aria}
      />
      <label htmlFor={unitId} className="visually-hidden">
        {unitLabel}
      </label>
      <select
        id={unitId}
        value={value.unit}
        disabled={disabled}
        onChange={(event) => onChange({ ...value, unit: event.target.value as DurationUnit })}
      >
        {units.map((unit) => (
          <option key={unit} value={unit}>
            {unit}
          </option>
        ))}
      </select>
    </span>
  );
}
