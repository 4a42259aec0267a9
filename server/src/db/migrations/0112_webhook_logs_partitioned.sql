-- The webhook outbox's three logs partitioned by month on their creation time (issue 27, item 4;
-- the rules: log-retention/README.md, "Partitioning"), so the retention job drops a month of
-- finished deliveries whose every organisation is past its policy instead of deleting its rows.
-- The three are one partition group: a month of each is created, and dropped, together.
--
-- - webhook_events by created_at.
-- - webhook_deliveries by created_at. A delivery is made in the transaction that writes its event,
--   at the same instant (webhooks/outbox.ts), so it lies in its event's month, and its foreign key
--   to the event now names the event's time too: (organization_id, event_id, created_at).
-- - webhook_delivery_attempts by delivery_created_at, a new column: its delivery's created_at, so a
--   delivery's attempts, made whenever, lie in its month; the foreign key to the delivery names it.
--
-- Keys must hold the partition key, so each gains the time column: events (organization_id,
-- event_id, created_at), deliveries (organization_id, delivery_id, created_at) and unique
-- (organization_id, event_id, endpoint_id, created_at), attempts (organization_id, delivery_id,
-- delivery_created_at, attempt). What they guaranteed still holds: a delivery's created_at is its
-- event's (the foreign key), and an attempt's delivery_created_at its delivery's, so "one delivery
-- per event and endpoint" and "one record per attempt" (insertAttempt's ON CONFLICT DO NOTHING) are
-- enforced as before; event and delivery ids are random (lib/ids.ts), so an id repeated in two
-- months is as unlikely as it ever was, and no statement relies on the database to refuse one.
--
-- Every month of the existing rows, and the current month and the next two, is created here, so
-- the DEFAULT partitions start empty; the partition maintenance (log-retention/partitions.ts)
-- creates the months ahead from then on.
ALTER TABLE webhook_delivery_attempts RENAME TO webhook_delivery_attempts_0010;
ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_0010;
ALTER TABLE webhook_events RENAME TO webhook_events_0010;
ALTER INDEX webhook_delivery_attempts_pkey RENAME TO webhook_delivery_attempts_0010_pkey;
ALTER INDEX webhook_deliveries_pkey RENAME TO webhook_deliveries_0010_pkey;
ALTER INDEX webhook_deliveries_organization_id_event_id_endpoint_id_key RENAME TO webhook_deliveries_0010_unique;
ALTER INDEX webhook_events_pkey RENAME TO webhook_events_0010_pkey;
DROP INDEX webhook_deliveries_by_endpoint;
DROP INDEX webhook_deliveries_due_by_endpoint;
DROP INDEX webhook_deliveries_by_time;
DROP INDEX webhook_events_by_time;

CREATE TABLE webhook_events (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  event_id        TEXT NOT NULL,
  event_type      TEXT NOT NULL,
  payload         JSONB NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, event_id, created_at)
) PARTITION BY RANGE (created_at);
CREATE TABLE webhook_events_default PARTITION OF webhook_events DEFAULT;

CREATE TABLE webhook_deliveries (
  organization_id  TEXT NOT NULL,
  delivery_id      TEXT NOT NULL,
  endpoint_id      TEXT NOT NULL,
  event_id         TEXT NOT NULL,
  -- pending: waiting for next_attempt_at; sending: claimed by a worker until next_attempt_at (the
  -- lease), after which another worker may claim it again; delivered; dead (retry budget spent);
  -- cancelled (its endpoint was deleted).
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'dead', 'cancelled')),
  attempts         INTEGER NOT NULL DEFAULT 0,
  next_attempt_at  BIGINT,
  -- Start of the current retry budget: creation, or the last manual re-send.
  retry_window_start BIGINT NOT NULL,
  -- Random per claim; an outcome is recorded only by the worker still holding this claim.
  claim_token      TEXT,
  last_attempt_at  BIGINT,
  last_status_code INTEGER,
  last_error       TEXT,
  delivered_at     BIGINT,
  -- Its event's created_at (the foreign key below).
  created_at       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, delivery_id, created_at),
  UNIQUE (organization_id, event_id, endpoint_id, created_at),
  FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, endpoint_id),
  FOREIGN KEY (organization_id, event_id, created_at) REFERENCES webhook_events (organization_id, event_id, created_at)
) PARTITION BY RANGE (created_at);
CREATE TABLE webhook_deliveries_default PARTITION OF webhook_deliveries DEFAULT;
CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (organization_id, endpoint_id, created_at);
CREATE INDEX webhook_deliveries_due_by_endpoint
  ON webhook_deliveries (organization_id, endpoint_id, next_attempt_at)
  WHERE status IN ('pending', 'sending');
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (organization_id, created_at);
CREATE INDEX webhook_events_by_time ON webhook_events (organization_id, created_at);

