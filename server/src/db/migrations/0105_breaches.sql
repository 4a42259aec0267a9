-- The breach register (DPDP Act s.8(6), DPDP Rules 2025 r.7; breaches/README.md): one row per
-- personal data breach (or drill) with its two statutory clocks, and the principals it affected.
-- Status is derived from the report timestamps (breaches/status.ts) and stored so staff can filter
-- on it. Times are BIGINT epoch milliseconds.
CREATE TABLE breaches (
  organization_id               TEXT NOT NULL REFERENCES organizations (organization_id),
  breach_id                     TEXT NOT NULL,
  description                   TEXT NOT NULL,
  discovered_at                 BIGINT NOT NULL,
  occurred_at                   BIGINT,
  affected_purposes             JSONB NOT NULL,
  affected_data_categories      JSONB NOT NULL,
  mitigation                    TEXT,
  -- A drill: off the partner route, raises no webhook events, notifies nobody.
  drill                         BOOLEAN NOT NULL,
  -- r.7(1) "without delay": discovered_at + the window chosen when recorded (at most 72 hours).
  principal_notification_due_at BIGINT NOT NULL,
  -- r.7(2)(b): the detailed report to the Board within 72 hours of becoming aware.
  board_due_at                  BIGINT NOT NULL,
  reported_to_user_at           BIGINT,
  reported_to_board_at          BIGINT,
  detailed_report_submitted_at  BIGINT,
  cert_in_report_submitted_at   BIGINT,
  status                        TEXT NOT NULL CHECK (status IN (
                                  'reported_user_pending', 'reported_user_done',
                                  'reported_board_pending', 'reported_board_done')),
  recorded_by                   TEXT NOT NULL,
  created_at                    BIGINT NOT NULL,
  updated_at                    BIGINT NOT NULL,
  -- Set once by the clock sweep when it raised the named event for this breach.
  principal_due_soon_raised_at  BIGINT,
  principal_overdue_raised_at   BIGINT,
  board_due_soon_raised_at      BIGINT,
  board_overdue_raised_at       BIGINT,
  PRIMARY KEY (organization_id, breach_id),
  CHECK (occurred_at IS NULL OR occurred_at <= discovered_at),
  CHECK (board_due_at = discovered_at + 259200000),
  CHECK (principal_notification_due_at > discovered_at AND principal_notification_due_at <= board_due_at),
  CHECK (reported_to_user_at IS NULL OR reported_to_user_at >= discovered_at),
  CHECK (reported_to_board_at IS NULL OR reported_to_board_at >= discovered_at),
  CHECK (cert_in_report_submitted_at IS NULL OR cert_in_report_submitted_at >= discovered_at),
  CHECK (detailed_report_submitted_at IS NULL
         OR (reported_to_board_at IS NOT NULL AND detailed_report_submitted_at >= reported_to_board_at))
);
-- The staff list and the partner route: newest discovery first.
CREATE INDEX breaches_by_discovery ON breaches (organization_id, discovered_at, breach_id);
-- The clock sweep scans every organisation's open clocks by deadline (drills raise nothing).
CREATE INDEX breaches_principal_clock_open ON breaches (principal_notification_due_at)
  WHERE reported_to_user_at IS NULL AND NOT drill;
CREATE INDEX breaches_board_clock_open ON breaches (board_due_at)
  WHERE detailed_report_submitted_at IS NULL AND NOT drill;

CREATE TABLE breach_affected_principals (
  organization_id TEXT NOT NULL,
  breach_id       TEXT NOT NULL,
  principal_id    TEXT NOT NULL,
  added_at        BIGINT NOT NULL,
  notified_at     BIGINT,
  -- The principal_notifications row the notifier recorded; NULL for a drill (nobody is told).
  notification_id TEXT,
  PRIMARY KEY (organization_id, breach_id, principal_id),
  FOREIGN KEY (organization_id, breach_id) REFERENCES breaches (organization_id, breach_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  CHECK (notified_at IS NULL OR notified_at >= added_at),
  CHECK (notification_id IS NULL OR notified_at IS NOT NULL)
);
-- Who of a breach is still to be told.
CREATE INDEX breach_affected_principals_pending
  ON breach_affected_principals (organization_id, breach_id, principal_id) WHERE notified_at IS NULL;
