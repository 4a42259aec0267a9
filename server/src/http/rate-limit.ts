// Fixed-window rate limits kept in PostgreSQL, so every instance counts against the same budget.
// One upsert per hit; windows older than a day are swept by the writer now and then.
import type { Queryable } from "../db/database.js";
import { Failure } from "../lib/failure.js";

export interface RateLimit {
  /** Bucket name, e.g. `signin:slug:email`; organisation '' means deployment-wide. */
  key: string;
  organizationId: string;
  limit: number;
  windowMs: number;
}

/** Counts one hit; throws 429 RATE_LIMITED (with Retry-After) once the window's budget is spent. */
export async function enforceRateLimit(db: Queryable, rule: RateLimit, now: number): Promise<void> {
  const windowStart = now - (now % rule.windowMs);
  const rows = await db.query<{ hits: number }>(
    `INSERT INTO rate_limit_buckets (organization_id, bucket_key, window_start, hits) VALUES ($1, $2, $3, 1)
     ON CONFLICT (organization_id, bucket_key, window_start) DO UPDATE SET hits = rate_limit_buckets.hits + 1
     RETURNING hits`,
    [rule.organizationId, rule.key, windowStart],
  );
  if (rows[0]!.hits === 1 && Math.random() < 0.01) {
    await db.query("DELETE FROM rate_limit_buckets WHERE window_start < $1", [now - 86_400_000]);
  }
  if (rows[0]!.hits > rule.limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
    throw new Failure("RATE_LIMITED", `Too many requests; retry in ${retryAfter} s`, {
      retryAfterSeconds: retryAfter,
    });
  }
}
