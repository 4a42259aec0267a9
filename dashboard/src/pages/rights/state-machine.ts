// The moves the dashboard offers on a DSR or a grievance: the server's state machines
// (server/src/rights/state-machines.ts, README rule 1) from the current status only. The server stays
// the judge: if it refuses a move offered here (someone else moved the item meanwhile), the page
// shows its INVALID_STATUS_TRANSITION message and reloads.
import type { Schemas } from "../../api/client.js";

export type DsrStatus = Schemas["DsrRequest"]["status"];
export type DsrType = Schemas["DsrRequest"]["type"];
export type GrievanceStatus = Schemas["Grievance"]["status"];

export const DSR_STATUSES: readonly DsrStatus[] = ["pending", "in_progress", "completed", "rejected"];
export const DSR_TYPES: readonly DsrType[] = ["summary", "processors", "correction", "erasure"];
export const GRIEVANCE_STATUSES: readonly GrievanceStatus[] = ["open", "in_progress", "resolved"];

/** Forward only: pending -> in_progress -> completed | rejected; the last two are final. */
const DSR_NEXT: Readonly<Record<DsrStatus, readonly DsrStatus[]>> = {
  pending: ["in_progress"],
  in_progress: ["completed", "rejected"],
  completed: [],
  rejected: [],
};

/** open -> in_progress -> resolved; in_progress -> in_progress is a further interim response. */
const GRIEVANCE_NEXT: Readonly<Record<GrievanceStatus, readonly GrievanceStatus[]>> = {
  open: ["in_progress"],
  in_progress: ["in_progress", "resolved"],
  resolved: [],
};

export function dsrNextStatuses(status: DsrStatus): readonly DsrStatus[] {
  return DSR_NEXT[status];
}

export function grievanceNextStatuses(status: GrievanceStatus): readonly GrievanceStatus[] {
  return GRIEVANCE_NEXT[status];
}

export function isDsrFinal(status: DsrStatus): boolean {
  return DSR_NEXT[status].length === 0;
}

/**
 * The actions of a DSR besides a plain move. Generating a summary (summary requests) and denying
 * on a statutory basis (erasure requests) each end the request, walking a pending one through
 * in_progress on the server, so both are offered while the request is not final.
 */
export function dsrActions(request: { type: DsrType; status: DsrStatus }): {
  moves: readonly DsrStatus[];
  generateSummary: boolean;
  statutoryDenial: boolean;
} {
  const open = !isDsrFinal(request.status);
  return {
    moves: dsrNextStatuses(request.status),
    generateSummary: open && request.type === "summary",
    statutoryDenial: open && request.type === "erasure",
  };
}
