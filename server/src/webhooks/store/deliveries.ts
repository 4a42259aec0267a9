// The outbox tables: webhook_events, webhook_deliveries (one per event and subscribed endpoint,
// also the workers' queue) and webhook_delivery_attempts. Only the webhooks domain reads or writes
// them, through these functions. Every statement is scoped to one organisation except the claim,
// which takes due work across organisations by design.
import type { ExpressionBuilder } from "kysely";
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql, type Tables } from "../../db/query.js";

/** What a worker needs to sign and send one delivery: the event and the endpoint (secret sealed). */
export function selectSendMaterial(
  db: Queryable,
  organizationId: string,
  eventId: string,
  endpointId: string,
): Promise<
  | { event_type: string; payload: unknown; created_at: number; url: string; secret_ciphertext: string }
  | undefined
> {
  return first(
    db,
    qb
      .selectFrom(["webhook_events as ev", "webhook_endpoints as e"])
      .select(["ev.event_type", "ev.payload", "ev.created_at", "e.url", "e.secret_ciphertext"])
      .where("ev.organization_id", "=", organizationId)
      .where("ev.event_id", "=", eventId)
      .where("e.organization_id", "=", organizationId)
      .where("e.endpoint_id", "=", endpointId),
  );
}

export async function insertEvent(
  db: Queryable,
  event: { organizationId: string; eventId: string; eventType: string; payload: unknown; createdAt: number },
): Promise<void> {
  await execute(
    db,
    qb.insertInto("webhook_events").values({
      organization_id: event.organizationId,
      event_id: event.eventId,
      event_type: event.eventType,
      payload: JSON.stringify(event.payload),
      created_at: event.createdAt,
    }),
    // Every consent, DSR and grievance write runs it: planned once per connection.
    { preparedAs: "webhook_event_insert" },
  );
}

/**
 * One pending delivery of the event per listed endpoint that is, as this statement runs, still
 * enabled, undeleted and subscribed to the event's type: the list may come from a cache that has
 * not yet heard of a change (webhooks/subscriptions.ts), and a delivery to an endpoint since
 * deleted, disabled or unsubscribed must not be made (nor sent when it is re-enabled).
 */
export async function insertPendingDeliveries(
  db: Queryable,
  input: {
    organizationId: string;
    eventId: string;
    eventType: string;
    deliveries: readonly { deliveryId: string; endpointId: string }[];
    now: number;
  },
): Promise<void> {
  if (input.deliveries.length === 0) return;
  // Hand-written: one statement on every enqueued event with endpoints, prepared once per session.
  await db.query(
    `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
                                     next_attempt_at, retry_window_start, created_at)
     SELECT $1, d.delivery_id, d.endpoint_id, $2, 'pending', 0, $4, $4, $4
       FROM unnest($5::text[], $6::text[]) AS d (delivery_id, endpoint_id)
       JOIN webhook_endpoints e ON e.organization_id = $1 AND e.endpoint_id = d.endpoint_id
      WHERE e.enabled AND e.deleted_at IS NULL AND $3 = ANY (e.event_types)`,
    [
      input.organizationId,
      input.eventId,
      input.eventType,
      input.now,
      input.deliveries.map((delivery) => delivery.deliveryId),
      input.deliveries.map((delivery) => delivery.endpointId),
    ],
    { preparedAs: "webhook_insert_pending_deliveries" },
  );
}

/** Inserts several events of one organisation in one statement (a batch writer's events). */
export async function insertEvents(
  db: Queryable,
  organizationId: string,
  events: readonly { eventId: string; eventType: string; payload: unknown; createdAt: number }[],
): Promise<void> {
  if (events.length === 0) return;
  await execute(
    db,
    qb.insertInto("webhook_events").values(
      events.map((event) => ({
        organization_id: organizationId,
        event_id: event.eventId,
        event_type: event.eventType,
        payload: JSON.stringify(event.payload),
        created_at: event.createdAt,
      })),
    ),
  );
}

/**
 * insertPendingDeliveries for several events of one organisation in one statement: each delivery
 * names its event and the event's type, and is made only if its endpoint is, as this runs, enabled,
 * undeleted and subscribed to that type.
 */
