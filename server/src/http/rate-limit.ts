// Fixed-window rate limits kept in PostgreSQL, so every instance counts against the same budget.
// One upsert per hit; windows older than a day are swept by the writer now and then.
import type { Queryable } from "../db/database.js";
import { execute, qb, rows } from "../db/query.js";
import { Failure } from "../lib/failure.js";

export interface RateLimit {
  /** Bucket name, e.g. `anon-consent:address:<ip>`; organisation '' means deployment-wide. */
  key: string;
  organizationId: string;
  limit: number;
  windowMs: number;
}

/** Counts one hit; throws 429 RATE_LIMITED (with Retry-After) once the window's budget is spent. */
export async function enforceRateLimit(db: Queryable, rule: RateLimit, now: number): Promise<void> {
  const windowStart = now - (now % rule.windowMs);
  const [bucket] = await rows(
    db,
    qb
      .insertInto("rate_limit_buckets")
      .values({
        organization_id: rule.organizationId,
        bucket_key: rule.key,
        window_start: windowStart,
        hits: 1,
      })
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "bucket_key", "window_start"])
          .doUpdateSet({ hits: (eb) => eb("rate_limit_buckets.hits", "+", 1) }),
      )
      .returning("hits"),
  );
  if (bucket!.hits === 1 && Math.random() < 0.01) {
    await execute(db, qb.deleteFrom("rate_limit_buckets").where("window_start", "<", now - 86_400_000));
  }
  if (bucket!.hits > rule.limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart + rule.windowMs - now) / 1000));
    throw new Failure("RATE_LIMITED", `Too many requests; retry in ${retryAfter} s`, {
      retryAfterSeconds: retryAfter,
    });
  }
}
