// The webhook_endpoints table: where an organisation's events go. Only the webhooks domain reads
// or writes it, through these functions; every statement is scoped to one organisation.
import type { Selectable } from "kysely";
import type { Queryable } from "../../db/database.js";
import { announceInvalidation } from "../../db/invalidation.js";
import { execute, first, qb, rows, sql, type Tables } from "../../db/query.js";

/**
 * Every change to which endpoints receive which events is announced through the writing `db`, so
 * each instance's cached subscriptions (webhooks/subscriptions.ts) drop the organisation's list
 * when it commits. Run the change in a transaction, so the two commit together.
 */
function announceSubscriptionsChanged(db: Queryable, organizationId: string): Promise<void> {
  return announceInvalidation(db, { topic: "webhook_endpoints", organizationId });
}

const ENDPOINT_COLUMNS = [
  "endpoint_id",
  "url",
  "event_types",
  "enabled",
  "created_at",
  "created_by",
  "updated_at",
  "deleted_at",
] as const;

export type EndpointRow = Pick<Selectable<Tables["webhook_endpoints"]>, (typeof ENDPOINT_COLUMNS)[number]>;

export async function insertEndpoint(
  db: Queryable,
  endpoint: {
    organizationId: string;
    endpointId: string;
    url: string;
    eventTypes: string[];
    secretCiphertext: string;
    enabled: boolean;
    createdAt: number;
    createdBy: string | null;
  },
): Promise<EndpointRow> {
  const row = await first(
    db,
    qb
      .insertInto("webhook_endpoints")
      .values({
        organization_id: endpoint.organizationId,
        endpoint_id: endpoint.endpointId,
        url: endpoint.url,
        event_types: endpoint.eventTypes,
        secret_ciphertext: endpoint.secretCiphertext,
        enabled: endpoint.enabled,
        created_at: endpoint.createdAt,
        created_by: endpoint.createdBy,
        updated_at: endpoint.createdAt,
      })
      .returning(ENDPOINT_COLUMNS),
  );
  await announceSubscriptionsChanged(db, endpoint.organizationId);
  return row!;
}

/** Newest first. */
export function selectEndpoints(
  db: Queryable,
  organizationId: string,
  includeDeleted: boolean,
): Promise<EndpointRow[]> {
  let query = qb
    .selectFrom("webhook_endpoints")
    .select(ENDPOINT_COLUMNS)
    .where("organization_id", "=", organizationId);
  if (!includeDeleted) query = query.where("deleted_at", "is", null);
  return rows(db, query.orderBy("created_at", "desc").orderBy("endpoint_id"));
}

/** The endpoint, deleted or not. */
export function selectEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<EndpointRow | undefined> {
  return first(
    db,
    qb
      .selectFrom("webhook_endpoints")
      .select(ENDPOINT_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId),
  );
}

/** Changes the given fields of an undeleted endpoint; undefined when there is none. */
export async function updateLiveEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  changes: { url?: string; eventTypes?: string[]; enabled?: boolean },
  now: number,
): Promise<EndpointRow | undefined> {
  const row = await first(
    db,
    qb
      .updateTable("webhook_endpoints")
      .set({
        // A new URL is a new receiver: its circuit starts closed.
        ...(changes.url === undefined
          ? {}
          : { url: changes.url, consecutive_failures: 0, circuit_trips: 0, circuit_open_until: null }),
        ...(changes.eventTypes === undefined ? {} : { event_types: changes.eventTypes }),
        ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
        updated_at: now,
      })
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId)
      .where("deleted_at", "is", null)
      .returning(ENDPOINT_COLUMNS),
  );
  if (row && (changes.eventTypes !== undefined || changes.enabled !== undefined)) {
    await announceSubscriptionsChanged(db, organizationId);
  }
  return row;
}

/** Disables and marks deleted; false when absent or already deleted. */
export async function markEndpointDeleted(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  now: number,
): Promise<boolean> {
  const changed = await rows(
    db,
    qb
      .updateTable("webhook_endpoints")
      .set({ enabled: false, deleted_at: now, updated_at: now })
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId)
      .where("deleted_at", "is", null)
      .returning("endpoint_id"),
  );
  if (changed.length === 0) return false;
  await announceSubscriptionsChanged(db, organizationId);
  return true;
}

/** The organisation's enabled, undeleted endpoints and the event types each is subscribed to. */
export async function selectLiveSubscriptions(
  db: Queryable,
  organizationId: string,
): Promise<{ endpointId: string; eventTypes: string[] }[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("webhook_endpoints")
      .select(["endpoint_id", "event_types"])
      .where("organization_id", "=", organizationId)
      .where("enabled", "=", true)
      .where("deleted_at", "is", null)
      .orderBy("endpoint_id"),
  );
  return found.map((row) => ({ endpointId: row.endpoint_id, eventTypes: row.event_types }));
}

export interface BreakerPolicy {
  /** Consecutive failed attempts that open the circuit. */
  failureThreshold: number;
  /** First cool-down; it doubles with every trip since the last success, up to cooldownCapMs. */
  cooldownBaseMs: number;
  cooldownCapMs: number;
}

/**
 * Counts a failed attempt against the endpoint's circuit breaker, in one statement so workers on
 * several instances cannot lose a count. The circuit opens (or, half-open, opens again for twice
 * as long) when the count reaches the threshold; a failure that lands while it is already open,
 * from a send that started before it opened, is counted but does not extend the cool-down.
 */
export async function countEndpointFailure(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  policy: BreakerPolicy,
  now: number,
): Promise<void> {
  const trips = sql<boolean>`(consecutive_failures + 1 >= ${policy.failureThreshold}::int
    AND (circuit_open_until IS NULL OR circuit_open_until <= ${now}::bigint))`;
  await execute(
    db,
    qb
      .updateTable("webhook_endpoints")
      .set((eb) => ({
        consecutive_failures: eb("consecutive_failures", "+", 1),
        circuit_trips: sql<number>`CASE WHEN ${trips} THEN circuit_trips + 1 ELSE circuit_trips END`,
        circuit_open_until: sql<number | null>`CASE WHEN ${trips}
          THEN ${now}::bigint + LEAST(${policy.cooldownCapMs}::bigint,
            (${policy.cooldownBaseMs}::float8 * power(2, LEAST(circuit_trips, 40)))::bigint)
          ELSE circuit_open_until END`,
      }))
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId),
  );
}

/** Closes the endpoint's circuit after a 2xx (no write when it is closed with no failures). */
export async function resetEndpointFailures(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("webhook_endpoints")
      .set({ consecutive_failures: 0, circuit_trips: 0, circuit_open_until: null })
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId)
      .where((eb) => eb.or([eb("consecutive_failures", "<>", 0), eb("circuit_open_until", "is not", null)])),
  );
}
