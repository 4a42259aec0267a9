-- The per-organisation audit hash chain and the Idempotency-Key store.

-- One row per organisation: the chain's head. Appending locks it (SELECT ... FOR UPDATE) inside
-- the writing transaction, so appends from several instances take turns and never fork the chain.
CREATE TABLE audit_chain_heads (
  organization_id TEXT PRIMARY KEY REFERENCES organizations (organization_id),
  last_seq        BIGINT NOT NULL,
  last_hash       TEXT NOT NULL,
  updated_at      BIGINT NOT NULL
);

-- Append-only. entry_hash = SHA-256 over (prev_hash, seq, organisation, type, subject, time,
-- payload); payload is stored as the exact canonical JSON text that was hashed.
CREATE TABLE audit_entries (
  organization_id TEXT NOT NULL,
  seq             BIGINT NOT NULL CHECK (seq >= 1),
  entry_type      TEXT NOT NULL,
  subject_id      TEXT NOT NULL,
  payload         TEXT NOT NULL,
  prev_hash       TEXT NOT NULL,
  entry_hash      TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, seq)
);
CREATE INDEX audit_entries_by_subject ON audit_entries (organization_id, subject_id);

-- Idempotency-Key scope = (organisation, credential, operation, key). A row is inserted in the
-- same transaction as the write it guards and completed with the response before commit, so a
-- committed row always holds a response; a concurrent first request waits on this primary key.
-- credential_id is the API key, principal or staff id, or 'anonymous' for a public route.
CREATE TABLE idempotency_keys (
  organization_id TEXT NOT NULL,
  credential_id   TEXT NOT NULL,
  operation_id    TEXT NOT NULL,
  idempotency_key TEXT NOT NULL,
  request_hash    TEXT NOT NULL,          -- SHA-256 of the canonical request (params, query, body)
  response_status INTEGER,
  response_body   TEXT,                   -- the JSON text sent, replayed verbatim
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, credential_id, operation_id, idempotency_key)
);
CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
