-- Domain groups: the unit the embeddable widget is configured by (`/api/v1/widget/config?id=`).
-- A group lists registered domains of its organisation, may name its own notice (else the
-- organisation's default notice applies) and may carry its own banner styling, versioned like
-- banner_configs: config_version bumps when the styling changes and never asks for re-consent.

CREATE TABLE domain_groups (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  domain_group_id TEXT NOT NULL,
  name            TEXT NOT NULL,
  notice_id       TEXT,                   -- NULL: the organisation's default notice
  banner_settings JSONB,                  -- NULL: no styling of its own
  config_version  INTEGER NOT NULL CHECK (config_version >= 1),
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, domain_group_id),
  UNIQUE (organization_id, name),
  FOREIGN KEY (organization_id, notice_id) REFERENCES notices (organization_id, notice_id)
);
-- The widget looks a group up by id alone.
CREATE INDEX domain_groups_by_id ON domain_groups (domain_group_id);

-- Which registered domains a group serves. Unregistering a domain takes it out of every group.
CREATE TABLE domain_group_domains (
  organization_id TEXT NOT NULL,
  domain_group_id TEXT NOT NULL,
  domain          TEXT NOT NULL,
  PRIMARY KEY (organization_id, domain_group_id, domain),
  FOREIGN KEY (organization_id, domain_group_id)
    REFERENCES domain_groups (organization_id, domain_group_id) ON DELETE CASCADE,
  FOREIGN KEY (organization_id, domain)
    REFERENCES registered_domains (organization_id, domain) ON DELETE CASCADE
);
