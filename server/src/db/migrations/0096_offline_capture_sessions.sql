-- Signed offline capture sessions (POST /api/v1/offline/captures, offline/captures/). Every synced
-- session is kept, whatever its outcome: a verified one is the evidence behind its consents, a
-- quarantined one waits for staff review, a rejected one records what a device sent. Never deleted.
CREATE TABLE offline_capture_sessions (
  organization_id         TEXT NOT NULL REFERENCES organizations (organization_id),
  session_id              TEXT NOT NULL,
  -- The device's id for the session, and the idempotency key of a sync.
  client_session_id       TEXT NOT NULL,
  device_id               TEXT NOT NULL,
  status                  TEXT NOT NULL CHECK (status IN ('verified', 'quarantined', 'rejected')),
  reason                  TEXT CHECK (reason IN (
    'unknown_device', 'device_revoked', 'signature_mismatch', 'clock_skew', 'notice_unpublished',
    'notice_superseded', 'invalid_session'
  )),
  -- Staff review of a quarantined session: released (its consents were then created) or rejected.
  review_status           TEXT CHECK (review_status IN ('released', 'rejected_by_staff')),
  reviewed_by             TEXT,
  reviewed_at             BIGINT,
  review_note             TEXT,
  -- What the device signed, as sent; a rejected session keeps what parsed (the rest is NULL).
  notice_id               TEXT,
  notice_version          BIGINT,
  notice_locale           TEXT,
  channel                 TEXT,
  captured_at_client      BIGINT,
  received_at             BIGINT NOT NULL,
  -- Every grant shown, opted in or out, with its label and category: the declined ones are
  -- evidence of what the principal was shown.
  purpose_grants          JSONB NOT NULL,
  data_types              JSONB NOT NULL,
  principal_handle_kind   TEXT,
  -- A phone number only as its per-organisation keyed hash (offline/phone-hash.ts), never raw.
  principal_handle_value  TEXT,
  device_signature        TEXT NOT NULL,
  link_id                 TEXT,
  -- SHA-256 (hex) of the dpdpcca/2 canonical string; NULL when the session has none.
  canonical_sha256        TEXT,
  -- The consents the session gave (verified, or released by staff), in purpose order.
  consent_ids             JSONB NOT NULL DEFAULT '[]',
  -- The withdrawal token of those consents, sealed (webhooks/secret-box.ts) so a re-sync can hand
  -- the device the same token again; the token itself is stored only as a hash (withdrawal_tokens).
  withdrawal_token_sealed TEXT,
  -- The audit-chain entry of the verification outcome (audit_queue / audit_chain entry_ref).
  audit_ref               BIGINT,
  PRIMARY KEY (organization_id, session_id),
  CHECK ((status = 'verified') = (reason IS NULL)),
  CHECK (review_status IS NULL OR status = 'quarantined'),
  CHECK ((review_status IS NULL) = (reviewed_at IS NULL))
);
-- One session per client id and organisation: a re-sync finds the first (and a concurrent one waits
-- on this index for the first to commit, then finds it).
CREATE UNIQUE INDEX offline_capture_sessions_by_client_id
  ON offline_capture_sessions (organization_id, client_session_id);
-- The staff review list, newest first.
CREATE INDEX offline_capture_sessions_by_received
  ON offline_capture_sessions (organization_id, received_at DESC, session_id DESC);
