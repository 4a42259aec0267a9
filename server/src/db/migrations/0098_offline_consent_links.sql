-- QR consent links (offline/links/): a fiduciary mints a link for one purpose of a published
-- notice and prints it as a QR code; a principal opens /offline-consent/{token}, reads the notice
-- and agrees or declines. Links are never deleted (a disabled link keeps its responses' context);
-- every response, a refusal included, is kept as evidence of what was shown. The staff list counts
-- a link's answers from offline_link_responses rather than a counter on the link, so answers to a
-- busy QR code never queue on one row's lock.
CREATE TABLE offline_consent_links (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  link_id         TEXT NOT NULL,
  -- SHA-256 (hex) of the link's token; the token is shown once, when the link is minted.
  token_hash      TEXT NOT NULL,
  notice_id       TEXT NOT NULL,
  purpose         TEXT NOT NULL,
  data_types      JSONB NOT NULL,
  -- Where the QR code is deployed; shown to staff only, never on the principal's page.
  label           TEXT,
  created_at      BIGINT NOT NULL,
  -- `service:<apiKeyId>` or `staff:<staffId>`.
  created_by      TEXT NOT NULL,
  disabled_at     BIGINT,
  disabled_by     TEXT,
  PRIMARY KEY (organization_id, link_id),
  FOREIGN KEY (organization_id, notice_id) REFERENCES notices (organization_id, notice_id),
  CHECK ((disabled_at IS NULL) = (disabled_by IS NULL))
);
-- The page knows only the token: the lookup leads with its hash (unique across organisations).
CREATE UNIQUE INDEX offline_consent_links_by_token ON offline_consent_links (token_hash);
-- The staff list, newest first.
CREATE INDEX offline_consent_links_by_created
  ON offline_consent_links (organization_id, created_at DESC, link_id DESC);

-- A principal's answer on a link's page. The nonce is minted when the page is rendered and posted
-- back with the answer; only its SHA-256 is kept, unique per organisation, so a double tap or a
-- refresh finds the first answer instead of making a second consent.
CREATE TABLE offline_link_responses (
  organization_id         TEXT NOT NULL,
  response_id             TEXT NOT NULL,
  link_id                 TEXT NOT NULL,
  nonce_hash              TEXT NOT NULL,
  -- What the principal was shown: the notice version and the language they read it in.
  notice_id               TEXT NOT NULL,
  notice_version          BIGINT NOT NULL,
  locale                  TEXT NOT NULL,
  decision                TEXT NOT NULL CHECK (decision IN ('accepted', 'declined')),
  consent_id              TEXT,
  -- The accepted consent's withdrawal token, sealed (webhooks/secret-box.ts) so a repeated post
  -- with the same nonce can show it again; the token itself is stored only as a hash
  -- (withdrawal_tokens).
  withdrawal_token_sealed TEXT,
  responded_at            BIGINT NOT NULL,
  PRIMARY KEY (organization_id, response_id),
  FOREIGN KEY (organization_id, link_id) REFERENCES offline_consent_links (organization_id, link_id),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id),
  CHECK (decision = 'accepted' OR (consent_id IS NULL AND withdrawal_token_sealed IS NULL))
);
CREATE UNIQUE INDEX offline_link_responses_by_nonce ON offline_link_responses (organization_id, nonce_hash);
CREATE INDEX offline_link_responses_by_link ON offline_link_responses (organization_id, link_id, responded_at);
