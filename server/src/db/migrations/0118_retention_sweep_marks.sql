-- retention/: what lets the sweep look at a principal only when her erasure could be owed, instead
-- of reading every candidate principal of every policy on each pass, and who cancelled an erasure
-- by hand and why.

-- A staff cancellation (POST /api/v1/staff/retention/erasures/{id}/cancel) records who and why;
-- the sweep's own cancellations leave both NULL.
ALTER TABLE retention_scheduled_erasures ADD COLUMN cancelled_by TEXT;
ALTER TABLE retention_scheduled_erasures ADD COLUMN cancel_note TEXT;
ALTER TABLE retention_scheduled_erasures ADD CONSTRAINT retention_scheduled_erasures_staff_cancel
  CHECK ((cancel_reason = 'staff_cancelled') = (cancel_note IS NOT NULL AND cancelled_by IS NOT NULL));

-- Per policy, how far the sweep has read: the policy terms it last saw (a change means a full pass),
-- when it last read every candidate, and up to when it has read new consents and reported events.
CREATE TABLE retention_sweep_marks (
  organization_id    TEXT NOT NULL REFERENCES organizations (organization_id),
  policy_id          TEXT NOT NULL,
  policy_updated_at  BIGINT NOT NULL,
  full_pass_at       BIGINT NOT NULL,
  consents_read_to   BIGINT NOT NULL,
  events_read_to     BIGINT NOT NULL,
  PRIMARY KEY (organization_id, policy_id),
  FOREIGN KEY (organization_id, policy_id) REFERENCES retention_policies (organization_id, policy_id)
);

-- Per policy and candidate principal, the earliest time her pre-notification could be owed, given
-- what the sweep last read of her: activity only moves a window later, so she need not be read
-- again before then. A lower bound, never a promise: reading her early costs a query, late never
-- shortens her notice (an erasure falls due its notice hours after the notice at the earliest).
CREATE TABLE retention_principal_checks (
  organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
  policy_id        TEXT NOT NULL,
  principal_id     TEXT NOT NULL,
  recheck_at       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, policy_id, principal_id),
  FOREIGN KEY (organization_id, policy_id) REFERENCES retention_policies (organization_id, policy_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id)
);
CREATE INDEX retention_principal_checks_due
  ON retention_principal_checks (organization_id, policy_id, recheck_at, principal_id);

-- The sweep's read of events reported since its last pass.
CREATE INDEX retention_events_by_recorded ON retention_events (organization_id, kind, recorded_at);
