// What request text may carry, checked where it enters (the JSON body parser, the query and path
// validators) so the answer is a 400 naming the field, never a 500 from deeper down:
// - No NUL (U+0000) and no unpaired UTF-16 surrogate (U+D800–U+DFFF alone) in any string or object
//   key. PostgreSQL cannot store either (text refuses NUL; jsonb refuses both), and the driver would
//   silently turn a lone surrogate in a text column into U+FFFD, changing the caller's data.
// - A JSON body nests at most MAX_BODY_DEPTH objects and arrays. Everything downstream (hashing,
//   serialising, copying) may then recurse without any input overflowing the stack.
import { Failure } from "../lib/failure.js";

/** The deepest nesting of objects and arrays a JSON body may have; the body itself is level 1. */
export const MAX_BODY_DEPTH = 64;

// With the `u` flag a surrogate pair is one code point, so only a surrogate standing alone matches.
const UNPAIRED_SURROGATE = /\p{Cs}/u;
const UNPAIRED_SURROGATES = /\p{Cs}/gu;

/** What is wrong with `text` as request text, as the end of a sentence naming the field. */
export function textProblem(text: string): string | undefined {
  if (text.includes("\u0000")) return "must not contain the NUL character (U+0000)";
  if (UNPAIRED_SURROGATE.test(text))
    return "must not contain an unpaired UTF-16 surrogate (U+D800 to U+DFFF standing alone)";
  return undefined;
}

/** A key as it may appear in a field name: what it cannot carry shown as U+FFFD. */
function printable(key: string): string {
  return key.replaceAll("\u0000", "\uFFFD").replace(UNPAIRED_SURROGATES, "\uFFFD");
}

/** One object or array on the walk, with the way back to the body for naming a field. */
interface Node {
  value: object;
  depth: number;
  parent: Node | undefined;
  /** This node's key in its parent: an array index or an object key. */
  key: number | string | undefined;
}

/** `purposes[0].name`, as the validator names fields (validation.ts `fieldOf`). */
function fieldName(node: Node | undefined, last?: number | string): string {
  const segments: Array<number | string> = last === undefined ? [] : [last];
  for (let at = node; at?.key !== undefined; at = at.parent) segments.push(at.key);
  let field = "";
  for (let i = segments.length - 1; i >= 0; i--) {
    const segment = segments[i]!;
    if (typeof segment === "number") field += `[${segment}]`;
    else field += field ? `.${printable(segment)}` : printable(segment);
  }
  return field || "body";
}

/** Checks a string member, or queues a container member for the walk. */
function visit(
  parent: Node,
  key: number | string,
  member: unknown,
  checkStrings: boolean,
  pending: Node[],
): Failure | undefined {
  if (typeof member === "string") {
    const problem = checkStrings ? textProblem(member) : undefined;
    if (!problem) return undefined;
    const field = fieldName(parent, key);
    return new Failure("VALIDATION_ERROR", `${field} ${problem}`, { field });
  }
  if (member !== null && typeof member === "object") {
    pending.push({ value: member, depth: parent.depth + 1, parent, key });
  }
  return undefined;
}

/**
 * The first thing wrong with a parsed JSON body: nesting deeper than MAX_BODY_DEPTH, or a string or
 * key `textProblem` refuses. `checkStrings: false` skips the string checks (the caller knows the
 * JSON text had no `\u` escape, the only way JSON carries either character). Iterative, for the
 * same reason as the depth limit.
 */
export function bodyFailure(body: unknown, checkStrings = true): Failure | undefined {
  if (checkStrings && typeof body === "string") {
    const problem = textProblem(body);
    return problem ? new Failure("VALIDATION_ERROR", `body ${problem}`, { field: "body" }) : undefined;
  }
  if (body === null || typeof body !== "object") return undefined;
  const pending: Node[] = [{ value: body, depth: 1, parent: undefined, key: undefined }];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.depth > MAX_BODY_DEPTH) {
      return new Failure(
        "VALIDATION_ERROR",
        `The body nests objects and arrays more than ${MAX_BODY_DEPTH} levels deep`,
        { field: "body" },
      );
    }
    // Index and key loops rather than Object.entries: this runs on every body, the Consent Gate's
    // included, and allocates only for the containers it queues.
    if (Array.isArray(node.value)) {
      const items = node.value as unknown[];
      for (let index = 0; index < items.length; index++) {
        const failure = visit(node, index, items[index], checkStrings, pending);
        if (failure) return failure;
      }
      continue;
    }
    const object = node.value as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const problem = checkStrings ? textProblem(key) : undefined;
      if (problem) {
        const field = fieldName(node, key);
        return new Failure("VALIDATION_ERROR", `The name of ${field} ${problem}`, { field });
      }
      const failure = visit(node, key, object[key], checkStrings, pending);
      if (failure) return failure;
    }
  }
  return undefined;
}

/**
 * The first query or path parameter `textProblem` refuses. Values are strings, or arrays of
 * strings for a repeated query parameter (or numbers and booleans once coerced).
 */
export function parameterFailure(parameters: unknown): Failure | undefined {
  if (parameters === null || typeof parameters !== "object") return undefined;
  for (const [name, value] of Object.entries(parameters)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const problem = typeof item === "string" ? textProblem(item) : undefined;
      if (problem) {
        const field = printable(name);
        return new Failure("VALIDATION_ERROR", `${field} ${problem}`, { field });
      }
    }
    const problem = textProblem(name);
    if (problem) {
      const field = printable(name);
      return new Failure("VALIDATION_ERROR", `The name of ${field} ${problem}`, { field });
    }
  }
  return undefined;
}
