// What the retention rules share: who acted, and the checks every write applies to its input.
import { validationError } from "../lib/failure.js";

/** Who changed the register: a staff member, the organisation's service key, or the CLI / sweep. */
export interface RetentionActor {
  kind: "staff" | "service" | "system";
  id: string;
}

export const DAY_MS = 86_400_000;
export const HOUR_MS = 3_600_000;

/** Free text of 1..max characters that is not only whitespace; stored trimmed. */
export function text(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim().length === 0)
    throw validationError(field, `${field} must be 1-${max} characters, not only whitespace`);
  if (value.length > max) throw validationError(field, `${field} must be at most ${max} characters`);
  return value.trim();
}

/** An integer in [min, max]. */
export function integer(value: unknown, field: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min || value > max)
    throw validationError(field, `${field} must be an integer from ${min} to ${max}`);
  return value;
}

/** An epoch-ms time: a non-negative safe integer. */
export function epochMs(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0)
    throw validationError(field, `${field} must be a time in epoch milliseconds`);
  return value;
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
  const found = allowed.find((known) => known === value);
  if (found === undefined) throw validationError(field, `${field} must be one of ${allowed.join(", ")}`);
  return found;
}
