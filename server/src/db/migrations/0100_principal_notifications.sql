-- Notifications to data principals that the DPDP Rules require a fiduciary to send: the notice of
-- a coming erasure (r.8(2), at least 48 hours before) and the intimation of a personal data breach
-- (r.7(1)). Guard holds no principal contact details, so a notification is recorded here and
-- relayed to the fiduciary's own backend as a `principal.notification` webhook event
-- (notifications/notifier.ts); the row is what staff and an auditor see was sent, and when.
CREATE TABLE principal_notifications (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  notification_id TEXT NOT NULL,
  principal_id    TEXT NOT NULL,
  kind            TEXT NOT NULL CHECK (kind IN ('retention.pre_erasure', 'breach.affected')),
  -- The scheduled erasure or breach the notification is about.
  subject_id      TEXT NOT NULL,
  channel         TEXT NOT NULL CHECK (channel IN ('webhook')),
  subject         TEXT NOT NULL,
  body            TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, notification_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  -- One notification per principal and subject: a sweep or a staff action repeated after a crash
  -- finds the first one instead of telling the principal twice.
  UNIQUE (organization_id, kind, subject_id, principal_id)
);

-- The staff list: newest first, optionally one principal's.
CREATE INDEX principal_notifications_by_time
  ON principal_notifications (organization_id, created_at DESC, notification_id DESC);
CREATE INDEX principal_notifications_by_principal
  ON principal_notifications (organization_id, principal_id, created_at DESC, notification_id DESC);
