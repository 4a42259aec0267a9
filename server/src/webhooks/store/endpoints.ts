// The webhook_endpoints table: where an organisation's events go. Only the webhooks domain reads
// or writes it, through these functions; every statement is scoped to one organisation.
import type { Selectable } from "kysely";
import type { Queryable } from "../../db/database.js";
import { first, qb, rows, type Tables } from "../../db/query.js";

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
export function updateLiveEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  changes: { url?: string; eventTypes?: string[]; enabled?: boolean },
  now: number,
): Promise<EndpointRow | undefined> {
  return first(
    db,
    qb
      .updateTable("webhook_endpoints")
      .set({
        ...(changes.url === undefined ? {} : { url: changes.url }),
        ...(changes.eventTypes === undefined ? {} : { event_types: changes.eventTypes }),
        ...(changes.enabled === undefined ? {} : { enabled: changes.enabled }),
        updated_at: now,
      })
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId)
      .where("deleted_at", "is", null)
      .returning(ENDPOINT_COLUMNS),
  );
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
  return changed.length > 0;
}

/** The enabled, undeleted endpoints of the organisation subscribed to `eventType`. */
export async function selectSubscribedEndpointIds(
  db: Queryable,
  organizationId: string,
  eventType: string,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("webhook_endpoints")
      .select("endpoint_id")
      .where("organization_id", "=", organizationId)
      .where("enabled", "=", true)
      .where("deleted_at", "is", null)
      .where((eb) => eb(eb.val(eventType), "=", eb.fn.any("event_types"))),
  );
  return found.map((row) => row.endpoint_id);
}