export async function insertPendingDeliveriesOfEvents(
  db: Queryable,
  input: {
    organizationId: string;
    deliveries: readonly { deliveryId: string; endpointId: string; eventId: string; eventType: string }[];
    now: number;
  },
): Promise<void> {
  if (input.deliveries.length === 0) return;
  // Hand-written: UPDATE-free INSERT … SELECT over unnest, as insertPendingDeliveries.
  await db.query(
    `INSERT INTO webhook_deliveries (organization_id, delivery_id, endpoint_id, event_id, status, attempts,
                                     next_attempt_at, retry_window_start, created_at)
     SELECT $1, d.delivery_id, d.endpoint_id, d.event_id, 'pending', 0, $2, $2, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[]) AS d (delivery_id, endpoint_id, event_id, event_type)
       JOIN webhook_endpoints e ON e.organization_id = $1 AND e.endpoint_id = d.endpoint_id
      WHERE e.enabled AND e.deleted_at IS NULL AND d.event_type = ANY (e.event_types)`,
    [
      input.organizationId,
      input.now,
      input.deliveries.map((delivery) => delivery.deliveryId),
      input.deliveries.map((delivery) => delivery.endpointId),
      input.deliveries.map((delivery) => delivery.eventId),
      input.deliveries.map((delivery) => delivery.eventType),
    ],
  );
}

/** Cancels the endpoint's queued deliveries (those waiting and those a worker holds). */
export async function cancelQueuedDeliveries(
  db: Queryable,
  organizationId: string,
  endpointId: string,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("webhook_deliveries")
      .set((eb) => ({
        status: "cancelled",
        next_attempt_at: null,
        claim_token: null,
        last_error: eb.fn.coalesce("last_error", eb.val("endpoint deleted")),
      }))
      .where("organization_id", "=", organizationId)
      .where("endpoint_id", "=", endpointId)
      .where("status", "in", ["pending", "sending"]),
  );
}

const DELIVERY_COLUMNS = [
  "d.delivery_id",
  "d.endpoint_id",
  "d.event_id",
  "ev.event_type",
  "d.status",
  "d.attempts",
  "d.created_at",
  "d.last_attempt_at",
  "d.last_status_code",
  "d.last_error",
  "d.delivered_at",
] as const;

const deliveriesWithEvents = () =>
  qb
    .selectFrom("webhook_deliveries as d")
    .innerJoin("webhook_events as ev", (join) =>
      join.onRef("ev.organization_id", "=", "d.organization_id").onRef("ev.event_id", "=", "d.event_id"),
    )
    .innerJoin("webhook_endpoints as e", (join) =>
      join.onRef("e.organization_id", "=", "d.organization_id").onRef("e.endpoint_id", "=", "d.endpoint_id"),
    )
    .select(DELIVERY_COLUMNS)
    // While the endpoint's circuit is open its queued deliveries wait for the cool-down to end
    // (GREATEST ignores the NULL of a closed circuit).
    .select(
      sql<number | null>`CASE WHEN d.next_attempt_at IS NOT NULL
        THEN GREATEST(d.next_attempt_at, e.circuit_open_until) END`.as("next_attempt_at"),
    );

export type DeliveryRow = {
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  status: string;
  attempts: number;
  created_at: number;
  last_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: number | null;
  delivered_at: number | null;
};

/** The endpoint's deliveries, newest first, older than `before` (created_at, delivery_id) when given. */
export function selectDeliveryPage(
  db: Queryable,
  input: {
    organizationId: string;
    endpointId: string;
    status: string | undefined;
    before: { createdAt: number; deliveryId: string } | undefined;
    limit: number;
  },
): Promise<DeliveryRow[]> {
  let query = deliveriesWithEvents()
    .where("d.organization_id", "=", input.organizationId)
    .where("d.endpoint_id", "=", input.endpointId);
  if (input.status !== undefined) query = query.where("d.status", "=", input.status);
  const before = input.before;
  if (before) {
    query = query.where((eb) =>
      eb(eb.refTuple("d.created_at", "d.delivery_id"), "<", eb.tuple(before.createdAt, before.deliveryId)),
    );
  }
  return rows(db, query.orderBy("d.created_at", "desc").orderBy("d.delivery_id", "desc").limit(input.limit));
}

export function selectDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
): Promise<(DeliveryRow & { payload: unknown }) | undefined> {
  return first(
    db,
    deliveriesWithEvents()
      .select("ev.payload")
      .where("d.organization_id", "=", input.organizationId)
      .where("d.endpoint_id", "=", input.endpointId)
      .where("d.delivery_id", "=", input.deliveryId),
  );
}

/** The delivery's latest `limit` attempts, newest first. */
export function selectAttempts(
  db: Queryable,
  organizationId: string,
  deliveryId: string,
  limit: number,
): Promise<
  {
    attempt: number;
    started_at: number;
    finished_at: number;
    status_code: number | null;
    error: string | null;
  }[]
