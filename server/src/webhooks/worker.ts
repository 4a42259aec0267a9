// Delivery workers. Any number of them (in one process or many, on one PostgreSQL server) share the
// webhook_deliveries table as a queue:
// - claim: one short statement takes due rows with FOR UPDATE SKIP LOCKED, so two workers never take
//   the same row, and marks them `sending` with a lease (next_attempt_at = now + lease). A worker that
//   dies holding a claim just lets the lease run out; the row is then due again for anyone.
// - send: outside any transaction, with a timeout shorter than the lease.
// - record: the attempt, then the outcome, but a failure only against the worker's own claim token,
//   so a worker whose lease ran out cannot overwrite what the next claimant did.
// Delivery is therefore at least once; receivers de-duplicate on eventId (= webhook-id).
import { randomBytes } from "node:crypto";
import { signDpdpSignature, signStandardWebhook } from "@guard/contract";
import type { Database, Queryable } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import { secretBinding } from "./endpoints.js";
import { onEventEnqueued } from "./outbox.js";
import type { SecretBox } from "./secret-box.js";
import {
  claimDue,
  insertAttempt,
  markDelivered,
  recordFailure,
  selectSendMaterial,
} from "./store/deliveries.js";

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
 * Claims up to `limit` due deliveries of enabled endpoints, across organisations, for `leaseMs`.
 * Exported so tests can act as a worker that claims and then dies.
 */
export async function claimDueDeliveries(
  db: Queryable,
  options: { now: number; limit: number; leaseMs: number; claimToken?: string },
): Promise<ClaimedDelivery[]> {
  const claimToken = options.claimToken ?? randomBytes(16).toString("hex");
  const rows = await claimDue(db, {
    now: options.now,
    limit: options.limit,
    leaseUntil: options.now + options.leaseMs,
    claimToken,
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
  /** Deliveries claimed (and sent concurrently) per run. */
  batchSize?: number;
  /** How long a claim lasts; must exceed timeoutMs plus the time to record the outcome. */
  leaseMs?: number;
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

// After an enqueue in this process, wait a moment so the enqueuing transaction has committed.
const WAKE_DELAY_MS = 50;
const MAX_ERROR_LENGTH = 500;

export class WebhookWorker {
  private readonly db: Database;
  private readonly clock: Clock;
  private readonly secrets: SecretBox;
  private readonly sendHttp: SendHttp;
  private readonly random: () => number;
  private readonly retry: RetryPolicy;
  private readonly batchSize: number;
  private readonly leaseMs: number;
  private readonly timeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly log: WorkerLogger | undefined;

  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private timerDueAt = 0;
  private current: Promise<void> | undefined;
  private wokenWhileRunning = false;
  private unsubscribe: (() => void) | undefined;
  private stopping = new AbortController();

  constructor(options: WebhookWorkerOptions) {
    this.db = options.db;
    this.clock = options.clock;
    this.secrets = options.secrets;
    this.sendHttp = options.sendHttp ?? fetchSendHttp;
    this.random = options.random ?? Math.random;
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.batchSize = options.batchSize ?? 10;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.leaseMs = options.leaseMs ?? 60_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1_000;
    this.log = options.log;
    if (this.leaseMs <= this.timeoutMs) throw new RangeError("leaseMs must be longer than timeoutMs");
  }

  /** Claims what is due now, sends it, records every outcome. */
  async runOnce(): Promise<RunResult> {
    const claims = await this.db.transaction((tx) =>
      claimDueDeliveries(tx, { now: this.clock.now(), limit: this.batchSize, leaseMs: this.leaseMs }),
    );
    const result: RunResult = { claimed: claims.length, delivered: 0, retrying: 0, dead: 0 };
    await Promise.all(
      claims.map(async (claim) => {
        const outcome = await this.attempt(claim);
        const status = await this.record(claim, outcome);
        if (status === "delivered") result.delivered++;
        else if (status === "pending") result.retrying++;
        else if (status === "dead") result.dead++;
      }),
    );
    return result;
  }

  /** Polls every pollIntervalMs, and soon after an event is enqueued in this process. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.stopping = new AbortController();
    this.unsubscribe = onEventEnqueued(() => this.schedule(WAKE_DELAY_MS));
    this.schedule(0);
  }

  /** Stops polling, aborts sends in flight (they are released for another worker), waits for the run. */
  async stop(): Promise<void> {
    this.running = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.stopping.abort();
    await this.current;
  }

  private schedule(delayMs: number): void {
    if (!this.running) return;
    if (this.current) {
      if (delayMs < this.pollIntervalMs) this.wokenWhileRunning = true;
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
    this.wokenWhileRunning = false;
    this.current = (async () => {
      let again = false;
      try {
        const result = await this.runOnce();
        again = result.claimed === this.batchSize;
      } catch (error) {
        this.log?.error({ err: error }, "webhook delivery run failed");
      }
      this.current = undefined;
      this.schedule(again || this.wokenWhileRunning ? 0 : this.pollIntervalMs);
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