CREATE TABLE webhook_delivery_attempts (
  organization_id     TEXT NOT NULL,
  delivery_id         TEXT NOT NULL,
  attempt             INTEGER NOT NULL,
  started_at          BIGINT NOT NULL,
  finished_at         BIGINT NOT NULL,
  status_code         INTEGER,                -- NULL when no HTTP response came back
  error               TEXT,                   -- NULL on success
  -- Its delivery's created_at: the partition key, so the attempts lie in their delivery's month.
  delivery_created_at BIGINT NOT NULL,
  PRIMARY KEY (organization_id, delivery_id, delivery_created_at, attempt),
  FOREIGN KEY (organization_id, delivery_id, delivery_created_at)
    REFERENCES webhook_deliveries (organization_id, delivery_id, created_at)
) PARTITION BY RANGE (delivery_created_at);
CREATE TABLE webhook_delivery_attempts_default PARTITION OF webhook_delivery_attempts DEFAULT;

-- The months of the rows kept, and this month and the next two (UTC), named as the partition
-- maintenance names them (<table>_pYYYYMM).
CREATE FUNCTION guard_0112_create_months() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month timestamp;
  lo bigint;
  hi bigint;
  t text;
BEGIN
  FOR month IN
    SELECT DISTINCT date_trunc('month', to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC')
      FROM webhook_events_0010
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => n)
      FROM generate_series(0, 2) AS n
  LOOP
    lo := (extract(epoch FROM month) * 1000)::bigint;
    hi := (extract(epoch FROM month + interval '1 month') * 1000)::bigint;
    FOREACH t IN ARRAY ARRAY['webhook_events', 'webhook_deliveries', 'webhook_delivery_attempts'] LOOP
      EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%s) TO (%s)',
                     t || '_p' || to_char(month, 'YYYYMM'), t, lo, hi);
    END LOOP;
  END LOOP;
END
$$;
SELECT guard_0112_create_months();
DROP FUNCTION guard_0112_create_months();

INSERT INTO webhook_events (organization_id, event_id, event_type, payload, created_at)
SELECT organization_id, event_id, event_type, payload, created_at FROM webhook_events_0010;
-- A delivery made by hand at another instant than its event takes its event's, as the foreign key
-- now requires (the outbox never made one).
INSERT INTO webhook_deliveries
  (organization_id, delivery_id, endpoint_id, event_id, status, attempts, next_attempt_at, retry_window_start,
   claim_token, last_attempt_at, last_status_code, last_error, delivered_at, created_at)
SELECT d.organization_id, d.delivery_id, d.endpoint_id, d.event_id, d.status, d.attempts, d.next_attempt_at,
       d.retry_window_start, d.claim_token, d.last_attempt_at, d.last_status_code, d.last_error, d.delivered_at,
       e.created_at
  FROM webhook_deliveries_0010 d
  JOIN webhook_events_0010 e ON e.organization_id = d.organization_id AND e.event_id = d.event_id;
INSERT INTO webhook_delivery_attempts
  (organization_id, delivery_id, attempt, started_at, finished_at, status_code, error, delivery_created_at)
SELECT a.organization_id, a.delivery_id, a.attempt, a.started_at, a.finished_at, a.status_code, a.error,
       e.created_at
  FROM webhook_delivery_attempts_0010 a
  JOIN webhook_deliveries_0010 d ON d.organization_id = a.organization_id AND d.delivery_id = a.delivery_id
  JOIN webhook_events_0010 e ON e.organization_id = d.organization_id AND e.event_id = d.event_id;

DROP TABLE webhook_delivery_attempts_0010;
DROP TABLE webhook_deliveries_0010;
DROP TABLE webhook_events_0010;
