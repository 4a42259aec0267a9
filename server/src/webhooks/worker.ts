// Delivery workers. Any number of them (in one process or many, on one PostgreSQL server) share the
// webhook_deliveries table as a queue:
// - claim: one short transaction takes due rows with FOR UPDATE SKIP LOCKED, so two workers never
//   take the same row, and marks them `sending` with a lease (next_attempt_at = now + lease). A
//   worker that dies holding a claim just lets the lease run out; the row is then due again for
//   anyone. Claims are fair across endpoints: each endpoint's oldest due delivery first, round-robin,
//   and never more than `endpointConcurrency` sends in flight per endpoint across all workers.
// - send: outside any transaction, with a timeout shorter than the lease. Each send is its own task:
//   the loop claims again as soon as a slot is free, so a receiver that hangs holds only its own
//   endpoint's slots, never the loop or another endpoint's deliveries.
// - record: the attempt, then the outcome, but a failure only against the worker's own claim token,
//   so a worker whose lease ran out cannot overwrite what the next claimant did. The endpoint's
//   circuit breaker counts the outcome in the same transaction.
// Delivery is therefore at least once; receivers de-duplicate on eventId (= webhook-id).
import { randomBytes } from "node:crypto";
import { signDpdpSignature, signStandardWebhook } from "@guard/contract";
import { disabledOrganizationIds } from "../accounts/store.js";
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { secretBinding } from "./endpoints.js";
import { onEventEnqueued } from "./outbox.js";
import type { SecretBox } from "../lib/secret-box.js";
import {
  claimDue,
  insertAttempt,
  markDelivered,
  recordFailure,
  selectSendMaterial,
} from "./store/deliveries.js";
import { countEndpointFailure, resetEndpointFailures, type BreakerPolicy } from "./store/endpoints.js";

export type { BreakerPolicy } from "./store/endpoints.js";

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
  /** Aborted when the worker stops. */
  signal: AbortSignal;
}

/** Sends one POST; resolves with the status of any HTTP answer, rejects when none came back. */
export type SendHttp = (request: HttpRequest) => Promise<{ status: number }>;

const fetchSendHttp: SendHttp = async ({ url, headers, body, timeoutMs, signal }) => {
  const response = await fetch(url, {
    method: "POST",
    headers,
    body,
    // A redirect is not a success; following it could also send the signed event somewhere the
    // organisation never registered.
    redirect: "manual",
    signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
  });
  // Nothing in the answer is used; cancelling frees the connection.
  await response.body?.cancel().catch(() => undefined);
  return { status: response.status };
};

export interface RetryPolicy {
  /** Ceiling of the first retry's delay; it doubles per attempt up to capMs. */
  baseMs: number;
  capMs: number;
  /** How long after creation (or a manual re-send) a delivery keeps being retried. */
  windowMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  baseMs: 30_000,
  capMs: 60 * 60_000,
  windowMs: 24 * 60 * 60_000,
};

// Full jitter could draw 0; a floor keeps a broken receiver from being hit in a tight loop.
const MIN_RETRY_DELAY_MS = 1_000;

/** Exponential backoff with full jitter: uniform in [1 s, min(cap, base * 2^(attempt-1))). */
export function retryDelayMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
  return Math.max(MIN_RETRY_DELAY_MS, Math.floor(random() * ceiling));
}

/**
 * An endpoint whose last 5 attempts all failed (an error status, no answer, a timeout) stops being
 * sent to for 30 s, then 1 min, 2 min, ... up to 30 min per further failed probe.
 */
export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  failureThreshold: 5,
  cooldownBaseMs: 30_000,
  cooldownCapMs: 30 * 60_000,
};

export const DEFAULT_ENDPOINT_CONCURRENCY = 2;

export interface ClaimedDelivery {
  organizationId: string;
  deliveryId: string;
  endpointId: string;
  eventId: string;
  /** This claim's attempt number (1 for the first). */
  attempt: number;
  retryWindowStart: number;
  claimToken: string;
  claimedAt: number;
}

/**
 * Claims up to `limit` due deliveries of enabled endpoints whose circuit lets them through, across
 * organisations that are not disabled, for `leaseMs`, at most `endpointConcurrency` in flight per endpoint. Run it in a
 * transaction. Exported so tests can act as a worker that claims and then dies.
 */
