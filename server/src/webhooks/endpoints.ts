// Webhook endpoints: where an organisation's events go, which events, and the secret that signs
// them. Rules: an explicit, non-empty list of known event types; https only, except plain http to
// the local machine outside production (for trying a receiver on a laptop); one secret per endpoint,
// shown once at creation and stored encrypted. Deleting keeps the row (deliveries stay visible).
import { generateWebhookSecret } from "@guard/contract";
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { isWebhookEventType, WEBHOOK_EVENT_TYPES, type WebhookEventType } from "./outbox.js";
import type { SecretBox } from "./secret-box.js";

/** Bad input, naming the field. A RangeError so the CLI reports it as a usage problem. */
export class WebhookInputError extends RangeError {
  override name = "WebhookInputError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

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
    throw new WebhookInputError("url", `url must be at most ${MAX_URL_LENGTH} characters`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookInputError("url", "url must be an absolute URL such as https://example.com/hooks");
  }
  if (url.username || url.password) {
    // Credentials in the URL would be shown to every staff member who lists endpoints.
    throw new WebhookInputError("url", "url must not contain a user name or password");
  }
  if (url.hash) throw new WebhookInputError("url", "url must not contain a #fragment");
  if (url.protocol === "https:") return url.toString();
  if (url.protocol === "http:" && LOCAL_HOSTS.has(url.hostname)) {
    if (production) {
      throw new WebhookInputError("url", "url must use https in production (http is for local testing only)");
    }
    return url.toString();
  }
  throw new WebhookInputError(
    "url",
    "url must use https (plain http is allowed only for localhost or 127.0.0.1 outside production)",
  );
}

/** Non-empty, known event types; duplicates dropped, order kept. */
export function checkEventTypes(events: readonly string[], field = "events"): WebhookEventType[] {
  if (events.length === 0) {
    throw new WebhookInputError(
      field,
      `${field} must name at least one event type (${WEBHOOK_EVENT_TYPES.join(", ")})`,
    );
  }
  const out: WebhookEventType[] = [];
  events.forEach((event, index) => {
    if (!isWebhookEventType(event)) {
      throw new WebhookInputError(
        `${field}[${index}]`,
        `${field}[${index}] ${JSON.stringify(event)} is not an event type; use one of ${WEBHOOK_EVENT_TYPES.join(", ")}`,
      );
    }
    if (!out.includes(event)) out.push(event);
  });
  return out;
}

type EndpointRow = {
  endpoint_id: string;
  url: string;
  event_types: string[];
  enabled: boolean;
  created_at: number;
  created_by: string | null;
  updated_at: number;
  deleted_at: number | null;
};

const COLUMNS = "endpoint_id, url, event_types, enabled, created_at, created_by, updated_at, deleted_at";

const toEndpoint = (row: EndpointRow): WebhookEndpoint => ({
  endpointId: row.endpoint_id,
  url: row.url,
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
  enabled?: boolean;
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
  const rows = await db.query<EndpointRow>(
    `INSERT INTO webhook_endpoints
       (organization_id, endpoint_id, url, event_types, secret_ciphertext, enabled, created_at,
        created_by, updated_at)
     VALUES ($1, $2, $3, $4::text[], $5, $6, $7, $8, $7)
     RETURNING ${COLUMNS}`,
    [
      input.organizationId,
      endpointId,
      url,
      events,
      box.seal(secret, secretBinding(input.organizationId, endpointId)),
      input.enabled ?? true,
      options.now,
      input.createdBy,
    ],
  );
  return { ...toEndpoint(rows[0] as EndpointRow), secret };
}

export async function listEndpoints(
  db: Queryable,
  organizationId: string,
  options: { includeDeleted?: boolean } = {},
): Promise<WebhookEndpoint[]> {
  const rows = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints
      WHERE organization_id = $1 AND ($2 OR deleted_at IS NULL)
      ORDER BY created_at DESC, endpoint_id`,
    [organizationId, options.includeDeleted ?? false],
  );
  return rows.map(toEndpoint);
}

/** The endpoint, deleted or not; undefined when absent or another organisation's. */
export async function getEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<WebhookEndpoint | undefined> {
  const rows = await db.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE organization_id = $1 AND endpoint_id = $2`,
    [organizationId, endpointId],
  );
  return rows[0] ? toEndpoint(rows[0]) : undefined;
}

