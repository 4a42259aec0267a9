-- Point-of-sale consent requests (offline/pos/): a till asks, the customer answers at
-- /consent/{token}. The request is not a consent; a consent exists only once the customer
-- confirms (consent_id then names it). Unanswered requests expire 72 hours after creation into
-- the staff queue, where staff close them with a note. Rows are never deleted: a declined or
-- expired request is evidence of what was asked and what became of it.
CREATE TABLE pos_consent_requests (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  request_id      TEXT NOT NULL,
  -- SHA-256 (hex) of the token the receipt prints; the token itself is never stored. The page
  -- that redeems it knows no organisation, hence the unique index on the hash alone.
  token_hash      TEXT NOT NULL,
  notice_id       TEXT NOT NULL,
  -- The notice version published when the till asked (what the receipt refers to).
  notice_version  INTEGER NOT NULL,
  purpose         TEXT NOT NULL,
  data_types      JSONB NOT NULL,
  -- phoneHash(secretsKey, organization_id, phone) (offline/phone-hash.ts): never the number.
  phone_hash      TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('pending', 'confirmed', 'declined', 'expired', 'closed')),
  created_at      BIGINT NOT NULL,
  expires_at      BIGINT NOT NULL,
  -- When the customer confirmed or declined.
  answered_at     BIGINT,
  -- The consent a confirmation gave.
  consent_id      TEXT,
  -- The withdrawal token issued with that consent, sealed (AES-256-GCM under the secrets key,
  -- bound to this row), so the page can show it again to whoever holds the receipt's token
  -- while the request's 72 hours run: a confirmation page lost to a dropped connection must not
  -- leave the customer without the means to withdraw (DPDP s.6(4)).
  withdrawal_token_sealed TEXT,
  -- The API key the till called with.
  created_by      TEXT NOT NULL,
  -- Staff follow-up of an expired request: who closed it, when, and why.
  closed_by       TEXT,
  closed_at       BIGINT,
  close_note      TEXT,
  PRIMARY KEY (organization_id, request_id),
  FOREIGN KEY (organization_id, notice_id) REFERENCES notices (organization_id, notice_id),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id),
  CHECK ((status = 'confirmed') = (consent_id IS NOT NULL)),
  CHECK ((consent_id IS NULL) = (withdrawal_token_sealed IS NULL)),
  CHECK ((status IN ('confirmed', 'declined')) = (answered_at IS NOT NULL)),
  CHECK ((status = 'closed') = (closed_at IS NOT NULL)),
  CHECK ((closed_at IS NULL) = (closed_by IS NULL) AND (closed_at IS NULL) = (close_note IS NULL))
);
CREATE UNIQUE INDEX pos_consent_requests_by_token ON pos_consent_requests (token_hash);
-- The expiry sweep: pending requests by deadline, across organisations.
CREATE INDEX pos_consent_requests_pending_by_expiry ON pos_consent_requests (expires_at)
  WHERE status = 'pending';
-- The staff queue: one organisation's requests of a status, oldest deadline first.
CREATE INDEX pos_consent_requests_queue
  ON pos_consent_requests (organization_id, status, expires_at, request_id);
