-- Accounts: organisations, staff, sessions, service API keys, principals; and the shared
-- rate-limit buckets. Every table is keyed by organization_id first, so it can be partitioned or
-- distributed by tenant. Times are BIGINT epoch milliseconds, as on the wire.

CREATE TABLE organizations (
  organization_id TEXT PRIMARY KEY,
  slug            TEXT NOT NULL UNIQUE,
  name            TEXT NOT NULL,
  -- Capabilities switched off by an admin, e.g. {"cm_api": false}; absent means on.
  capabilities    JSONB NOT NULL DEFAULT '{}'::jsonb,
  settings        JSONB NOT NULL DEFAULT '{}'::jsonb,
  created_at      BIGINT NOT NULL
);

CREATE TABLE staff_users (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  staff_id        TEXT NOT NULL,
  email           TEXT NOT NULL,          -- stored lower-cased
  role            TEXT NOT NULL CHECK (role IN ('admin', 'dpo', 'viewer')),
  password_hash   TEXT NOT NULL,          -- scrypt$N$r$p$salt$hash
  created_at      BIGINT NOT NULL,
  disabled_at     BIGINT,
  PRIMARY KEY (organization_id, staff_id),
  UNIQUE (organization_id, email)
);

CREATE TABLE staff_sessions (
  organization_id TEXT NOT NULL,
  session_id      TEXT NOT NULL,
  staff_id        TEXT NOT NULL,
  -- SHA-256 of the cookie value; the cookie itself is never stored. Looked up before the
  -- organisation is known, so this one unique key is global (a credential directory).
  token_hash      TEXT NOT NULL UNIQUE,
  csrf_token      TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  expires_at      BIGINT NOT NULL,
  ended_at        BIGINT,
  PRIMARY KEY (organization_id, session_id),
  FOREIGN KEY (organization_id, staff_id) REFERENCES staff_users (organization_id, staff_id)
);

CREATE TABLE api_keys (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  api_key_id      TEXT NOT NULL,
  name            TEXT NOT NULL,
  prefix          TEXT NOT NULL,          -- first 16 characters, safe to display
  key_hash        TEXT NOT NULL UNIQUE,   -- SHA-256 of the full key; global, like token_hash above
  created_at      BIGINT NOT NULL,
  created_by      TEXT,                   -- staff_id, or NULL when made by the CLI
  last_used_at    BIGINT,
  revoked_at      BIGINT,
  PRIMARY KEY (organization_id, api_key_id)
);

-- A data principal as the fiduciary knows it: its own stable user id (`externalId`), org-scoped.
CREATE TABLE principals (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  principal_id    TEXT NOT NULL,
  external_id     TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, principal_id),
  UNIQUE (organization_id, external_id)
);

-- Fixed-window counters shared by every instance (sign-in attempts, anonymous capture).
-- organization_id is '' for deployment-wide buckets (for example sign-in to an unknown slug).
CREATE TABLE rate_limit_buckets (
  organization_id TEXT NOT NULL,
  bucket_key      TEXT NOT NULL,
  window_start    BIGINT NOT NULL,
  hits            INTEGER NOT NULL,
  PRIMARY KEY (organization_id, bucket_key, window_start)
);
