// Fixed-window rate limits counted in this instance's memory: approximate, and free of database
// work. The public guest routes used to count each request with two upserts committed on their own
// (two WAL flushes per capture), and the per-organisation counter was one row that every guest
// request of the organisation updated; folding those upserts into the write's transaction would
// have kept that row lock on the hot path, held until the commit.
//
// What "approximate" means: each instance counts its own requests, so a deployment of N instances
// behind a balancer admits up to N times a budget in a window (each instance at most the budget),
// and a restart forgets the counts. These budgets stop a runaway client or a flood, they are not
// accounting. Memory is bounded: at most `maxBuckets` counters are kept, the least recently used
// dropped first (an address that is dropped starts its window afresh).
import { LRUCache } from "lru-cache";
import { Failure } from "../lib/failure.js";

export interface RateLimit {
  /** Bucket name, e.g. `anon-consent:address:<ip>`. */
  key: string;
  /** The organisation the budget belongs to; '' means deployment-wide. */
  organizationId: string;
  limit: number;
  windowMs: number;
}

interface Bucket {
  windowStart: number;
  hits: number;
}

/** The default bound on counters kept per limiter (a counter is a few dozen bytes). */
export const DEFAULT_MAX_BUCKETS = 100_000;

export class RateLimiter {
  // Made on the first hit: the cache allocates its arrays for `maxBuckets` entries up front, and a
  // start made half a dozen limiters, most of which a given deployment never uses
  // (bench/README.md, "Start-up").
  private cache: LRUCache<string, Bucket> | undefined;

  constructor(private readonly maxBuckets = DEFAULT_MAX_BUCKETS) {}

  private get buckets(): LRUCache<string, Bucket> {
    return (this.cache ??= new LRUCache<string, Bucket>({ max: this.maxBuckets }));
  }

  /** Counts one hit; throws 429 RATE_LIMITED (with Retry-After) once the window's budget is spent. */
  hit(rule: RateLimit, now: number): void {
    const windowStart = now - (now % rule.windowMs);
    // A NUL cannot occur in an organisation id, so no two (organisation, key) pairs share a name.
    const name = `${rule.organizationId}\u0000${rule.key}`;
    let bucket = this.buckets.get(name);
    // A new window, or a window length changed by the organisation's settings: count afresh.
    if (!bucket || bucket.windowStart !== windowStart) {
      bucket = { windowStart, hits: 0 };
      this.buckets.set(name, bucket);
    }
    bucket.hits += 1;
    if (bucket.hits > rule.limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
      throw new Failure("RATE_LIMITED", `Too many requests; retry in ${retryAfter} s`, {
        retryAfterSeconds: retryAfter,
      });
    }
  }

  /** How many counters are kept (for tests of the bound). */
  get size(): number {
    return this.cache?.size ?? 0;
  }
}
