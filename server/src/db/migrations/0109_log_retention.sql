-- Log retention (log-retention/, DPDP Rules 2025 r.8(3): processing logs kept at least one year).
--
-- log_retention_policies: how long an organisation keeps each class of log before the retention
-- job may purge it. No row, or retain_days NULL, means "kept forever": the statute sets a minimum,
-- not a maximum, so nothing is purged until the organisation chooses a period. The rules refuse a
-- period under 365 days; the CHECK is the last line of defence.
CREATE TABLE log_retention_policies (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  log_class       TEXT NOT NULL CHECK (log_class IN ('audit_entries', 'consent_events', 'gate_decisions', 'webhook_deliveries')),
  retain_days     INTEGER CHECK (retain_days IS NULL OR retain_days >= 365),
  updated_at      BIGINT NOT NULL,
  updated_by      TEXT NOT NULL,
  PRIMARY KEY (organization_id, log_class)
);

-- audit_chain_checkpoints (audit/): what a purge of the chain's oldest entries leaves behind, so
-- the rest still verifies. A purge removes entries 1..through_seq and records here the hash of
-- entry through_seq (the kept entry at through_seq + 1 names it as prev_hash), and appends an
-- `audit.purged` entry (at entry_seq) that commits to this row. Verification starts at the
-- checkpoint with the greatest through_seq; a later purge deletes the checkpoints whose own
-- entries it purges.
CREATE TABLE audit_chain_checkpoints (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  checkpoint_id   TEXT NOT NULL,
  through_seq     BIGINT NOT NULL,
  through_hash    TEXT NOT NULL,
  -- The first position this purge removed (the previous checkpoint's through_seq + 1).
  from_seq        BIGINT NOT NULL,
  entries_purged  BIGINT NOT NULL,
  -- Entries created before this time were eligible (now minus the policy's period).
  cutoff          BIGINT NOT NULL,
  purged_at       BIGINT NOT NULL,
  -- Position of the `audit.purged` entry that records this purge.
  entry_seq       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, checkpoint_id)
);
CREATE UNIQUE INDEX audit_chain_checkpoints_by_seq ON audit_chain_checkpoints (organization_id, through_seq);
