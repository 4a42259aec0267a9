// Reading a whole-number setting from stored JSON: a value that is missing, ill-typed or out of
// range falls back to the default, so a bad stored setting never breaks the request that reads it.

/** `value` when it is a whole number within `range` (inclusive), else `fallback`. */
export function intIn(value: unknown, range: { min: number; max: number }, fallback: number): number {
  return typeof value === "number" && Number.isInteger(value) && value >= range.min && value <= range.max
    ? value
    : fallback;
}