export class EndpointDeletedError extends Error {
  override name = "EndpointDeletedError";
}

export interface UpdateEndpointInput {
  url?: string;
  events?: readonly string[];
  enabled?: boolean;
}

/**
 * Changes url, events and/or enabled. Deliveries already queued follow the change: they go to the
 * new URL, and wait while the endpoint is disabled. Undefined when absent; throws
 * EndpointDeletedError for a deleted endpoint.
 */
export async function updateEndpoint(
  db: Queryable,
  organizationId: string,
  endpointId: string,
  input: UpdateEndpointInput,
  options: { now: number; production: boolean },
): Promise<WebhookEndpoint | undefined> {
  const url = input.url === undefined ? null : checkEndpointUrl(input.url, options.production);
  const events = input.events === undefined ? null : checkEventTypes(input.events);
  const rows = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints
        SET url = COALESCE($3, url),
            event_types = COALESCE($4::text[], event_types),
            enabled = COALESCE($5, enabled),
            updated_at = $6
      WHERE organization_id = $1 AND endpoint_id = $2 AND deleted_at IS NULL
      RETURNING ${COLUMNS}`,
    [organizationId, endpointId, url, events, input.enabled ?? null, options.now],
  );
  if (rows[0]) return toEndpoint(rows[0]);
  const existing = await getEndpoint(db, organizationId, endpointId);
  if (existing) throw new EndpointDeletedError("This webhook endpoint was deleted; create a new one");
  return undefined;
}

/**
 * Deletes (permanently disables) an endpoint and cancels its queued deliveries. `deleted` is false
 * when it already was deleted; undefined when absent or another organisation's.
 */
export async function deleteEndpoint(
  tx: Queryable,
  organizationId: string,
  endpointId: string,
  now: number,
): Promise<{ endpointId: string; deleted: boolean } | undefined> {
  const rows = await tx.query(
    `UPDATE webhook_endpoints SET enabled = FALSE, deleted_at = $3, updated_at = $3
      WHERE organization_id = $1 AND endpoint_id = $2 AND deleted_at IS NULL
      RETURNING endpoint_id`,
    [organizationId, endpointId, now],
  );
  if (rows.length === 0) {
    return (await getEndpoint(tx, organizationId, endpointId)) ? { endpointId, deleted: false } : undefined;
  }
  // A delivery a worker holds right now finishes its attempt: a success is still recorded (the
  // receiver did get it), a failure is not, so the cancellation stands.
  await tx.query(
    `UPDATE webhook_deliveries
        SET status = 'cancelled', next_attempt_at = NULL, claim_token = NULL,
            last_error = COALESCE(last_error, 'endpoint deleted')
      WHERE organization_id = $1 AND endpoint_id = $2 AND status IN ('pending', 'sending')`,
    [organizationId, endpointId],
  );
  return { endpointId, deleted: true };
}

/** The endpoint's URL and plaintext secret, for signing. */
export async function loadSigningSecret(
  db: Queryable,
  box: SecretBox,
  organizationId: string,
  endpointId: string,
): Promise<string | undefined> {
  const rows = await db.query<{ secret_ciphertext: string }>(
    "SELECT secret_ciphertext FROM webhook_endpoints WHERE organization_id = $1 AND endpoint_id = $2",
    [organizationId, endpointId],
  );
  return rows[0] ? box.open(rows[0].secret_ciphertext, secretBinding(organizationId, endpointId)) : undefined;
}