> {
  return rows(
    db,
    qb
      .selectFrom("webhook_delivery_attempts")
      .select(["attempt", "started_at", "finished_at", "status_code", "error"])
      .where("organization_id", "=", organizationId)
      .where("delivery_id", "=", deliveryId)
      .orderBy("attempt", "desc")
      .limit(limit),
  );
}

/**
 * Queues the delivery now with a fresh retry window, unless a worker is sending it or it was
 * cancelled.
 */
export async function requeueDelivery(
  db: Queryable,
  input: { organizationId: string; endpointId: string; deliveryId: string },
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("webhook_deliveries")
      .set({ status: "pending", next_attempt_at: now, retry_window_start: now, claim_token: null })
      .where("organization_id", "=", input.organizationId)
      .where("endpoint_id", "=", input.endpointId)
      .where("delivery_id", "=", input.deliveryId)
      .where("status", "in", ["pending", "delivered", "dead"]),
  );
}

export interface ClaimInput {
  now: number;
  /** The most deliveries to claim in all. */
  limit: number;
  /** The most sends in flight per endpoint, across every worker; 1 while the circuit is half-open. */
  endpointConcurrency: number;
  leaseUntil: number;
  claimToken: string;
  /** Organisations whose deliveries wait where they are (disabled ones: accounts/organization-status.ts). */
  skipOrganizations?: readonly string[];
}

export type ClaimedRow = {
  organization_id: string;
  delivery_id: string;
  endpoint_id: string;
  event_id: string;
  attempts: number;
  retry_window_start: number;
};

// A delivery is due when pending and its time has come, or sending with its lease run out (the
// worker holding it died). Literal statuses, so the planner can use the partial index.
const isDue = sql<boolean>`d.status IN ('pending', 'sending')`;

/**
 * Claims up to `limit` due deliveries, fairly across endpoints of every organisation, marking them
 * `sending` until `leaseUntil` under `claimToken` and counting the attempt. Run it in a transaction:
 *
 * 1. Lock (FOR UPDATE SKIP LOCKED) the enabled endpoints with due work, whose circuit is closed or
 *    half-open and which have a free slot, oldest due delivery first. Holding these row locks makes
 *    claims for one endpoint take turns across workers, so the in-flight count read in step 2 is
 *    exact.
 * 2. In a second statement (so it sees every claim committed before the locks were granted): per
 *    locked endpoint, count its sends in flight and take its oldest due deliveries into the free
 *    slots (FOR UPDATE SKIP LOCKED), then keep `limit` of them round-robin (every endpoint's first,
 *    then every endpoint's second, ...) and mark them claimed.
 *
 * A slow endpoint therefore holds at most `endpointConcurrency` sends, and its backlog never hides
 * another endpoint's due deliveries.
 */
