// What staff see of deliveries, and the manual re-send. Reads are per endpoint and always scoped to
// the caller's organisation: an endpoint or delivery of another organisation is NOT_FOUND.
import type { Queryable } from "../db/database.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { getEndpoint } from "./endpoints.js";
import { wakeWorkers, type WebhookEventType } from "./outbox.js";
import {
  requeueDelivery,
  selectAttempts,
  selectDelivery,
  selectDeliveryPage,
  type DeliveryRow,
} from "./store/deliveries.js";

export type DeliveryStatus = "pending" | "sending" | "delivered" | "dead" | "cancelled";

export interface WebhookDelivery {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: WebhookEventType;
  status: DeliveryStatus;
  attempts: number;
  createdAt: number;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
}

export interface WebhookDeliveryAttempt {
  attempt: number;
  startedAt: number;
  finishedAt: number;
  statusCode: number | null;
  error: string | null;
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  payload: Record<string, unknown>;
  history: WebhookDeliveryAttempt[];
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => {
  // The table's CHECK constraint holds the statuses; event types are checked when enqueued.
  const status = row.status as DeliveryStatus;
  return {
    deliveryId: row.delivery_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type as WebhookEventType,
    status,
    attempts: row.attempts,
    createdAt: row.created_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    // A claim's lease end is an internal detail; while sending there is no "next" attempt to show.
    nextAttemptAt: status === "pending" ? row.next_attempt_at : null,
    deliveredAt: row.delivered_at,
  };
};

const deliveryNotFound = () => notFound("No such delivery for this webhook endpoint");

const CURSOR = /^(\d{1,16})\.([a-z]{2,6}_[0-9A-Za-z]{8,64})$/;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** Newest first, keyset-paginated; `limit` defaults to 50 and is clamped to 200. */
export async function listDeliveries(
  db: Queryable,
  input: {
    organizationId: string;
    endpointId: string;
    status?: DeliveryStatus | undefined;
    limit?: number | undefined;
    cursor?: string | undefined;
  },
): Promise<DeliveryPage> {
  await getEndpoint(db, input.organizationId, input.endpointId);
  let before: { createdAt: number; deliveryId: string } | undefined;
  if (input.cursor !== undefined) {
    const match = CURSOR.exec(input.cursor);
    if (!match) throw validationError("cursor", "cursor must be a nextCursor from an earlier page");
    before = { createdAt: Number(match[1]), deliveryId: match[2]! };
  }
  const limit = Math.min(input.limit ?? DEFAULT_PAGE, MAX_PAGE);
  const rows = await selectDeliveryPage(db, {
    organizationId: input.organizationId,
    endpointId: input.endpointId,
    status: input.status,
    before,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit).map(toDelivery);
  const last = page[page.length - 1];
  return {
    deliveries: page,
    nextCursor: rows.length > limit && last ? `${last.createdAt}.${last.deliveryId}` : null,
  };
}

const HISTORY_LIMIT = 100;

/** One delivery with its event payload and its latest attempts (newest first). */
export async function getDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
): Promise<WebhookDeliveryDetail> {
  await getEndpoint(db, input.organizationId, input.endpointId);
  const row = await selectDelivery(db, input);
  if (!row) throw deliveryNotFound();
  const attempts = await selectAttempts(db, input.organizationId, input.deliveryId, HISTORY_LIMIT);
  return {
    ...toDelivery(row),
    payload: isRecord(row.payload) ? row.payload : {},
    history: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.started_at,
      finishedAt: a.finished_at,
      statusCode: a.status_code,
      error: a.error,
    })),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Queues a delivery to be sent again now, with a fresh retry budget; the next attempt is a new
 * attempt with the same eventId, so receivers that de-duplicate see it once. A delivery being sent
 * at this moment is left alone, and repeating the call while it is queued changes nothing but the
 * time, so retrying the request is harmless. A deleted endpoint's deliveries are not re-sent
 * (CONFLICT).
 */
export async function resendDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
  now: number,
): Promise<WebhookDelivery> {
  const endpoint = await getEndpoint(db, input.organizationId, input.endpointId);
  if (endpoint.deletedAt !== null) {
    throw new Failure("CONFLICT", "This webhook endpoint was deleted; its deliveries cannot be re-sent");
  }
  await requeueDelivery(db, input, now);
  const row = await selectDelivery(db, input);
  if (!row) throw deliveryNotFound();
  wakeWorkers();
  return toDelivery(row);
}
