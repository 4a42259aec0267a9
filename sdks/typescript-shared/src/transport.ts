// One call's transport, the same in @guard/server and @guard/js (conformance/README.md "Transport
// constants", "Requests", "Errors"): each attempt under its own timeout, the retry decision
// (retry.ts) between attempts, the attempt count in a header, and the answer parsed or turned into
// the error tree (errors.ts). Written against fetch, AbortController and timers only, so it runs in
// Node and in a browser. Nothing here runs at module level: a bundler drops what a page does not use.
import {
  apiErrorFromResponse,
  GuardAbortError,
  GuardApiError,
  GuardConnectionError,
  GuardTimeoutError,
  type GuardError,
} from "./errors.js";
import { decideRetry, RETRY_COUNT_HEADER, type AttemptFailure } from "./retry.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;
/** Waits `ms`; resolves early when `signal` aborts. Injected by tests to record delays. */
export type Sleeper = (ms: number, signal?: AbortSignal) => Promise<void>;
export type Method = "GET" | "POST" | "PUT" | "DELETE";

export const defaultSleep: Sleeper = (ms, signal) =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });

/** Refuses keys outside `known`: a misspelt option would otherwise be ignored in silence. */
export function rejectUnknown(given: object, known: readonly string[], what: string): void {
  const unknown = Object.keys(given).filter((key) => !known.includes(key));
  if (unknown.length > 0) {
    throw new TypeError(`Unknown ${what}: ${unknown.join(", ")} (known: ${known.join(", ")})`);
  }
}

export function checkTimeout(value: number | undefined): void {
  // setTimeout fires at once for delays beyond 2^31 - 1 ms, which would turn a long timeout into none.
  if (value !== undefined && !(typeof value === "number" && value > 0 && value <= 2_147_483_647)) {
    throw new TypeError("timeoutMs must be a positive number of milliseconds, at most 2147483647");
  }
}

export function checkMaxRetries(value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) {
    throw new TypeError("maxRetries must be a non-negative integer");
  }
}

/** Per-request options, always a client method's trailing argument. */
export interface RequestOptions {
  timeoutMs?: number | undefined;
  maxRetries?: number | undefined;
  /** For create calls; when absent the SDK mints one per call and reuses it on every retry. */
  idempotencyKey?: string | undefined;
  headers?: Record<string, string> | undefined;
  signal?: AbortSignal | undefined;
}

export const REQUEST_OPTIONS: readonly string[] = [
  "timeoutMs",
  "maxRetries",
  "idempotencyKey",
  "headers",
  "signal",
];

/** Refuses, before anything is sent, a trailing options argument that is not RequestOptions. */
export function checkRequestOptions(options: RequestOptions): void {
  if (options === null || typeof options !== "object")
    throw new TypeError("Request options must be an object");
  rejectUnknown(options, REQUEST_OPTIONS, "request option");
  checkTimeout(options.timeoutMs);
  checkMaxRetries(options.maxRetries);
}

/** One logical call: what every attempt sends, and how long and how often to try. */
export interface Call {
  url: string;
  method: Method;
  /**
   * Sent on every attempt; an `Idempotency-Key` among them makes a write safe to repeat. The attempt
   * count header is set here.
   */
  headers: Headers;
  /** Sent as JSON; undefined sends no body. */
  json: unknown;
  /** A write the contract declares idempotent by its natural key, so a repeat cannot act twice. */
  naturallyIdempotent: boolean;
  timeoutMs: number;
  maxRetries: number;
  signal: AbortSignal | undefined;
}

/** What the client was built with (tests inject all four). */
export interface Transport {
  fetch: FetchLike;
  sleep: Sleeper;
  /** Epoch ms, to read an HTTP-date `Retry-After`. */
  now: () => number;
  /** The jitter source, in [0, 1). */
  random: () => number;
}

/** Sends `call` until it succeeds or the retry decision says stop; the parsed JSON body (null when empty). */
export async function sendWithRetries<T>(call: Call, transport: Transport): Promise<T> {
  const { url, method, headers, timeoutMs, signal } = call;
  const init = { method, headers, body: call.json === undefined ? undefined : JSON.stringify(call.json) };
  // The family's rule: only a call that cannot act twice is repeated.
  const safeToRepeat = method === "GET" || headers.has("Idempotency-Key") || call.naturallyIdempotent;
  for (let retriesSoFar = 0; ; retriesSoFar++) {
    if (signal?.aborted) throw new GuardAbortError("The request was aborted");
    headers.set(RETRY_COUNT_HEADER, String(retriesSoFar));
    const outcome = await attempt(transport.fetch, url, init, timeoutMs, signal);
    if ("response" in outcome && outcome.response.ok) {
      return parseSuccess<T>(outcome.response, outcome.text);
    }

    let error: GuardError;
    let failure: AttemptFailure;
    if ("response" in outcome) {
      const { response, text } = outcome;
      error = apiErrorFromResponse(response.status, response.headers, text);
      failure = {
        kind: "status",
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
      };
    } else {
      error = outcome.error;
      failure = { kind: error instanceof GuardTimeoutError ? "timeout" : "connection" };
    }
    const decision = decideRetry({
      failure,
      retriesSoFar,
      maxRetries: call.maxRetries,
      safeToRepeat,
      aborted: signal?.aborted ?? false,
      nowMs: transport.now(),
      random: transport.random,
    });
    if (!decision.retry) throw error;
    await transport.sleep(decision.delayMs, signal);
  }
}

/** One HTTP exchange, body included, under its own timeout. */
async function attempt(
  fetchImpl: FetchLike,
  url: string,
  init: { method: Method; headers: Headers; body: string | undefined },
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ response: Response; text: string } | { error: GuardConnectionError | GuardTimeoutError }> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const forwardAbort = () => controller.abort();
  signal?.addEventListener("abort", forwardAbort, { once: true });
  try {
    const response = await fetchImpl(url, { ...init, signal: controller.signal });
    const text = await response.text();
    return { response, text };
  } catch (cause) {
    if (signal?.aborted) throw new GuardAbortError("The request was aborted", { cause });
    if (timedOut) {
      return { error: new GuardTimeoutError(`${init.method} ${url} timed out after ${timeoutMs} ms`) };
    }
    // Node puts the reason (ECONNREFUSED, …) in `cause`; a browser says only "Failed to fetch".
    const reason =
      cause instanceof Error && cause.cause instanceof Error ? cause.cause.message : String(cause);
    return { error: new GuardConnectionError(`${init.method} ${url} failed: ${reason}`, { cause }) };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", forwardAbort);
  }
}

function parseSuccess<T>(response: Response, text: string): T {
  if (text === "") return null as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    // A 2xx that is not JSON did not come from Guard (a captive portal, a misrouted proxy).
    throw new GuardApiError({
      status: response.status,
      code: "INTERNAL_ERROR",
      message: `The ${response.status} response body is not JSON`,
      requestId: response.headers.get("x-request-id"),
      headers: response.headers,
    });
  }
}
