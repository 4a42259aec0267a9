-- An organisation the deployment's operator has disabled (accounts/organization-status.ts): its data
-- stays, but its credentials, public pages, webhook deliveries and retention sweeps stop acting for
-- it until it is enabled again. The three columns are set together and cleared together; the
-- history of every disabling and enabling (who and why) is on the organisation's audit chain.
ALTER TABLE organizations
  ADD COLUMN disabled_at BIGINT,
  ADD COLUMN disabled_reason TEXT,
  ADD COLUMN disabled_by TEXT,
  ADD CONSTRAINT organizations_disabled_together CHECK (
    (disabled_at IS NULL AND disabled_reason IS NULL AND disabled_by IS NULL)
    OR (disabled_at IS NOT NULL AND disabled_reason IS NOT NULL AND disabled_by IS NOT NULL)
  );

-- Background jobs ask for the few disabled organisations on every pass.
CREATE INDEX organizations_disabled ON organizations (organization_id) WHERE disabled_at IS NOT NULL;
