-- Events Guard cannot observe, reported by the fiduciary (retention/): an account closed, a
-- purpose served, or an interaction (the principal logged in or contacted the fiduciary, which
-- DPDP Rules 2025 r.8 counts as approaching it). Append-only; the sweep reads the latest of each
-- kind per principal.
CREATE TABLE retention_events (
  organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
  event_id         TEXT NOT NULL,
  principal_id     TEXT NOT NULL,
  kind             TEXT NOT NULL CHECK (kind IN ('account_closed', 'purpose_served', 'interaction')),
  -- The purpose a `purpose_served` event is about; NULL for the other kinds.
  purpose          TEXT,
  occurred_at      BIGINT NOT NULL,
  recorded_at      BIGINT NOT NULL,
  recorded_by      TEXT NOT NULL,
  PRIMARY KEY (organization_id, event_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  CHECK ((kind = 'purpose_served') = (purpose IS NOT NULL))
);
CREATE INDEX retention_events_by_principal ON retention_events (organization_id, principal_id, kind, occurred_at);
CREATE INDEX retention_events_by_kind ON retention_events (organization_id, kind, principal_id);
