-- Offline and assisted capture (offline/): the consent sources it adds, enrolled devices and the
-- withdrawal tokens handed to principals who consented offline. Capture sessions, QR links, POS
-- requests and IVR artefacts have their own migrations.

-- offline: a verified device session; offline_link: a QR link; offline_pos: a confirmed
-- point-of-sale request; offline_ivr: an IVR acceptance.
ALTER TABLE consents DROP CONSTRAINT consents_source_check;
ALTER TABLE consents ADD CONSTRAINT consents_source_check CHECK (source IN (
  'brokered', 'direct', 'anonymous', 'linked', 'offline', 'offline_link', 'offline_pos', 'offline_ivr'
));

-- A device enrolled to sign capture sessions (contract specs/capture-artifact.md). Never deleted:
-- a revoked device's past sessions stay verifiable evidence.
CREATE TABLE offline_devices (
  organization_id   TEXT NOT NULL REFERENCES organizations (organization_id),
  device_id         TEXT NOT NULL,
  label             TEXT NOT NULL,
  channel           TEXT NOT NULL CHECK (channel IN ('qr', 'agent_app', 'pos', 'async_link', 'ivr')),
  -- Standard base64 of the P-256 SubjectPublicKeyInfo DER, as enrolled.
  public_key_spki   TEXT NOT NULL,
  -- SHA-256 (hex) of the SPKI DER: one key is enrolled at most once per organisation.
  key_fingerprint   TEXT NOT NULL,
  enrolled_at       BIGINT NOT NULL,
  enrolled_by       TEXT NOT NULL,
  revoked_at        BIGINT,
  revoked_by        TEXT,
  revocation_reason TEXT,
  PRIMARY KEY (organization_id, device_id),
  CHECK ((revoked_at IS NULL) = (revoked_by IS NULL))
);
CREATE UNIQUE INDEX offline_devices_by_key ON offline_devices (organization_id, key_fingerprint);

-- A principal withdraws offline consents with the token handed to them (printed slip, read out).
-- One token may stand for several consents (a session that opted in to several purposes), one
-- row each; a consent has at most one token. Only the token's SHA-256 is kept; the page that
-- redeems it knows no organisation, hence the key leads with the hash.
CREATE TABLE withdrawal_tokens (
  token_hash      TEXT NOT NULL,
  organization_id TEXT NOT NULL,
  consent_id      TEXT NOT NULL,
  issued_at       BIGINT NOT NULL,
  PRIMARY KEY (token_hash, consent_id),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id)
);
CREATE UNIQUE INDEX withdrawal_tokens_by_consent ON withdrawal_tokens (organization_id, consent_id);