export async function claimDueDeliveries(
  db: Queryable,
  options: { now: number; limit: number; leaseMs: number; endpointConcurrency?: number; claimToken?: string },
): Promise<ClaimedDelivery[]> {
  const claimToken = options.claimToken ?? randomBytes(16).toString("hex");
  const rows = await claimDue(db, {
    now: options.now,
    limit: options.limit,
    endpointConcurrency: options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY,
    leaseUntil: options.now + options.leaseMs,
    claimToken,
    // A disabled organisation's deliveries stay queued, untouched, until it is enabled again.
    skipOrganizations: await disabledOrganizationIds(db),
  });
  return rows.map((row) => ({
    organizationId: row.organization_id,
    deliveryId: row.delivery_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    attempt: row.attempts,
    retryWindowStart: row.retry_window_start,
    claimToken,
    claimedAt: options.now,
  }));
}

/** The exact body Guard sends; `timestamp` is when the event happened (epoch ms). */
function webhookBody(event: {
  eventId: string;
  eventType: string;
  organizationId: string;
  payload: unknown;
  createdAt: number;
}): string {
  return JSON.stringify({
    eventId: event.eventId,
    eventType: event.eventType,
    organizationId: event.organizationId,
    payload: event.payload,
    timestamp: event.createdAt,
  });
}

/** Headers of one attempt, signed afresh (the Standard Webhooks timestamp is the send time). */
function webhookHeaders(input: {
  eventId: string;
  body: string;
  secret: string;
  nowMs: number;
}): Record<string, string> {
  const timestamp = Math.floor(input.nowMs / 1000);
  return {
    "content-type": "application/json",
    "user-agent": "Guard-Webhooks/1",
    "x-dpdp-signature": signDpdpSignature(input.secret, input.body),
    "webhook-id": input.eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": signStandardWebhook({
      id: input.eventId,
      timestamp,
      body: input.body,
      secret: input.secret,
    }),
  };
}

export interface WorkerLogger {
  error(details: object, message: string): void;
}

export interface WebhookWorkerOptions {
  db: Database;
  clock: Clock;
  secrets: SecretBox;
  sendHttp?: SendHttp;
  /** Uniform in [0, 1); injected for deterministic tests. */
  random?: () => number;
  retry?: Partial<RetryPolicy>;
  /** Sends in flight at once in this worker, over all endpoints (also the most one run claims). */
  maxInFlight?: number;
  /** Sends in flight at once per endpoint, over every worker on the database. */
  endpointConcurrency?: number;
  /** The per-endpoint circuit breaker's policy; `false` turns it off. */
  breaker?: Partial<BreakerPolicy> | false;
  /** How long a claim lasts; must exceed timeoutMs plus the time to record the outcome. */
  leaseMs?: number;
  /** How long one send may wait for an answer (10 s). */
  timeoutMs?: number;
  /** Real-time pause between polls when nothing was due. */
  pollIntervalMs?: number;
  log?: WorkerLogger;
}

export interface RunResult {
  claimed: number;
  delivered: number;
  /** Failed and scheduled again. */
  retrying: number;
  /** Failed with the retry budget spent. */
  dead: number;
}

type Outcome =
  | { ok: true; statusCode: number }
  | { ok: false; statusCode: number | null; error: string; release?: boolean };

// Wake-ups come after the enqueuing transaction commits (outbox.ts); the short delay gathers the
// wake-ups of a burst of events into one claim.
const WAKE_DELAY_MS = 10;
const MAX_ERROR_LENGTH = 500;

export class WebhookWorker {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly secrets: SecretBox;
  private readonly sendHttp: SendHttp;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly breaker: BreakerPolicy | undefined;
  private readonly maxInFlight: number;
  private readonly endpointConcurrency: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly log: WorkerLogger | undefined;

  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = 0;
  /** The claim under way, if any; sends run apart from it, in `sends`. */
  private claiming: Promise<void> | undefined;
  private wokenWhileClaiming = false;
  private readonly sends = new Set<Promise<void>>();
  private unsubscribe: (() => void) | undefined;
  private stopping = new AbortController();

