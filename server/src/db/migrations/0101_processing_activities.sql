-- Records of processing activities (ropa/): what the fiduciary processes, why, on what legal basis,
-- who receives it and whether it leaves India (DPDP Act s.16). Versioned in place: every change
-- is an entry on the organisation's audit chain (`ropa.activity_*`) committing to each column, so
-- a row edited outside Guard is found by `guard audit verify`. Never deleted: archiving keeps it.
CREATE TABLE processing_activities (
  organization_id       TEXT NOT NULL REFERENCES organizations (organization_id),
  activity_id           TEXT NOT NULL,
  name                  TEXT NOT NULL,
  purpose               TEXT NOT NULL,
  description           TEXT,
  -- JSON array of data-category strings (1-100, no duplicates).
  data_categories       JSONB NOT NULL CHECK (jsonb_typeof(data_categories) = 'array'),
  legal_basis           TEXT NOT NULL CHECK (legal_basis IN (
    'consent', 'deemed_consent', 'legal_obligation', 'vital_interest', 'public_task'
  )),
  -- JSON array of {name, role: processor | recipient | joint_fiduciary, country?}.
  recipients            JSONB NOT NULL CHECK (jsonb_typeof(recipients) = 'array'),
  -- Where the data is kept, as the fiduciary describes it (a country, a cloud region, a data centre).
  storage_location      TEXT NOT NULL,
  crosses_border        BOOLEAN NOT NULL,
  -- JSON array of ISO 3166-1 alpha-2 codes: non-empty exactly when the data crosses the border.
  destination_countries JSONB NOT NULL CHECK (jsonb_typeof(destination_countries) = 'array'),
  created_at            BIGINT NOT NULL,
  updated_at            BIGINT NOT NULL,
  archived_at           BIGINT,
  PRIMARY KEY (organization_id, activity_id),
  CHECK (crosses_border = (jsonb_array_length(destination_countries) > 0)),
  CHECK (updated_at >= created_at)
);

-- Both lists (staff, partner) read newest first within the organisation. A register holds tens to
-- hundreds of activities, so the archived and cross-border filters need no index of their own.
CREATE INDEX processing_activities_by_time
  ON processing_activities (organization_id, created_at DESC, activity_id DESC);
