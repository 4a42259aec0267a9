// The retry decision table and the delay rules (conformance/README.md "The retry decision"), the one
// copy @guard/server and @guard/js run, and the proof that they are the family's: the constants are
// read out of that README and compared (Python and Kotlin are held to the same README).
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import {
  backoffDelayMs,
  decideRetry,
  DEFAULT_MAX_RETRIES,
  INITIAL_RETRY_DELAY_MS,
  MAX_RETRY_DELAY_MS,
  parseRetryAfterMs,
  RETRY_AFTER_CAP_MS,
  DEFAULT_TIMEOUT_MS,
  RETRY_JITTER,
  type RetryInput,
} from "../src/retry.js";

const NOW = Date.parse("2026-09-01T00:00:00Z");
const base: RetryInput = {
  failure: { kind: "status", status: 503, retryAfter: null },
  retriesSoFar: 0,
  maxRetries: 2,
  safeToRepeat: true,
  aborted: false,
  nowMs: NOW,
  random: () => 0,
};

test("the family's constants", () => {
  assert.equal(DEFAULT_MAX_RETRIES, 2);
  assert.equal(INITIAL_RETRY_DELAY_MS, 500);
  assert.equal(MAX_RETRY_DELAY_MS, 8_000);
  assert.equal(RETRY_AFTER_CAP_MS, 60_000);
});

const table: {
  name: string;
  input: Partial<RetryInput>;
  retry: boolean;
  delayMs?: number;
  reason: RegExp;
}[] = [
  { name: "aborted", input: { aborted: true }, retry: false, reason: /aborted/ },
  { name: "budget spent", input: { retriesSoFar: 2 }, retry: false, reason: /exhausted/ },
  { name: "budget zero", input: { maxRetries: 0 }, retry: false, reason: /exhausted/ },
  { name: "unsafe write", input: { safeToRepeat: false }, retry: false, reason: /not safe/ },
  {
    name: "unsafe write, connection error",
    input: { safeToRepeat: false, failure: { kind: "connection" } },
    retry: false,
    reason: /not safe/,
  },
  {
    name: "connection error",
    input: { failure: { kind: "connection" } },
    retry: true,
    delayMs: 500,
    reason: /connection/,
  },
  {
    name: "timeout",
    input: { failure: { kind: "timeout" } },
    retry: true,
    delayMs: 500,
    reason: /timed out/,
  },
  { name: "503 without Retry-After", input: {}, retry: true, delayMs: 500, reason: /backing off/ },
  {
    name: "500",
    input: { failure: { kind: "status", status: 500, retryAfter: null } },
    retry: true,
    delayMs: 500,
    reason: /500/,
  },
  {
    name: "599",
    input: { failure: { kind: "status", status: 599, retryAfter: null } },
    retry: true,
    delayMs: 500,
    reason: /599/,
  },
  {
    name: "429 Retry-After 3",
    input: { failure: { kind: "status", status: 429, retryAfter: "3" } },
    retry: true,
    delayMs: 3000,
    reason: /honoured/,
  },
  {
    name: "503 Retry-After 0",
    input: { failure: { kind: "status", status: 503, retryAfter: "0" } },
    retry: true,
    delayMs: 0,
    reason: /honoured/,
  },
  {
    name: "Retry-After at the cap",
    input: { failure: { kind: "status", status: 503, retryAfter: "60" } },
    retry: true,
    delayMs: 60_000,
    reason: /honoured/,
  },
  {
    name: "Retry-After above the cap",
    input: { failure: { kind: "status", status: 503, retryAfter: "61" } },
    retry: false,
    reason: /cap/,
  },
  {
    name: "Retry-After garbage falls back to backoff",
    input: { failure: { kind: "status", status: 503, retryAfter: "soon" } },
    retry: true,
    delayMs: 500,
    reason: /backing off/,
  },
  {
    name: "400",
    input: { failure: { kind: "status", status: 400, retryAfter: null } },
    retry: false,
    reason: /cannot change/,
  },
  {
    name: "404",
    input: { failure: { kind: "status", status: 404, retryAfter: null } },
    retry: false,
    reason: /cannot change/,
  },
  {
    name: "409",
    input: { failure: { kind: "status", status: 409, retryAfter: "1" } },
    retry: false,
    reason: /cannot change/,
  },
  {
    name: "301",
    input: { failure: { kind: "status", status: 301, retryAfter: null } },
    retry: false,
    reason: /cannot change/,
  },
];

