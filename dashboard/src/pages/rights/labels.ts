// The words the rights pages use for the contract's enum values.
import type { Schemas } from "../../api/client.js";
import type { DsrStatus, DsrType, GrievanceStatus } from "./state-machine.js";

export const DSR_STATUS_LABELS: Record<DsrStatus, string> = {
  pending: "Pending",
  in_progress: "In progress",
  completed: "Completed",
  rejected: "Rejected",
};

export const DSR_TYPE_LABELS: Record<DsrType, string> = {
  summary: "Summary of data",
  processors: "Processors",
  correction: "Correction",
  erasure: "Erasure",
};

export const GRIEVANCE_STATUS_LABELS: Record<GrievanceStatus, string> = {
  open: "Open",
  in_progress: "In progress",
  resolved: "Resolved",
};

/** The button that makes a DSR move, by target status. */
export const DSR_MOVE_LABELS: Record<DsrStatus, string> = {
  pending: "Back to pending",
  in_progress: "Start work",
  completed: "Mark completed",
  rejected: "Reject",
};

export const DUE_STATE_LABELS: Record<Schemas["DueState"], string> = {
  on_time: "On time",
  due_soon: "Due soon",
  overdue: "Overdue",
  met: "Closed on time",
  missed: "Closed late",
};

export const ACTOR_LABELS: Record<Schemas["RightsTransition"]["actorKind"], string> = {
  principal: "Principal",
  staff: "Staff",
  service: "Service API key",
  system: "System",
};
