-- Data-principal rights (DPDP Act ss. 11-14, Rules 2025 r. 14): DSRs, grievances, nominations,
-- each organisation's published response periods, and one history table recording every move of
-- their state machines (who, when, why). Times are BIGINT epoch milliseconds.

-- Response periods the organisation publishes (Rule 14(3)); absent row means the defaults (30/30).
-- The CHECKs restate the 90-day ceiling so no path around the API can store a longer period.
CREATE TABLE rights_settings (
  organization_id         TEXT PRIMARY KEY REFERENCES organizations (organization_id),
  dsr_response_days       INTEGER NOT NULL CHECK (dsr_response_days BETWEEN 1 AND 90),
  grievance_response_days INTEGER NOT NULL CHECK (grievance_response_days BETWEEN 1 AND 90),
  updated_at              BIGINT NOT NULL,
  updated_by              TEXT                    -- staff_id or api_key_id; NULL from the CLI
);

CREATE TABLE dsr_requests (
  organization_id      TEXT NOT NULL,
  request_id           TEXT NOT NULL,
  principal_id         TEXT NOT NULL,
  type                 TEXT NOT NULL CHECK (type IN ('summary', 'processors', 'correction', 'erasure')),
  status               TEXT NOT NULL CHECK (status IN ('pending', 'in_progress', 'completed', 'rejected')),
  details              TEXT,
  -- What the principal is told: a generated summary, an erasure report, a statutory denial.
  response_payload     JSONB,
  -- The period in force when filed: a later settings change never moves an existing deadline.
  response_period_days INTEGER NOT NULL,
  created_at           BIGINT NOT NULL,
  due_at               BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL,
  closed_at            BIGINT,
  -- Set once by the clock sweep when it raised dsr.due_soon / dsr.overdue for this request.
  due_soon_raised_at   BIGINT,
  overdue_raised_at    BIGINT,
  -- Set when an erasure redacted this request's free text.
  redacted_at          BIGINT,
  PRIMARY KEY (organization_id, request_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id)
);
CREATE INDEX dsr_requests_by_principal ON dsr_requests (organization_id, principal_id, created_at);
CREATE INDEX dsr_requests_queue ON dsr_requests (organization_id, due_at);
-- The clock sweep scans every organisation's open requests by deadline.
CREATE INDEX dsr_requests_open_by_due ON dsr_requests (due_at) WHERE status IN ('pending', 'in_progress');

CREATE TABLE grievances (
  organization_id      TEXT NOT NULL,
  grievance_id         TEXT NOT NULL,
  principal_id         TEXT NOT NULL,
  subject              TEXT NOT NULL,
  description          TEXT NOT NULL,
  status               TEXT NOT NULL CHECK (status IN ('open', 'in_progress', 'resolved')),
  response             TEXT,
  responded_at         BIGINT,
  response_period_days INTEGER NOT NULL,
  created_at           BIGINT NOT NULL,
  due_at               BIGINT NOT NULL,
  updated_at           BIGINT NOT NULL,
  closed_at            BIGINT,
  due_soon_raised_at   BIGINT,
  overdue_raised_at    BIGINT,
  redacted_at          BIGINT,
  PRIMARY KEY (organization_id, grievance_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id)
);
CREATE INDEX grievances_by_principal ON grievances (organization_id, principal_id, created_at);
CREATE INDEX grievances_queue ON grievances (organization_id, due_at);
CREATE INDEX grievances_open_by_due ON grievances (due_at) WHERE status IN ('open', 'in_progress');

CREATE TABLE nominations (
  organization_id TEXT NOT NULL,
  nomination_id   TEXT NOT NULL,
  principal_id    TEXT NOT NULL,
  nominee_name    TEXT NOT NULL,
  nominee_contact TEXT NOT NULL,
  status          TEXT NOT NULL CHECK (status IN ('active', 'revoked')),
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  revoked_at      BIGINT,
  erased_at       BIGINT,
  PRIMARY KEY (organization_id, nomination_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id)
);
-- One active nomination per principal, enforced by the database so concurrent PUTs cannot make two.
CREATE UNIQUE INDEX nominations_one_active ON nominations (organization_id, principal_id) WHERE status = 'active';

-- Every move of the three state machines, creation included (from_status NULL). Append-only.
CREATE TABLE rights_transitions (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  transition_id   TEXT NOT NULL,
  subject_kind    TEXT NOT NULL CHECK (subject_kind IN ('dsr', 'grievance', 'nomination')),
  subject_id      TEXT NOT NULL,
  from_status     TEXT,
  to_status       TEXT NOT NULL,
  actor_kind      TEXT NOT NULL CHECK (actor_kind IN ('principal', 'staff', 'service', 'system')),
  actor_id        TEXT,
  reason          TEXT,
  occurred_at     BIGINT NOT NULL,
  -- Orders moves made in the same millisecond (a summary walks pending -> in_progress -> completed).
  seq             BIGINT GENERATED ALWAYS AS IDENTITY,
  PRIMARY KEY (organization_id, transition_id)
);
CREATE INDEX rights_transitions_by_subject ON rights_transitions (organization_id, subject_kind, subject_id, seq);

-- Evidence that an erasure request was carried out for a principal, and when: the principal row
-- itself only shows a pseudonym afterwards.
CREATE TABLE principal_erasures (
  organization_id TEXT NOT NULL,
  principal_id    TEXT NOT NULL,
  request_id      TEXT NOT NULL,
  erased_at       BIGINT NOT NULL,
  -- Counts of what was withdrawn, erased and redacted (no personal data).
  report          JSONB NOT NULL,
  PRIMARY KEY (organization_id, principal_id, request_id),
  FOREIGN KEY (organization_id, request_id) REFERENCES dsr_requests (organization_id, request_id)
);
