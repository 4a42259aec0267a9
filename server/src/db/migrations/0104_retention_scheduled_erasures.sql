-- The erasure schedule (retention/): one row per principal whose retention window under a policy
-- is about to elapse or has. The sweep creates it (at the latest when the pre-notification is
-- owed), records the notice, and cancels it when the principal's activity moves the window; the
-- fiduciary's backend confirms execution. Rows are never deleted: they are the evidence that data
-- was erased on time, or why not.
CREATE TABLE retention_scheduled_erasures (
  organization_id           TEXT NOT NULL REFERENCES organizations (organization_id),
  scheduled_erasure_id      TEXT NOT NULL,
  policy_id                 TEXT NOT NULL,
  principal_id              TEXT NOT NULL,
  anchor_event              TEXT NOT NULL,
  -- When the anchor event happened (after the policy's window floor); scheduled_for = anchor_at +
  -- the policy's duration.
  anchor_at                 BIGINT NOT NULL,
  scheduled_for             BIGINT NOT NULL,
  notice_hours              INTEGER NOT NULL CHECK (notice_hours >= 48),
  status                    TEXT NOT NULL CHECK (status IN ('scheduled', 'cancelled', 'executed')),
  created_at                BIGINT NOT NULL,
  pre_notification_sent_at  BIGINT,
  notification_id           TEXT,
  -- max(scheduled_for, pre_notification_sent_at + notice_hours): never before the notice ran.
  due_at                    BIGINT,
  cancelled_at              BIGINT,
  cancel_reason             TEXT,
  executed_at               BIGINT,
  executed_by               TEXT,
  PRIMARY KEY (organization_id, scheduled_erasure_id),
  FOREIGN KEY (organization_id, policy_id) REFERENCES retention_policies (organization_id, policy_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  CHECK ((pre_notification_sent_at IS NULL) = (due_at IS NULL)),
  CHECK ((pre_notification_sent_at IS NULL) = (notification_id IS NULL)),
  CHECK ((status = 'cancelled') = (cancelled_at IS NOT NULL) AND (cancelled_at IS NULL) = (cancel_reason IS NULL)),
  CHECK ((status = 'executed') = (executed_at IS NOT NULL) AND (executed_at IS NULL) = (executed_by IS NULL)),
  CHECK (status <> 'executed' OR due_at IS NOT NULL)
);
-- Two sweeps never schedule one window twice (a window is its anchor and its end: a policy whose
-- duration changed schedules the same anchor anew), and a principal has one open erasure per policy.
CREATE UNIQUE INDEX retention_scheduled_erasures_one_per_window
  ON retention_scheduled_erasures (organization_id, policy_id, principal_id, anchor_at, scheduled_for);
CREATE UNIQUE INDEX retention_scheduled_erasures_one_open
  ON retention_scheduled_erasures (organization_id, policy_id, principal_id) WHERE status = 'scheduled';
-- The due list, earliest first, and the sweep's notice pass.
CREATE INDEX retention_scheduled_erasures_due
  ON retention_scheduled_erasures (organization_id, due_at, scheduled_erasure_id) WHERE status = 'scheduled';
CREATE INDEX retention_scheduled_erasures_unnotified
  ON retention_scheduled_erasures (scheduled_for) WHERE status = 'scheduled' AND pre_notification_sent_at IS NULL;
-- The staff list, newest first, and the sweep's walk of open erasures.
CREATE INDEX retention_scheduled_erasures_by_created
  ON retention_scheduled_erasures (organization_id, created_at, scheduled_erasure_id);
CREATE INDEX retention_scheduled_erasures_open
  ON retention_scheduled_erasures (organization_id, scheduled_erasure_id) WHERE status = 'scheduled';
