// The webhook event types a staff member can subscribe an endpoint to, in the contract's order.
// openapi-typescript emits the enum as a type only, so the runtime list is written here and checked
// against the generated type both ways: a contract that gains or drops an event fails to compile.
import type { Schemas } from "../../api/client.js";

export type WebhookEventType = Schemas["WebhookEventType"];

export const WEBHOOK_EVENTS = [
  "consent.given",
  "consent.withdrawn",
  "dsr.created",
  "dsr.status_changed",
  "dsr.due_soon",
  "dsr.overdue",
  "grievance.created",
  "grievance.status_changed",
  "grievance.due_soon",
  "grievance.overdue",
  "nomination.changed",
  "breach.recorded",
  "offline_capture.quarantined",
  "principal.notification",
  "breach.principal_notification_due_soon",
  "breach.principal_notification_overdue",
  "breach.board_report_due_soon",
  "breach.board_report_overdue",
  "retention.pre_notified",
  "retention.erasure_cancelled",
  "retention.erasure_executed",
] as const satisfies readonly WebhookEventType[];

type MissingEvents = Exclude<WebhookEventType, (typeof WEBHOOK_EVENTS)[number]>;
const _everyEventListed: [MissingEvents] extends [never] ? true : MissingEvents = true;
void _everyEventListed;
