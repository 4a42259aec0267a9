// When to retry and how long to wait: the SDK family's numbers and decision table
// (conformance/README.md "Transport constants"), one copy for @guard/server and @guard/js; Python
// and Kotlin use the same ones, and test/retry.test.ts reads them out of that README.

export const DEFAULT_MAX_RETRIES = 2;
export const INITIAL_RETRY_DELAY_MS = 500;
export const MAX_RETRY_DELAY_MS = 8_000;
/** Jitter takes off up to this fraction of the computed delay, so clients that failed together spread out. */
export const RETRY_JITTER = 0.25;
/** The longest `Retry-After` honoured inside one call; a longer one means "give up for now". */
export const RETRY_AFTER_CAP_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Attempt header: 0 on the first attempt, n on the n-th retry. */
export const RETRY_COUNT_HEADER = "X-Guard-Retry-Count";

/** What one attempt came to, as far as retrying is concerned. */
export type AttemptFailure =
  | { kind: "connection" }
  | { kind: "timeout" }
  | { kind: "status"; status: number; retryAfter: string | null };

export interface RetryInput {
  failure: AttemptFailure;
  /** Retries already made (0 after the first attempt failed). */
  retriesSoFar: number;
  maxRetries: number;
  /** GET, a write carrying an Idempotency-Key, or a write the contract declares idempotent. */
  safeToRepeat: boolean;
  aborted: boolean;
  nowMs: number;
  random: () => number;
}

export type RetryDecision =
  { retry: false; reason: string } | { retry: true; delayMs: number; reason: string };

/** Exponential backoff before retry `n` (1-based), capped, with up to 25 % taken off at random. */
export function backoffDelayMs(retryNumber: number, random: () => number): number {
  const base = Math.min(INITIAL_RETRY_DELAY_MS * 2 ** (retryNumber - 1), MAX_RETRY_DELAY_MS);
  return base * (1 - RETRY_JITTER * random());
}

/**
 * `Retry-After` in milliseconds: delta-seconds (integer or decimal) or an HTTP-date (a date in the
 * past means 0). Undefined when absent or unparseable, so the caller falls back to backoff.
 */
export function parseRetryAfterMs(value: string | null, nowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

/** The one place that decides whether a failed attempt is retried, each branch with its reason. */
export function decideRetry(input: RetryInput): RetryDecision {
  if (input.aborted) return { retry: false, reason: "the caller aborted" };
  if (input.retriesSoFar >= input.maxRetries) return { retry: false, reason: "retries exhausted" };
  if (!input.safeToRepeat) return { retry: false, reason: "not safe to repeat: a repeat could act twice" };
  const { failure } = input;
  const backoff = () => backoffDelayMs(input.retriesSoFar + 1, input.random);
  if (failure.kind === "connection") return { retry: true, delayMs: backoff(), reason: "connection failed" };
  if (failure.kind === "timeout") return { retry: true, delayMs: backoff(), reason: "attempt timed out" };
  if (failure.status !== 429 && (failure.status < 500 || failure.status > 599)) {
    return { retry: false, reason: `status ${failure.status} cannot change on a repeat` };
  }
  const retryAfterMs = parseRetryAfterMs(failure.retryAfter, input.nowMs);
  if (retryAfterMs === undefined) {
    return { retry: true, delayMs: backoff(), reason: `status ${failure.status}, backing off` };
  }
  if (retryAfterMs > RETRY_AFTER_CAP_MS) {
    return {
      retry: false,
      reason: `Retry-After ${failure.retryAfter} is beyond the ${RETRY_AFTER_CAP_MS / 1000} s cap`,
    };
  }
  return { retry: true, delayMs: retryAfterMs, reason: `status ${failure.status}, Retry-After honoured` };
}