  constructor(options: WebhookWorkerOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.secrets = options.secrets;
    this.sendHttp = options.sendHttp ?? fetchSendHttp;
    this.random = options.random ?? Math.random;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.breaker = options.breaker === false ? undefined : { ...DEFAULT_BREAKER_POLICY, ...options.breaker };
    this.maxInFlight = options.maxInFlight ?? 32;
    this.endpointConcurrency = options.endpointConcurrency ?? DEFAULT_ENDPOINT_CONCURRENCY;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.log = options.log;
    if (this.leaseMs <= this.timeoutMs) throw new RangeError("leaseMs must be longer than timeoutMs");
    if (!(this.maxInFlight >= 1 && this.endpointConcurrency >= 1)) {
      throw new RangeError("maxInFlight and endpointConcurrency must be at least 1");
    }
  }

  /**
   * Claims what is due now (up to the free slots), sends it, records every outcome, and resolves
   * when all of those are done. Tests drive the worker with it; start() runs the same steps without
   * waiting for one send before claiming the next.
   */
  async runOnce(): Promise<RunResult> {
    const claims = await this.claim();
    const result: RunResult = { claimed: claims.length, delivered: 0, retrying: 0, dead: 0 };
    await Promise.all(
      claims.map(async (claim) => {
        const status = await this.deliver(claim);
        if (status === "delivered") result.delivered++;
        else if (status === "pending") result.retrying++;
        else if (status === "dead") result.dead++;
      }),
    );
    return result;
  }

