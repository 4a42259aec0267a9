-- Consent lifecycle: consents and their append-only history, parental verification, the Consent
-- Gate's decision log and inbound Consent Manager signals. Withdrawal never deletes: it sets
-- withdrawn_at and appends an event. Times are BIGINT epoch milliseconds.

-- /cm/v1 identifies principals by email; broker-token may associate one (stored lower-cased).
ALTER TABLE principals ADD COLUMN email TEXT;
CREATE UNIQUE INDEX principals_email ON principals (organization_id, email) WHERE email IS NOT NULL;

CREATE TABLE consents (
  organization_id   TEXT NOT NULL REFERENCES organizations (organization_id),
  consent_id        TEXT NOT NULL,
  -- NULL while the consent belongs to a guest; set when linked (or given by a known principal).
  principal_id      TEXT,
  -- The guest id it was given under; kept after linking as evidence of where it came from.
  anonymous_id      TEXT,
  notice_id         TEXT NOT NULL,
  notice_version    INTEGER NOT NULL,
  purpose           TEXT NOT NULL,
  data_types        JSONB NOT NULL,         -- as given: order and duplicates kept
  source            TEXT NOT NULL CHECK (source IN ('brokered', 'direct', 'anonymous', 'linked')),
  given_at          BIGINT NOT NULL,
  withdrawn_at      BIGINT,
  -- principal_request | reconsented | superseded_on_link | minor_tracking_blocked
  withdrawal_reason TEXT,
  -- Contract audit hash of the consent as it stands now (source included) and its key version.
  audit_hash        TEXT NOT NULL,
  audit_key_version INTEGER NOT NULL,
  PRIMARY KEY (organization_id, consent_id),
  FOREIGN KEY (organization_id, notice_id, notice_version)
    REFERENCES notice_versions (organization_id, notice_id, version),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  CHECK (principal_id IS NOT NULL OR anonymous_id IS NOT NULL),
  CHECK ((withdrawn_at IS NULL) = (withdrawal_reason IS NULL))
);
-- One active consent per (principal, notice, purpose), and per (guest, notice, purpose) while the
-- guest is not yet linked. Concurrent second consents lose on these indexes, not in application code.
CREATE UNIQUE INDEX consents_one_active_per_principal
  ON consents (organization_id, principal_id, notice_id, purpose)
  WHERE withdrawn_at IS NULL AND principal_id IS NOT NULL;
CREATE UNIQUE INDEX consents_one_active_per_guest
  ON consents (organization_id, anonymous_id, notice_id, purpose)
  WHERE withdrawn_at IS NULL AND principal_id IS NULL;
CREATE INDEX consents_by_principal ON consents (organization_id, principal_id, given_at);
CREATE INDEX consents_by_guest ON consents (organization_id, anonymous_id);

-- Append-only history: one row per given / withdrawn / linked event, never updated or deleted.
-- Each carries the contract audit hash of the consent as it stood after the event, and the
-- sequence number of its entry in the organisation's audit chain (audit_entries).
CREATE TABLE consent_events (
  organization_id   TEXT NOT NULL,
  event_id          TEXT NOT NULL,
  consent_id        TEXT NOT NULL,
  event_type        TEXT NOT NULL CHECK (event_type IN ('given', 'withdrawn', 'linked')),
  occurred_at       BIGINT NOT NULL,
  principal_id      TEXT,
  anonymous_id      TEXT,
  notice_id         TEXT NOT NULL,
  notice_version    INTEGER NOT NULL,
  purpose           TEXT NOT NULL,
  data_types        JSONB NOT NULL,
  given_at          BIGINT NOT NULL,
  source            TEXT NOT NULL,
  reason            TEXT,
  audit_hash        TEXT NOT NULL,
  audit_key_version INTEGER NOT NULL,
  audit_seq         BIGINT NOT NULL,
  PRIMARY KEY (organization_id, event_id),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id)
);
CREATE INDEX consent_events_by_consent ON consent_events (organization_id, consent_id, audit_seq);

-- Verifiable parental consent (DPDP s.9(1)): a principal with a row here is a verified child.
-- The provider's token is never stored, only its SHA-256; the parent reference likewise.
CREATE TABLE parental_verifications (
  organization_id      TEXT NOT NULL,
  verification_id      TEXT NOT NULL,
  principal_id         TEXT NOT NULL,
  provider             TEXT NOT NULL,
  token_hash           TEXT NOT NULL,
  parent_reference_hash TEXT NOT NULL,
  verified_at          BIGINT NOT NULL,
  PRIMARY KEY (organization_id, verification_id),
  UNIQUE (organization_id, token_hash),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id)
);
CREATE INDEX parental_verifications_by_principal ON parental_verifications (organization_id, principal_id);

-- Inbound Consent Manager signals. Every delivery is kept; the first of identical deliveries is
-- `unresolved`, later ones `duplicate` (the partial unique index decides, even under concurrency).
CREATE TABLE cm_signals (
  organization_id         TEXT NOT NULL REFERENCES organizations (organization_id),
  signal_id               TEXT NOT NULL,
  cm_registry_id          TEXT NOT NULL,
  cm_name                 TEXT NOT NULL,
  principal_token_from_cm TEXT NOT NULL,
  purposes                JSONB NOT NULL,
  signal_type             TEXT NOT NULL CHECK (signal_type IN ('consent_given', 'consent_withdrawn', 'consent_updated')),
  received_at             BIGINT NOT NULL,
  mapping_status          TEXT NOT NULL CHECK (mapping_status IN ('mapped', 'unresolved', 'duplicate')),
  -- SHA-256 of the canonical signal (every field but the ids and time).
  fingerprint             TEXT NOT NULL,
  duplicate_of            TEXT,
  PRIMARY KEY (organization_id, signal_id)
);
CREATE UNIQUE INDEX cm_signals_first_delivery
  ON cm_signals (organization_id, fingerprint) WHERE mapping_status <> 'duplicate';
