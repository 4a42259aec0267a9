-- Webhooks (ARCHITECTURE.md decision 8): endpoints, an outbox of events written in the same
-- transaction as the change that causes them, one delivery per (event, subscribed endpoint), and
-- every attempt. Times are BIGINT epoch milliseconds.

CREATE TABLE webhook_endpoints (
  organization_id   TEXT NOT NULL REFERENCES organizations (organization_id),
  endpoint_id       TEXT NOT NULL,
  url               TEXT NOT NULL,
  -- Explicit subscription list; validated against the known event types when written.
  event_types       TEXT[] NOT NULL CHECK (cardinality(event_types) > 0),
  -- AES-256-GCM of the `whsec_` secret under the configured secrets key: it must be recoverable to
  -- sign, unlike API keys, which are only ever compared.
  secret_ciphertext TEXT NOT NULL,
  enabled           BOOLEAN NOT NULL DEFAULT TRUE,
  created_at        BIGINT NOT NULL,
  created_by        TEXT,                   -- staff_id, or NULL when made by the CLI
  updated_at        BIGINT NOT NULL,
  deleted_at        BIGINT,                 -- kept, not removed, so its deliveries stay visible
  PRIMARY KEY (organization_id, endpoint_id)
);

CREATE TABLE webhook_events (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  event_id        TEXT NOT NULL,
  event_type      TEXT NOT NULL,
  payload         JSONB NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, event_id)
);

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
  created_at       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, delivery_id),
  UNIQUE (organization_id, event_id, endpoint_id),
  FOREIGN KEY (organization_id, endpoint_id) REFERENCES webhook_endpoints (organization_id, endpoint_id),
  FOREIGN KEY (organization_id, event_id) REFERENCES webhook_events (organization_id, event_id)
);

-- Workers scan every organisation for due work, so this one index leads with the due time.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status IN ('pending', 'sending');

CREATE INDEX webhook_deliveries_by_endpoint ON webhook_deliveries (organization_id, endpoint_id, created_at);

CREATE TABLE webhook_delivery_attempts (
  organization_id TEXT NOT NULL,
  delivery_id     TEXT NOT NULL,
  attempt         INTEGER NOT NULL,
  started_at      BIGINT NOT NULL,
  finished_at     BIGINT NOT NULL,
  status_code     INTEGER,                -- NULL when no HTTP response came back
  error           TEXT,                   -- NULL on success
  PRIMARY KEY (organization_id, delivery_id, attempt),
  FOREIGN KEY (organization_id, delivery_id) REFERENCES webhook_deliveries (organization_id, delivery_id)
);
