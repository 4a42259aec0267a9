// For the TypeScript SDKs' unit tests (@guard/server, @guard/js, the transport): a scripted fetch
// that records every request and answers from a queue, so transport behaviour is checked without
// sockets; a sleeper that records the waits instead of waiting; and an assertion on a rejection's class.
import assert from "node:assert/strict";
import type { FetchLike, Sleeper } from "../src/transport.js";

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string | undefined;
}

export type Scripted =
  { status: number; body?: unknown; headers?: Record<string, string> } | { throws: Error } | { hang: true };

export function fakeFetch(script: Scripted[], fallback: Scripted = { status: 200, body: {} }) {
  const requests: RecordedRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    requests.push({
      url,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: init.body as string | undefined,
    });
    const next = script.shift() ?? fallback;
    if ("throws" in next) throw next.throws;
    if ("hang" in next) {
      return new Promise<Response>((_, reject) => {
        init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    }
    const text =
      typeof next.body === "string" ? next.body : next.body === undefined ? "" : JSON.stringify(next.body);
    return new Response(next.status === 204 ? null : text, {
      status: next.status,
      headers: { "content-type": "application/json", ...next.headers },
    });
  };
  return { fetch, requests };
}

export function recordingSleep() {
  const delays: number[] = [];
  const sleep: Sleeper = async (ms) => {
    delays.push(ms);
  };
  return { sleep, delays };
}

export const connectionRefused = () =>
  Object.assign(new TypeError("fetch failed"), { cause: new Error("connect ECONNREFUSED 127.0.0.1:1") });

/** Awaits `promise`, asserts it rejected with a `type`, and returns that error. */
export async function rejectsWith<T extends Error>(
  promise: Promise<unknown>,
  type: new (...args: never[]) => T,
): Promise<T> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
    return error as T;
  }
  assert.fail(`expected ${type.name}, but the call succeeded`);
}
