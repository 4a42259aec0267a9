-- Notices are versioned, immutable evidence: a notice (stable id) has numbered versions, and a
-- published version is never edited; publishing changed content makes a new version and marks the
-- previous one superseded. Consents point at (notice_id, version).

CREATE TABLE notices (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  notice_id       TEXT NOT NULL,
  -- The organisation's own name for the notice ("default", "marketing-site"); publishing a file
  -- with the same key makes a new version of the same notice.
  notice_key      TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, notice_id),
  UNIQUE (organization_id, notice_key)
);
-- Public reads look a notice up by id alone.
CREATE INDEX notices_by_id ON notices (notice_id);

CREATE TABLE notice_versions (
  organization_id TEXT NOT NULL,
  notice_id       TEXT NOT NULL,
  version         INTEGER NOT NULL CHECK (version >= 1),
  status          TEXT NOT NULL CHECK (status IN ('draft', 'published', 'superseded', 'archived')),
  itemized        JSONB NOT NULL,
  content         JSONB NOT NULL,
  languages       JSONB NOT NULL,         -- language codes of content, in display order
  content_hash    TEXT NOT NULL,          -- SHA-256 of the canonical itemized+content JSON
  created_at      BIGINT NOT NULL,
  published_at    BIGINT,
  PRIMARY KEY (organization_id, notice_id, version),
  FOREIGN KEY (organization_id, notice_id) REFERENCES notices (organization_id, notice_id)
);
-- At most one published version per notice.
CREATE UNIQUE INDEX notice_versions_one_published
  ON notice_versions (organization_id, notice_id) WHERE status = 'published';

-- Web domains and native apps registered to an organisation; banner config for an unregistered
-- domain or app is 404 (strict matching, the same trust boundary as a published notice).
CREATE TABLE registered_domains (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  domain          TEXT NOT NULL,          -- lower-case hostname
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, domain)
);

CREATE TABLE registered_apps (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  app_id          TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, app_id)
);

-- Banner presentation settings: one organisation default (scope 'default', scope_value ''), and
-- optional overrides per domain or app. config_version bumps on every edit and never asks for
-- re-consent (only a new notice version does).
CREATE TABLE banner_configs (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  scope           TEXT NOT NULL CHECK (scope IN ('default', 'domain', 'app')),
  scope_value     TEXT NOT NULL,
  settings        JSONB NOT NULL,
  config_version  INTEGER NOT NULL CHECK (config_version >= 1),
  updated_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, scope, scope_value)
);