  /**
   * Claims every pollIntervalMs, soon after an event is enqueued in this process, and whenever a
   * send finishes (its slot is free, and its endpoint may have more due).
   */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.unsubscribe = onEventEnqueued(() => this.schedule(WAKE_DELAY_MS));
    this.schedule(0);
  }

  /** Stops claiming, aborts sends in flight (they are released for another worker), waits for them. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    await this.claiming;
    await Promise.all(this.sends);
  }

  private async claim(): Promise<ClaimedDelivery[]> {
    const free = this.maxInFlight - this.sends.size;
    if (free <= 0) return [];
    return this.db.transaction((tx) =>
      claimDueDeliveries(tx, {
        now: this.clock.now(),
        limit: free,
        leaseMs: this.leaseMs,
        endpointConcurrency: this.endpointConcurrency,
      }),
    );
  }

  /** Sends and records one claimed delivery; the promise is tracked in `sends` until it settles. */
  private deliver(claim: ClaimedDelivery): Promise<"delivered" | "pending" | "dead" | "superseded"> {
    const work = (async () => this.record(claim, await this.attempt(claim)))();
    const tracked = work.then(
      () => undefined,
      () => undefined,
    );
    this.sends.add(tracked);
    void tracked.then(() => {
      this.sends.delete(tracked);
      // A slot is free: claim again soon (coalesced with any claim already scheduled).
      this.schedule(0);
    });
    return work;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.claiming) {
      if (delayMs < this.pollIntervalMs) this.wokenWhileClaiming = true;
      return;
    }
    const dueAt = Date.now() + delayMs;
    if (this.timer && this.timerDueAt <= dueAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerDueAt = dueAt;
    this.timer = setTimeout(() => this.tick(), delayMs);
    // The HTTP server keeps the process alive; the worker alone must not.
    this.timer.unref();
  }

  private tick(): void {
    this.timer = undefined;
    this.wokenWhileClaiming = false;
    this.claiming = (async () => {
      let again = false;
      try {
        const free = this.maxInFlight - this.sends.size;
        const claims = await this.claim();
        for (const claim of claims) {
          this.deliver(claim).catch((error: unknown) =>
            this.log?.error(
              { err: error, deliveryId: claim.deliveryId },
              "webhook delivery could not be recorded",
            ),
          );
        }
        // Every free slot filled: more may be due. With no free slot, a finishing send wakes the loop.
        again = free > 0 && claims.length === free;
      } catch (error) {
        this.log?.error({ err: error }, "webhook delivery claim failed");
      }
      this.claiming = undefined;
      this.schedule(again || this.wokenWhileClaiming ? 0 : this.pollIntervalMs);
    })();
  }

  private async attempt(claim: ClaimedDelivery): Promise<Outcome> {
    let request: HttpRequest;
    try {
      const row = await selectSendMaterial(this.db, claim.organizationId, claim.eventId, claim.endpointId);
      if (!row) return { ok: false, statusCode: null, error: "event or endpoint row is missing" };
      const secret = this.secrets.open(
        row.secret_ciphertext,
        secretBinding(claim.organizationId, claim.endpointId),
      );
      const body = webhookBody({
        eventId: claim.eventId,
        eventType: row.event_type,
        organizationId: claim.organizationId,
        payload: row.payload,
        createdAt: row.created_at,
      });
      request = {
        url: row.url,
        body,
        headers: webhookHeaders({ eventId: claim.eventId, body, secret, nowMs: this.clock.now() }),
        timeoutMs: this.timeoutMs,
        signal: this.stopping.signal,
      };
    } catch (error) {
      // Nothing was sent; the failure is recorded and retried like any other.
      this.log?.error({ err: error, deliveryId: claim.deliveryId }, "webhook delivery could not be prepared");
      return { ok: false, statusCode: null, error: `not sent: ${messageOf(error)}` };
    }
    // Claimed while stop() was under way: released without sending.
    if (this.stopping.signal.aborted) {
      return { ok: false, statusCode: null, error: "worker stopped before an answer", release: true };
    }
    try {
      const { status } = await this.sendHttp(request);
      if (status >= 200 && status <= 299) return { ok: true, statusCode: status };
      return { ok: false, statusCode: status, error: `HTTP ${status}` };
    } catch (error) {
      if (this.stopping.signal.aborted) {
        return { ok: false, statusCode: null, error: "worker stopped before an answer", release: true };
      }
      return { ok: false, statusCode: null, error: describeSendError(error, this.timeoutMs) };
    }
  }

  private async record(
    claim: ClaimedDelivery,
    outcome: Outcome,
  ): Promise<"delivered" | "pending" | "dead" | "superseded"> {
    const finishedAt = this.clock.now();
    return this.db.transaction(async (tx) => {
      // The endpoint row first: deleting an endpoint locks it before its deliveries, so the same
      // order here cannot deadlock with a delete.
      if (this.breaker && outcome.ok) {
        await resetEndpointFailures(tx, claim.organizationId, claim.endpointId);
      }
      if (this.breaker && !outcome.ok && !outcome.release) {
        // Counted even when this claim was superseded: the receiver did fail to take it.
        await countEndpointFailure(tx, claim.organizationId, claim.endpointId, this.breaker, finishedAt);
      }
      await insertAttempt(tx, {
        organizationId: claim.organizationId,
        deliveryId: claim.deliveryId,
        attempt: claim.attempt,
        startedAt: claim.claimedAt,
        finishedAt,
        statusCode: outcome.statusCode,
        error: outcome.ok ? null : outcome.error.slice(0, MAX_ERROR_LENGTH),
      });
      if (outcome.ok) {
        // Recorded even when this worker's claim was superseded: the receiver did get the event.
        const delivered = await markDelivered(tx, {
          organizationId: claim.organizationId,
          deliveryId: claim.deliveryId,
          deliveredAt: finishedAt,
          statusCode: outcome.statusCode,
        });
        return delivered ? "delivered" : "superseded";
      }
      const windowEnd = claim.retryWindowStart + this.retry.windowMs;
      let status: "pending" | "dead";
      let nextAttemptAt: number | null;
      if (outcome.release) {
        status = "pending";
        nextAttemptAt = finishedAt;
      } else if (finishedAt >= windowEnd) {
        status = "dead";
        nextAttemptAt = null;
      } else {
        status = "pending";
        // The last try lands on the window's end, so every delivery gets one there before dying.
        nextAttemptAt = Math.min(
          finishedAt + retryDelayMs(claim.attempt, this.retry, this.random),
          windowEnd,
        );
      }
      const recorded = await recordFailure(tx, {
        organizationId: claim.organizationId,
        deliveryId: claim.deliveryId,
        claimToken: claim.claimToken,
        status,
        nextAttemptAt,
        statusCode: outcome.statusCode,
        error: outcome.error.slice(0, MAX_ERROR_LENGTH),
      });
      return recorded ? status : "superseded";
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** A short, secret-free reason for a send that got no HTTP answer. */
function describeSendError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError")) {
    return `no answer within ${timeoutMs} ms`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === "string") return `connection failed: ${cause.code}`;
  return `request failed: ${messageOf(error)}`;
}
