// Which endpoints an organisation's events go to, read on every enqueued event (every consent
// given or withdrawn): served from a per-instance cache of the organisation's enabled, undeleted
// endpoints and their event types. Creating, changing or deleting an endpoint announces the change
// (topic webhook_endpoints) in its transaction (store/endpoints.ts).
//
// The race, and why it is acceptable. Instance 2 learns of a change made through instance 1 when
// the notification arrives, a moment after instance 1's transaction commits. An event that
// instance 2 commits in that moment is handled with the list it held:
// - an endpoint created (or re-enabled, or newly subscribed to the type) misses that event. Before
//   the cache the same could happen to an event whose transaction read the list just before the
//   creation committed and itself committed just after: an endpoint receives the events committed
//   after it exists, give or take the commits in flight. The cache widens "in flight" from a
//   transaction's length to a notification's delay; while the listening session is down the cache
//   reads through, so the delay is never longer than that;
// - an endpoint deleted, disabled or unsubscribed gets no delivery anyway: the deliveries are
//   inserted only for endpoints that are still enabled, undeleted and subscribed at that moment
//   (store/deliveries.ts), exactly as without the cache.
import type { Queryable } from "../db/database.js";
import { processInvalidations } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { selectLiveSubscriptions } from "./store/endpoints.js";

interface Subscriptions {
  organizationId: string;
  /** Endpoint ids by event type. */
  byEventType: ReadonlyMap<string, readonly string[]>;
}

// enqueueEvent is handed only a transaction, by every domain, so the cache listens to every feed of
// the process (db/invalidation.ts). An organisation with no endpoints is cached too (an empty map).
const cache = new ReadThroughCache<Subscriptions>(processInvalidations, {
  topic: "webhook_endpoints",
  max: 10_000,
  ttlMs: 60_000,
});

async function load(db: Queryable, organizationId: string): Promise<Subscriptions> {
  const byEventType = new Map<string, string[]>();
  for (const { endpointId, eventTypes } of await selectLiveSubscriptions(db, organizationId)) {
    for (const eventType of eventTypes) {
      const ids = byEventType.get(eventType);
      if (ids) ids.push(endpointId);
      else byEventType.set(eventType, [endpointId]);
    }
  }
  return { organizationId, byEventType };
}

/** The ids of the organisation's enabled, undeleted endpoints subscribed to `eventType`, as cached. */
export async function subscribedEndpointIds(
  db: Queryable,
  organizationId: string,
  eventType: string,
): Promise<readonly string[]> {
  const subscriptions =
    cache.peek(organizationId) ?? (await cache.get(organizationId, () => load(db, organizationId)));
  return subscriptions?.byEventType.get(eventType) ?? [];
}
