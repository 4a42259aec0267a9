-- The guest routes' rate limits are counted in each instance's memory (http/rate-limit.ts says
-- why), and sign-in attempts have their own counters (0050), so nothing uses these buckets any more.
-- The idempotency purge (http/idempotency-purge.ts) needs no new index: it deletes the oldest keys
-- through idempotency_keys_by_age (0004).
DROP TABLE rate_limit_buckets;