export async function claimDue(db: Queryable, input: ClaimInput): Promise<ClaimedRow[]> {
  const slots = sql<number>`CASE WHEN e.circuit_open_until IS NULL THEN ${input.endpointConcurrency}::int ELSE 1 END`;
  const inFlight = (eb: ExpressionBuilder<Tables & { e: Tables["webhook_endpoints"] }, "e">) =>
    eb
      .selectFrom("webhook_deliveries as s")
      .select((s) => s.fn.countAll<number>().as("n"))
      .whereRef("s.organization_id", "=", "e.organization_id")
      .whereRef("s.endpoint_id", "=", "e.endpoint_id")
      .where("s.status", "=", "sending")
      .where("s.next_attempt_at", ">", input.now);
  const oldestDue = (eb: ExpressionBuilder<Tables & { e: Tables["webhook_endpoints"] }, "e">) =>
    eb
      .selectFrom("webhook_deliveries as d")
      .select("d.next_attempt_at as oldest")
      .whereRef("d.organization_id", "=", "e.organization_id")
      .whereRef("d.endpoint_id", "=", "e.endpoint_id")
      .where(isDue)
      .where("d.next_attempt_at", "<=", input.now)
      .orderBy("d.next_attempt_at")
      .limit(1);

  const endpoints = await rows(
    db,
    qb
      .selectFrom("webhook_endpoints as e")
      .innerJoinLateral(
        (eb) => oldestDue(eb).as("due"),
        (join) => join.onTrue(),
      )
      .select(["e.organization_id", "e.endpoint_id"])
      .where("e.enabled", "=", true)
      .where("e.deleted_at", "is", null)
      .$if((input.skipOrganizations?.length ?? 0) > 0, (q) =>
        q.where("e.organization_id", "not in", input.skipOrganizations!),
      )
      .where((eb) =>
        eb.or([eb("e.circuit_open_until", "is", null), eb("e.circuit_open_until", "<=", input.now)]),
      )
      .where((eb) => eb(inFlight(eb), "<", slots))
      .orderBy("due.oldest")
      .limit(input.limit)
      .forUpdate("e")
      .skipLocked(),
  );
  if (endpoints.length === 0) return [];

  return rows(
    db,
    qb
      .with("candidates", (w) =>
        w
          .selectFrom("webhook_endpoints as e")
          .innerJoinLateral(
            (eb) => inFlight(eb).as("busy"),
            (join) => join.onTrue(),
          )
          .innerJoinLateral(
            (eb) =>
              eb
                .selectFrom("webhook_deliveries as d")
                .select(["d.organization_id", "d.delivery_id", "d.next_attempt_at"])
                .whereRef("d.organization_id", "=", "e.organization_id")
                .whereRef("d.endpoint_id", "=", "e.endpoint_id")
                .where(isDue)
                .where("d.next_attempt_at", "<=", input.now)
                .orderBy("d.next_attempt_at")
                .limit(sql<number>`GREATEST(${slots} - busy.n, 0)`)
                .forUpdate()
                .skipLocked()
                .as("c"),
            (join) => join.onTrue(),
          )
          .select([
            "c.organization_id",
            "c.delivery_id",
            "c.next_attempt_at",
            sql<number>`row_number() OVER (PARTITION BY e.organization_id, e.endpoint_id ORDER BY c.next_attempt_at)`.as(
              "turn",
            ),
          ])
          .where((eb) =>
            eb(
              eb.refTuple("e.organization_id", "e.endpoint_id"),
              "in",
              endpoints.map((e) => eb.tuple(e.organization_id, e.endpoint_id)),
            ),
          ),
      )
      .with("chosen", (w) =>
        w
          .selectFrom("candidates")
          .select(["organization_id", "delivery_id"])
          .orderBy("turn")
          .orderBy("next_attempt_at")
          .limit(input.limit),
      )
      .updateTable("webhook_deliveries as w")
      .from("chosen")
      .set((eb) => ({
        status: "sending",
        attempts: eb("w.attempts", "+", 1),
        next_attempt_at: input.leaseUntil,
        claim_token: input.claimToken,
        last_attempt_at: input.now,
      }))
      .whereRef("w.organization_id", "=", "chosen.organization_id")
      .whereRef("w.delivery_id", "=", "chosen.delivery_id")
      .returning([
        "w.organization_id",
        "w.delivery_id",
        "w.endpoint_id",
        "w.event_id",
        "w.attempts",
        "w.retry_window_start",
      ]),
  );
}

/**
 * Records one attempt; a second record of the same attempt number is ignored. The attempt carries
 * its delivery's created_at, the partition key it shares with it (migration 0112).
 */
export async function insertAttempt(
  db: Queryable,
  attempt: {
    organizationId: string;
    deliveryId: string;
    attempt: number;
    startedAt: number;
    finishedAt: number;
    statusCode: number | null;
    error: string | null;
  },
): Promise<void> {
  await execute(
    db,
    qb
      .insertInto("webhook_delivery_attempts")
      .values({
        organization_id: attempt.organizationId,
        delivery_id: attempt.deliveryId,
        delivery_created_at: (eb) =>
          eb
            .selectFrom("webhook_deliveries")
            .select("created_at")
            .where("organization_id", "=", attempt.organizationId)
            .where("delivery_id", "=", attempt.deliveryId),
        attempt: attempt.attempt,
        started_at: attempt.startedAt,
        finished_at: attempt.finishedAt,
        status_code: attempt.statusCode,
        error: attempt.error,
      })
      .onConflict((conflict) => conflict.doNothing()),
  );
}

/** Marks the delivery delivered whoever holds it; false when it already was. */
export async function markDelivered(
  db: Queryable,
  input: { organizationId: string; deliveryId: string; deliveredAt: number; statusCode: number },
): Promise<boolean> {
  const changed = await rows(
    db,
    qb
      .updateTable("webhook_deliveries")
      .set({
        status: "delivered",
        delivered_at: input.deliveredAt,
        last_status_code: input.statusCode,
        last_error: null,
        next_attempt_at: null,
        claim_token: null,
      })
      .where("organization_id", "=", input.organizationId)
      .where("delivery_id", "=", input.deliveryId)
      .where("status", "<>", "delivered")
      .returning("delivery_id"),
  );
  return changed.length > 0;
}

