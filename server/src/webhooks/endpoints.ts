// Webhook endpoints: where an organisation's events go, which events, and the secret that signs
// them. Rules: an explicit, non-empty list of known event types; https only, except plain http to
// the local machine outside production (for trying a receiver on a laptop); one secret per endpoint,
// shown once at creation and stored encrypted. Deleting keeps the row (deliveries stay visible).
import { generateWebhookSecret } from "@guard/contract";
import { afterCommit, type Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { isWebhookEventType, wakeWorkers, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./outbox.js";
import type { SecretBox } from "../lib/secret-box.js";
import { cancelQueuedDeliveries } from "./store/deliveries.js";
import {
  insertEndpoint,
  markEndpointDeleted,
  selectEndpoint,
  selectEndpoints,
  updateLiveEndpoint,
  type EndpointRow,
} from "./store/endpoints.js";

export interface WebhookEndpoint {
  endpointId: string;
  url: string;
  events: WebhookEventType[];
  enabled: boolean;
  createdAt: number;
  createdBy: string | null;
  updatedAt: number;
  deletedAt: number | null;
}

const MAX_URL_LENGTH = 2048;
const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The rules of an endpoint URL; returns it normalised by the WHATWG parser. */
export function checkEndpointUrl(raw: string, production: boolean): string {
  if (raw.length > MAX_URL_LENGTH) {
    throw validationError("url", `url must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError("url", "url must be an absolute URL such as https://example.com/hooks");
  }
  if (url.username || url.password) {
    // Credentials in the URL would be shown to every staff member who lists endpoints.
    throw validationError("url", "url must not contain a user name or password");
  }
  if (url.hash) throw validationError("url", "url must not contain a #fragment");
  if (url.protocol === "https:") return url.toString();
  if (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname)) {
    if (production) {
      throw validationError("url", "url must use https in production (http is for local testing only)");
    }
    return url.toString();
  }
  throw validationError(
    "url",
    "url must use https (plain http is allowed only for localhost or 127.0.0.1 outside production)",
  );
}

/** Non-empty, known event types; duplicates dropped, order kept. */
function checkEventTypes(events: readonly string[]): WebhookEventType[] {
  if (events.length === 0) {
    throw validationError(
      "events",
      `events must name at least one event type (${WEBHOOK_EVENT_TYPES.join(", ")})`,
    );
  }
  const out: WebhookEventType[] = [];
  events.forEach((event, index) => {
    if (!isWebhookEventType(event)) {
      throw validationError(
        `events[${index}]`,
        `events[${index}] ${JSON.stringify(event)} is not an event type; use one of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
      );
    }
    if (!out.includes(event)) out.push(event);
  });
  return out;
}

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  endpointId: row.endpoint_id,
  url: row.url,
  // Checked against the known types whenever written.
  events: row.event_types as WebhookEventType[],
  enabled: row.enabled,
  createdAt: row.created_at,
  createdBy: row.created_by,
  updatedAt: row.updated_at,
  deletedAt: row.deleted_at,
});

/** Associated data binding a stored secret to its row. */
export const secretBinding = (organizationId: string, endpointId: string): string =>
  `webhook_endpoints/${organizationId}/${endpointId}`;

export interface CreateEndpointInput {
  organizationId: string;
  url: string;
  events: readonly string[];
  /** Default true. */
  enabled?: boolean | undefined;
  createdBy: string | null;
}

export interface CreatedEndpoint extends WebhookEndpoint {
  /** `whsec_…`; returned this once. */
  secret: string;
}

export async function createEndpoint(
  db: Queryable,
  box: SecretBox,
  input: CreateEndpointInput,
  options: { now: number; production: boolean },
): Promise<CreatedEndpoint> {
  const url = checkEndpointUrl(input.url, options.production);
  const events = checkEventTypes(input.events);
  const endpointId = newId("whe");
  const secret = generateWebhookSecret();
  const row = await insertEndpoint(db, {
    organizationId: input.organizationId,
    endpointId,
    url,
    eventTypes: events,
    secretCiphertext: box.seal(secret, secretBinding(input.organizationId, endpointId)),
    enabled: input.enabled ?? true,
    createdAt: options.now,
    createdBy: input.createdBy,
  });
  return { ...toEndpoint(row), secret };
}

export async function listEndpoints(
  db: Queryable,
  organizationId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<WebhookEndpoint[]> {
  const rows = await selectEndpoints(db, organizationId, options.includeDeleted ?? false);
  return rows.map(toEndpoint);
}

const endpointNotFound = () => notFound("No such webhook endpoint in this organisation");

/** The endpoint, deleted or not; NOT_FOUND when absent or another organisation's. */
export async function getEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<WebhookEndpoint> {
  const row = await selectEndpoint(db, organizationId, endpointId);
  if (!row) throw endpointNotFound();
  return toEndpoint(row);
}

export interface UpdateEndpointInput {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  enabled?: boolean | undefined;
}

/**
 * Changes url, events and/or enabled. Deliveries already queued follow the change: they go to the
 * new URL, and wait while the endpoint is disabled (re-enabling wakes the workers, since some may
 * now be due). NOT_FOUND when absent; CONFLICT for a deleted endpoint.
 */
export async function updateEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  input: UpdateEndpointInput,
  options: { now: number; production: boolean },
): Promise<WebhookEndpoint> {
  const url = input.url === undefined ? undefined : checkEndpointUrl(input.url, options.production);
  const events = input.events === undefined ? undefined : checkEventTypes(input.events);
  const row = await updateLiveEndpoint(
    db,
    organizationId,
    endpointId,
    {
      ...(url === undefined ? {} : { url }),
      ...(events === undefined ? {} : { eventTypes: events }),
      ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    },
    options.now,
  );
  if (!row) {
    await getEndpoint(db, organizationId, endpointId);
    throw new Failure("CONFLICT", "This webhook endpoint was deleted; create a new one");
  }
  // Once the change is visible to them (at once when `db` is not a transaction).
  if (input.enabled || url !== undefined) afterCommit(db, wakeWorkers);
  return toEndpoint(row);
}

/**
 * Deletes (permanently disables) an endpoint and cancels its queued deliveries. `deleted` is false
 * when it already was deleted; NOT_FOUND when absent or another organisation's.
 */
export async function deleteEndpoint(
  tx: Queryable,
  organizationId: string,
  endpointId: string,
  now: number,
): Promise<{ endpointId: string; deleted: boolean }> {
  if (!(await markEndpointDeleted(tx, organizationId, endpointId, now))) {
    await getEndpoint(tx, organizationId, endpointId);
    return { endpointId, deleted: false };
  }
  // A delivery a worker holds right now finishes its attempt: a success is still recorded (the
  // receiver did get it), a failure is not, so the cancellation stands.
  await cancelQueuedDeliveries(tx, organizationId, endpointId);
  return { endpointId, deleted: true };
}
