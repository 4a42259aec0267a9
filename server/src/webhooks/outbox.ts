// The webhook outbox (ARCHITECTURE.md decision 8). A domain that changes something calls
// enqueueEvent with its own transaction, so the event and its deliveries exist exactly when the
// change committed; delivery workers (worker.ts) pick the deliveries up afterwards.
import { afterCommit, type Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import {
  insertEvent,
  insertEvents,
  insertPendingDeliveries,
  insertPendingDeliveriesOfEvents,
} from "./store/deliveries.js";
import { subscribedEndpointIds } from "./subscriptions.js";

/** Every event type an endpoint may subscribe to (CONTRACT.md "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  "consent.given",
  "consent.withdrawn",
  "dsr.created",
  "dsr.status_changed",
  "grievance.created",
  "grievance.status_changed",
  "nomination.changed",
  "breach.recorded",
  "offline_capture.quarantined",
  // A notification for the fiduciary's backend to deliver to a principal (notifications/notifier.ts).
  "principal.notification",
  // Raised once per item by the rights clock sweep (rights/clocks.ts).
  "dsr.due_soon",
  "dsr.overdue",
  "grievance.due_soon",
  "grievance.overdue",
  // Raised once per breach by the breach clock sweep (breaches/clocks.ts); never for drills.
  "breach.principal_notification_due_soon",
  "breach.principal_notification_overdue",
  "breach.board_report_due_soon",
  "breach.board_report_overdue",
  // The erasure schedule (retention/): the principal was told, an erasure was cancelled (she came
  // back, or the policy changed), the fiduciary confirmed it erased.
  "retention.pre_notified",
  "retention.erasure_cancelled",
  "retention.erasure_executed",
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export function isWebhookEventType(value: string): value is WebhookEventType {
  return (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
}

export interface WebhookEventInput {
  organizationId: string;
  eventType: string;
  payload: Record<string, unknown>;
}

type EnqueueListener = () => void;
const enqueueListeners = new Set<EnqueueListener>();

/**
 * Registers a callback run on every enqueueEvent (and re-send) in this process, so a local worker
 * can deliver without waiting for its next poll. Returns the unsubscribe function.
 */
export function onEventEnqueued(listener: EnqueueListener): () => void {
  enqueueListeners.add(listener);
  return () => enqueueListeners.delete(listener);
}

/** Tells this process's workers that deliveries may be due (after an enqueue or a re-send). */
export function wakeWorkers(): void {
  for (const listener of enqueueListeners) listener();
}

/**
 * Writes one webhook event and one pending delivery per enabled, undeleted endpoint of the same
 * organisation subscribed to its type (as the instance's cache lists them, checked again by the
 * insert) — all through `tx`, the caller's transaction. An unknown event type is a programming
 * error and throws (rolling the caller's change back).
 */
export async function enqueueEvent(tx: Queryable, event: WebhookEventInput, now: number): Promise<void> {
  if (!isWebhookEventType(event.eventType)) {
    throw new Error(`unknown webhook event type ${JSON.stringify(event.eventType)}`);
  }
  const eventId = newId("evt");
  await insertEvent(tx, { ...event, eventId, createdAt: now });
  // From the per-instance cache; the insert re-checks each endpoint (subscriptions.ts says why).
  const endpointIds = await subscribedEndpointIds(tx, event.organizationId, event.eventType);
  if (endpointIds.length === 0) return;
  await insertPendingDeliveries(tx, {
    organizationId: event.organizationId,
    eventId,
    eventType: event.eventType,
    deliveries: endpointIds.map((endpointId) => ({ deliveryId: newId("dlv"), endpointId })),
    now,
  });
  // A worker woken before the caller's transaction commits would find nothing and wait for its
  // next poll: wake them once the deliveries are visible.
  afterCommit(tx, wakeWorkers);
}

/**
 * enqueueEvent for several events of one organisation in a fixed number of statements (a writer
 * recording a batch, such as a synced batch of offline captures): the events, then every pending
 * delivery of them.
 */
export async function enqueueEvents(
  tx: Queryable,
  organizationId: string,
  events: readonly Omit<WebhookEventInput, "organizationId">[],
  now: number,
): Promise<void> {
  if (events.length === 0) return;
  for (const event of events) {
    if (!isWebhookEventType(event.eventType)) {
      throw new Error(`unknown webhook event type ${JSON.stringify(event.eventType)}`);
    }
  }
  const withIds = events.map((event) => ({ ...event, eventId: newId("evt"), createdAt: now }));
  await insertEvents(tx, organizationId, withIds);
  const endpointsOf = new Map<string, readonly string[]>();
  for (const eventType of new Set(events.map((event) => event.eventType))) {
    endpointsOf.set(eventType, await subscribedEndpointIds(tx, organizationId, eventType));
  }
  const deliveries = withIds.flatMap((event) =>
    (endpointsOf.get(event.eventType) ?? []).map((endpointId) => ({
      deliveryId: newId("dlv"),
      endpointId,
      eventId: event.eventId,
      eventType: event.eventType,
    })),
  );
  if (deliveries.length === 0) return;
  await insertPendingDeliveriesOfEvents(tx, { organizationId, deliveries, now });
  afterCommit(tx, wakeWorkers);
}