/** Records a failed attempt, only while `claimToken` still holds the delivery; false otherwise. */
export async function recordFailure(
  db: Queryable,
  input: {
    organizationId: string;
    deliveryId: string;
    claimToken: string;
    status: "pending" | "dead";
    nextAttemptAt: number | null;
    statusCode: number | null;
    error: string;
  },
): Promise<boolean> {
  const changed = await rows(
    db,
    qb
      .updateTable("webhook_deliveries")
      .set({
        status: input.status,
        next_attempt_at: input.nextAttemptAt,
        last_status_code: input.statusCode,
        last_error: input.error,
        claim_token: null,
      })
      .where("organization_id", "=", input.organizationId)
      .where("delivery_id", "=", input.deliveryId)
      .where("claim_token", "=", input.claimToken)
      .where("status", "=", "sending")
      .returning("delivery_id"),
  );
  return changed.length > 0;
}

/**
 * The log-retention job's purge (log-retention/purge.ts): deletes up to `limit` of the
 * organisation's finished deliveries (delivered, dead, cancelled; never one still queued or being
 * sent) created before `before`, oldest first, with their attempts, then up to `limit` events
 * created before `before` that no delivery names any more. What went, with the deliveries'
 * creation-time range. Rows another purge has locked are skipped, so purges side by side never
 * wait on each other.
 */
export async function deleteFinishedDeliveriesBefore(
  tx: Queryable,
  organizationId: string,
  before: number,
  limit: number,
): Promise<{
  deliveries: number;
  attempts: number;
  events: number;
  oldestCreatedAt: number | null;
  newestCreatedAt: number | null;
}> {
  // Parent and children go in one statement: the attempts' foreign key is checked at its end.
  const [gone] = await tx.query<{
    deliveries: number;
    attempts: number;
    oldest: string | number | null;
    newest: string | number | null;
  }>(
    `WITH doomed AS (
       SELECT delivery_id, created_at FROM webhook_deliveries
        WHERE organization_id = $1 AND created_at < $2 AND status IN ('delivered', 'dead', 'cancelled')
        ORDER BY created_at LIMIT $3 FOR UPDATE SKIP LOCKED
     ), gone_attempts AS (
       DELETE FROM webhook_delivery_attempts a USING doomed d
        WHERE a.organization_id = $1 AND a.delivery_id = d.delivery_id
          AND a.delivery_created_at = d.created_at RETURNING 1
     ), gone AS (
       DELETE FROM webhook_deliveries w USING doomed d
        WHERE w.organization_id = $1 AND w.delivery_id = d.delivery_id AND w.created_at = d.created_at
       RETURNING w.created_at
     )
     SELECT (SELECT count(*)::int FROM gone) AS deliveries, (SELECT count(*)::int FROM gone_attempts) AS attempts,
            (SELECT min(created_at) FROM gone) AS oldest, (SELECT max(created_at) FROM gone) AS newest`,
    [organizationId, before, limit],
  );
  const events = await tx.query(
    `DELETE FROM webhook_events WHERE organization_id = $1 AND event_id IN (
       SELECT e.event_id FROM webhook_events e
        WHERE e.organization_id = $1 AND e.created_at < $2
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                           WHERE d.organization_id = $1 AND d.event_id = e.event_id AND d.created_at = e.created_at)
        LIMIT $3 FOR UPDATE SKIP LOCKED)
     RETURNING event_id`,
    [organizationId, before, limit],
  );
  return {
    deliveries: gone!.deliveries,
    attempts: gone!.attempts,
    events: events.length,
    oldestCreatedAt: gone!.oldest === null ? null : Number(gone!.oldest),
    newestCreatedAt: gone!.newest === null ? null : Number(gone!.newest),
  };
}

/** How many finished deliveries of the organisation were created before `before` (a dry run's answer). */
export async function countFinishedDeliveriesBefore(
  db: Queryable,
  organizationId: string,
  before: number,
): Promise<number> {
  const row = await first(
    db,
    qb
      .selectFrom("webhook_deliveries")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("organization_id", "=", organizationId)
      .where("created_at", "<", before)
      .where("status", "in", ["delivered", "dead", "cancelled"]),
  );
  return Number(row?.n ?? 0);
}