for (const row of table) {
  test(`decideRetry: ${row.name}`, () => {
    const decision = decideRetry({ ...base, ...row.input });
    assert.equal(decision.retry, row.retry);
    assert.match(decision.reason, row.reason);
    if (decision.retry) assert.equal(decision.delayMs, row.delayMs);
  });
}

test("backoff doubles from 0.5 s, caps at 8 s, and jitter takes off at most 25 %", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 10].map((n) => backoffDelayMs(n, () => 0)),
    [500, 1000, 2000, 4000, 8000, 8000, 8000],
  );
  assert.deepEqual(
    [1, 2, 5].map((n) => backoffDelayMs(n, () => 0.999999)),
    [1, 2, 5].map((n) => Math.min(500 * 2 ** (n - 1), 8000) * (1 - 0.25 * 0.999999)),
  );
  assert.equal(
    backoffDelayMs(2, () => 0.5),
    1000 * 0.875,
  );
});

test("the n-th retry waits the n-th backoff step", () => {
  const delays = [0, 1].map((retriesSoFar) => {
    const d = decideRetry({ ...base, retriesSoFar, failure: { kind: "connection" } });
    return d.retry ? d.delayMs : -1;
  });
  assert.deepEqual(delays, [500, 1000]);
});

test("parseRetryAfterMs reads delta-seconds and HTTP-dates", () => {
  assert.equal(parseRetryAfterMs(null, NOW), undefined);
  assert.equal(parseRetryAfterMs("0", NOW), 0);
  assert.equal(parseRetryAfterMs(" 5 ", NOW), 5000);
  assert.equal(parseRetryAfterMs("1.5", NOW), 1500);
  assert.equal(parseRetryAfterMs("-1", NOW), undefined);
  assert.equal(parseRetryAfterMs("", NOW), undefined);
  assert.equal(parseRetryAfterMs("1e3", NOW), undefined);
  assert.equal(parseRetryAfterMs(new Date(NOW + 7000).toUTCString(), NOW), 7000);
  assert.equal(parseRetryAfterMs("Wed, 21 Oct 2015 07:28:00 GMT", NOW), 0);
  assert.equal(parseRetryAfterMs("tomorrow-ish", NOW), undefined);
});

test("an HTTP-date beyond the cap is not retried", () => {
  const decision = decideRetry({
    ...base,
    failure: { kind: "status", status: 503, retryAfter: new Date(NOW + 120_000).toUTCString() },
  });
  assert.equal(decision.retry, false);
});

test("the constants are conformance/README.md's transport constants", () => {
  const readme = fs.readFileSync(new URL("../../../conformance/README.md", import.meta.url), "utf8");
  const row = (name: string): string => {
    const match = new RegExp(`^\\| \`${name}\` \\| ([^|]+) \\|`, "m").exec(readme);
    assert.ok(match, `conformance/README.md has no ${name} row`);
    return match[1]!.trim();
  };
  const seconds = (name: string): number => {
    const match = /^([\d.]+) s$/.exec(row(name));
    assert.ok(match, `${name}: ${row(name)} is not "<n> s"`);
    return Number(match[1]) * 1000;
  };
  assert.equal(Number(row("DEFAULT_MAX_RETRIES")), DEFAULT_MAX_RETRIES);
  assert.equal(seconds("INITIAL_RETRY_DELAY"), INITIAL_RETRY_DELAY_MS);
  assert.equal(seconds("MAX_RETRY_DELAY"), MAX_RETRY_DELAY_MS);
  assert.equal(seconds("RETRY_AFTER_CAP"), RETRY_AFTER_CAP_MS);
  assert.equal(seconds("DEFAULT_TIMEOUT"), DEFAULT_TIMEOUT_MS);
  assert.equal(row("BACKOFF"), `\`min(0.5 s × 2^(n−1), 8 s) × (1 − ${RETRY_JITTER} × random())\``);
});
