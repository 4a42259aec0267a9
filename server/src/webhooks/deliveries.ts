// What staff see of deliveries, and the manual re-send. Reads are per endpoint and always scoped to
// the caller's organisation.
import type { Queryable } from "../db/database.js";
import { WebhookInputError } from "./endpoints.js";

export const DELIVERY_STATUSES = ["pending", "sending", "delivered", "dead", "cancelled"] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface WebhookDelivery {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
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

type DeliveryRow = {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  created_at: number;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
  payload?: Record<string, unknown>;
};

const SELECT_DELIVERY = `
  SELECT d.delivery_id, d.endpoint_id, d.event_id, ev.event_type, d.status, d.attempts, d.created_at,
         d.last_attempt_at, d.last_status_code, d.last_error, d.next_attempt_at, d.delivered_at`;
const FROM_DELIVERY = `
    FROM webhook_deliveries d
    JOIN webhook_events ev ON ev.organization_id = d.organization_id AND ev.event_id = d.event_id`;

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  deliveryId: row.delivery_id,
  endpointId: row.endpoint_id,
  eventId: row.event_id,
  eventType: row.event_type,
  status: row.status,
  attempts: row.attempts,
  createdAt: row.created_at,
  lastAttemptAt: row.last_attempt_at,
  lastStatusCode: row.last_status_code,
  lastError: row.last_error,
  // A claim's lease end is an internal detail; while sending there is no "next" attempt to show.
  nextAttemptAt: row.status === "pending" ? row.next_attempt_at : null,
  deliveredAt: row.delivered_at,
});

const CURSOR = /^(\d{1,16})\.([a-z]{2,6}_[0-9A-Za-z]{8,64})$/;

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** Newest first, keyset-paginated. */
export async function listDeliveries(
  db: Queryable,
  input: {
    organizationId: string;
    endpointId: string;
    status?: DeliveryStatus;
    limit: number;
    cursor?: string;
  },
): Promise<DeliveryPage> {
  let before: [number, string] | null = null;
  if (input.cursor !== undefined) {
    const match = CURSOR.exec(input.cursor);
    if (!match) throw new WebhookInputError("cursor", "cursor must be a nextCursor from an earlier page");
    before = [Number(match[1]), match[2] as string];
  }
  const rows = await db.query<DeliveryRow>(
    `${SELECT_DELIVERY} ${FROM_DELIVERY}
      WHERE d.organization_id = $1 AND d.endpoint_id = $2 AND ($3::text IS NULL OR d.status = $3)
        AND ($4::bigint IS NULL OR (d.created_at, d.delivery_id) < ($4::bigint, $5::text))
      ORDER BY d.created_at DESC, d.delivery_id DESC
      LIMIT $6`,
    [
      input.organizationId,
      input.endpointId,
      input.status ?? null,
      before?.[0] ?? null,
      before?.[1] ?? null,
      input.limit + 1,
    ],
  );
  const page = rows.slice(0, input.limit).map(toDelivery);
  const last = page[page.length - 1];
  return {
    deliveries: page,
    nextCursor: rows.length > input.limit && last ? `${last.createdAt}.${last.deliveryId}` : null,
  };
}

const HISTORY_LIMIT = 100;

/** One delivery with its event payload and its latest attempts (newest first). */
export async function getDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
): Promise<WebhookDeliveryDetail | undefined> {
  const rows = await db.query<DeliveryRow>(
    `${SELECT_DELIVERY}, ev.payload ${FROM_DELIVERY}
      WHERE d.organization_id = $1 AND d.endpoint_id = $2 AND d.delivery_id = $3`,
    [input.organizationId, input.endpointId, input.deliveryId],
  );
  const row = rows[0];
  if (!row) return undefined;
  const attempts = await db.query<{
    attempt: number;
    started_at: number;
    finished_at: number;
    status_code: number | null;
    error: string | null;
  }>(
    `SELECT attempt, started_at, finished_at, status_code, error FROM webhook_delivery_attempts
      WHERE organization_id = $1 AND delivery_id = $2
      ORDER BY attempt DESC LIMIT ${HISTORY_LIMIT}`,
    [input.organizationId, input.deliveryId],
  );
  return {
    ...toDelivery(row),
    payload: row.payload ?? {},
    history: attempts.map((a) => ({
      attempt: a.attempt,
      startedAt: a.started_at,
      finishedAt: a.finished_at,
      statusCode: a.status_code,
      error: a.error,
    })),
  };
}

/**
 * Queues a delivery to be sent again now, with a fresh retry budget; the next attempt is a new
 * attempt with the same eventId, so receivers that de-duplicate see it once. A delivery being sent
 * at this moment is left alone, and repeating the call while it is queued changes nothing but the
 * time, so retrying the request is harmless. Undefined when absent.
 */
export async function resendDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
  now: number,
): Promise<WebhookDelivery | undefined> {
  await db.query(
    `UPDATE webhook_deliveries
        SET status = 'pending', next_attempt_at = $4, retry_window_start = $4, claim_token = NULL
      WHERE organization_id = $1 AND endpoint_id = $2 AND delivery_id = $3
        AND status IN ('pending', 'delivered', 'dead')`,
    [input.organizationId, input.endpointId, input.deliveryId, now],
  );
  const rows = await db.query<DeliveryRow>(
    `${SELECT_DELIVERY} ${FROM_DELIVERY}
      WHERE d.organization_id = $1 AND d.endpoint_id = $2 AND d.delivery_id = $3`,
    [input.organizationId, input.endpointId, input.deliveryId],
  );
  return rows[0] ? toDelivery(rows[0]) : undefined;
}
