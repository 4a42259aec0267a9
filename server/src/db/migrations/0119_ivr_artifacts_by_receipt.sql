-- offline/ivr/: staff list an organisation's IVR artefacts newest receipt first
-- (GET /api/v1/staff/offline/ivr), a page at a time from a (received_at, artifact_id) position.
CREATE INDEX ivr_consent_artifacts_by_receipt
  ON ivr_consent_artifacts (organization_id, received_at DESC, artifact_id DESC);
