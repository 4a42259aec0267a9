// The API names a draft's fields as `itemized[1].purpose`, `itemized[0].dataTypes[2]` or
// `content.hi.title`. The shared fieldError matches a name exactly (or a pointer's first segment);
// the data-type chips also need "this field or an element of it".
import { ApiError } from "../../api/errors.js";

export function errorAt(error: unknown, name: string): string | undefined {
  if (!(error instanceof ApiError) || !error.field) return undefined;
  const field = error.field;
  const within = field === name || field.startsWith(`${name}[`) || field.startsWith(`${name}.`);
  return within ? error.message : undefined;
}

/** The error none of `names` shows (to show on its own), so no message is lost. */
export function unclaimedBy(error: unknown, names: readonly string[]): unknown {
  if (!error) return undefined;
  return names.some((name) => errorAt(error, name) !== undefined) ? undefined : error;
}
