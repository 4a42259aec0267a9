// The rights domain's state machines, each a table of allowed moves (STYLE.md: a table, not
// scattered ifs). Anything not listed is INVALID_STATUS_TRANSITION. Creation is the move from
// `null`, so the history of a request starts with its filing.
import { Failure } from "../lib/failure.js";

export const DSR_TYPES = ["summary", "processors", "correction", "erasure"] as const;
export type DsrType = (typeof DSR_TYPES)[number];

export const DSR_STATUSES = ["pending", "in_progress", "completed", "rejected"] as const;
export type DsrStatus = (typeof DSR_STATUSES)[number];

export const GRIEVANCE_STATUSES = ["open", "in_progress", "resolved"] as const;
export type GrievanceStatus = (typeof GRIEVANCE_STATUSES)[number];

export type NominationStatus = "active" | "revoked";

type Table<S extends string> = Readonly<Record<S | "null", readonly S[]>>;

/** Forward only: a request is worked on before it is answered, and an answer is final. */
export const DSR_TRANSITIONS: Table<DsrStatus> = {
  null: ["pending"],
  pending: ["in_progress"],
  in_progress: ["completed", "rejected"],
  completed: [],
  rejected: [],
};

/**
 * A grievance may receive further interim responses while it is being handled (in_progress to
 * itself); once resolved it is closed, and a new complaint is a new grievance.
 */
export const GRIEVANCE_TRANSITIONS: Table<GrievanceStatus> = {
  null: ["open"],
  open: ["in_progress"],
  in_progress: ["in_progress", "resolved"],
  resolved: [],
};

/**
 * One active nomination per principal: PUT creates it or updates it in place (active to itself),
 * DELETE revokes it. A revoked nomination stays revoked; the next PUT makes a new one.
 */
export const NOMINATION_TRANSITIONS: Table<NominationStatus> = {
  null: ["active"],
  active: ["active", "revoked"],
  revoked: [],
};

export const DSR_TERMINAL: readonly DsrStatus[] = ["completed", "rejected"];
export const GRIEVANCE_TERMINAL: readonly GrievanceStatus[] = ["resolved"];

function canMove<S extends string>(table: Table<S>, from: S | null, to: S): boolean {
  return table[from ?? "null"].includes(to);
}

/** Throws INVALID_STATUS_TRANSITION naming the move when the table forbids it. */
export function assertMove<S extends string>(table: Table<S>, what: string, from: S | null, to: S): void {
  if (canMove(table, from, to)) return;
  const allowed = table[from ?? "null"];
  const next =
    allowed.length === 0 ? `${from} is final` : `from ${from} it may move to ${allowed.join(" or ")}`;
  throw new Failure("INVALID_STATUS_TRANSITION", `A ${what} cannot move from ${from} to ${to}; ${next}`);
}

/**
 * The moves an action that targets `to` walks through from `from`, shortest first: generating a
 * summary on a pending request records pending → in_progress → completed rather than skipping a
 * state. Undefined when `to` cannot be reached.
 */
export function pathTo<S extends string>(table: Table<S>, from: S, to: S): S[] | undefined {
  const queue: { at: S; path: S[] }[] = [{ at: from, path: [] }];
  const seen = new Set<S>([from]);
  while (queue.length > 0) {
    const { at, path } = queue.shift()!;
    for (const next of table[at]) {
      if (next === to) return [...path, next];
      if (!seen.has(next)) {
        seen.add(next);
        queue.push({ at: next, path: [...path, next] });
      }
    }
  }
  return undefined;
}
