// The in-memory guest budgets (http/rate-limit.ts): a fixed window per (organisation, bucket), a
// 429 RATE_LIMITED with the seconds to the window's end, and a bounded number of counters.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { RateLimiter, type RateLimit } from "../../src/http/rate-limit.js";
import { Failure } from "../../src/lib/failure.js";

const MINUTE = 60_000;
const rule = (key: string, limit: number, organizationId = "org_a", windowMs = MINUTE): RateLimit => ({
  key,
  organizationId,
  limit,
  windowMs,
});

/** The Retry-After seconds of the RATE_LIMITED failure `hit` throws. */
function refused(hit: () => void): number {
  try {
    hit();
  } catch (error) {
    assert.ok(error instanceof Failure && error.code === "RATE_LIMITED", String(error));
    return (error as Failure).details.retryAfterSeconds!;
  }
  assert.fail("the hit was let through");
}

describe("in-memory rate limits", () => {
  test("the budget holds within a window, the refusal says when it ends, the next window starts afresh", () => {
    const limiter = new RateLimiter();
    const start = 10 * MINUTE;
    for (let i = 0; i < 3; i++) limiter.hit(rule("address:1", 3), start + i);
    assert.equal(
      refused(() => limiter.hit(rule("address:1", 3), start + 15_500)),
      45,
    );
    assert.equal(
      refused(() => limiter.hit(rule("address:1", 3), start + MINUTE - 1)),
      1,
      "never 0",
    );
    limiter.hit(rule("address:1", 3), start + MINUTE);
  });

  test("buckets are separate per key and per organisation", () => {
    const limiter = new RateLimiter();
    limiter.hit(rule("address:1", 1), 0);
    refused(() => limiter.hit(rule("address:1", 1), 1));
    limiter.hit(rule("address:2", 1), 2);
    limiter.hit(rule("address:1", 1, "org_b"), 3);
  });

  test("a changed window length starts the count afresh", () => {
    const limiter = new RateLimiter();
    limiter.hit(rule("k", 1, "org_a", MINUTE), MINUTE + 10);
    refused(() => limiter.hit(rule("k", 1, "org_a", MINUTE), MINUTE + 20));
    // Same instant, a 7-second window: another window start, so another count.
    limiter.hit(rule("k", 1, "org_a", 7_000), MINUTE + 20);
  });

  test("memory is bounded: past the bound the least recently used counters are dropped", () => {
    const limiter = new RateLimiter(3);
    limiter.hit(rule("kept", 1), 0);
    for (let i = 0; i < 10; i++) {
      limiter.hit(rule(`address:${i}`, 5), 0);
      if (i === 0) refused(() => limiter.hit(rule("kept", 1), 0)); // used recently, so kept for now
    }
    assert.equal(limiter.size, 3);
    // `kept` was dropped: its count starts afresh (the approximation the bound costs).
    limiter.hit(rule("kept", 1), 0);
  });
});
