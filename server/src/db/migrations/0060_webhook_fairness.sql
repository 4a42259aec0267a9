-- Webhook delivery fairness (issue 22): each endpoint's circuit breaker lives in its row, so every
-- instance sharing one PostgreSQL server sees and updates the same state (webhooks/README.md,
-- "Fairness and the circuit breaker").
--
-- - consecutive_failures: failed attempts in a row since the endpoint last answered a 2xx.
-- - circuit_open_until: NULL while the circuit is closed. Otherwise the endpoint is open (nothing
--   is claimed for it) until then, and half-open (one delivery at a time, the probe) after it.
-- - circuit_trips: how often it opened since the last success; the cool-down doubles per trip.
ALTER TABLE webhook_endpoints
  ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  ADD COLUMN circuit_trips INTEGER NOT NULL DEFAULT 0 CHECK (circuit_trips >= 0),
  ADD COLUMN circuit_open_until BIGINT;

-- Workers now claim per endpoint (the oldest due delivery of each, and its sends in flight), so the
-- queue's index leads with the endpoint; the global due-time index it replaces had no other use.
CREATE INDEX webhook_deliveries_due_by_endpoint
  ON webhook_deliveries (organization_id, endpoint_id, next_attempt_at)
  WHERE status IN ('pending', 'sending');
DROP INDEX webhook_deliveries_due;
