-- Retention policies and legal holds (retention/). A policy says how long the organisation keeps a
-- principal's data for one purpose (or one RoPA processing activity, whose purpose it reads) after
-- an anchor event, and how many hours before erasure the principal is told (DPDP Rules 2025 r.8:
-- at least 48). Policies are archived, never deleted: a scheduled erasure and a statutory DSR
-- denial name them.
CREATE TABLE retention_policies (
  organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
  policy_id        TEXT NOT NULL,
  name             TEXT NOT NULL,
  -- The consent purpose the policy covers (for an activity policy, the activity's purpose when
  -- the policy was written).
  purpose          TEXT NOT NULL,
  -- The RoPA processing activity the policy was written for, when it was.
  activity_id      TEXT,
  anchor_event     TEXT NOT NULL CHECK (anchor_event IN
                     ('consent_withdrawn', 'last_interaction', 'account_closed', 'purpose_served')),
  duration_days    INTEGER NOT NULL CHECK (duration_days BETWEEN 1 AND 36500),
  notice_hours     INTEGER NOT NULL CHECK (notice_hours BETWEEN 48 AND 8760),
  -- The window never starts before this (r.8: "or the commencement of these rules, whichever is
  -- later"); NULL when the policy has no floor.
  window_floor_at  BIGINT,
  -- The Third-Schedule preset the policy was made from, if any.
  preset           TEXT CHECK (preset IN ('ecommerce', 'online_gaming', 'social_media')),
  created_at       BIGINT NOT NULL,
  created_by       TEXT NOT NULL,
  updated_at       BIGINT NOT NULL,
  updated_by       TEXT NOT NULL,
  archived_at      BIGINT,
  archived_by      TEXT,
  PRIMARY KEY (organization_id, policy_id),
  CHECK ((archived_at IS NULL) = (archived_by IS NULL))
);
-- The staff list, newest first; the sweep reads an organisation's active policies.
CREATE INDEX retention_policies_by_created ON retention_policies (organization_id, created_at, policy_id);

-- Legal holds: while a hold is active (not released, not past ends_at) no erasure it covers is
-- created, notified or due. A hold covers one principal, one policy, or one principal under one
-- policy.
CREATE TABLE retention_legal_holds (
  organization_id  TEXT NOT NULL REFERENCES organizations (organization_id),
  hold_id          TEXT NOT NULL,
  principal_id     TEXT,
  policy_id        TEXT,
  statute          TEXT NOT NULL,
  citation         TEXT NOT NULL,
  ends_at          BIGINT,
  created_at       BIGINT NOT NULL,
  created_by       TEXT NOT NULL,
  released_at      BIGINT,
  released_by      TEXT,
  release_reason   TEXT,
  PRIMARY KEY (organization_id, hold_id),
  FOREIGN KEY (organization_id, principal_id) REFERENCES principals (organization_id, principal_id),
  FOREIGN KEY (organization_id, policy_id) REFERENCES retention_policies (organization_id, policy_id),
  CHECK (principal_id IS NOT NULL OR policy_id IS NOT NULL),
  CHECK (ends_at IS NULL OR ends_at > created_at),
  CHECK ((released_at IS NULL) = (released_by IS NULL) AND (released_at IS NULL) = (release_reason IS NULL))
);
CREATE INDEX retention_legal_holds_by_created ON retention_legal_holds (organization_id, created_at, hold_id);
CREATE INDEX retention_legal_holds_unreleased ON retention_legal_holds (organization_id)
  WHERE released_at IS NULL;
