-- IVR consent artefacts (offline/ivr/): what a telephony partner reports of one call that played a
-- notice. Stored as received and never changed: the row is the evidence of the affirmative action
-- (the recording's URI, the keys pressed) or of the refusal. The store has no UPDATE or DELETE.
CREATE TABLE ivr_consent_artifacts (
  organization_id        TEXT NOT NULL REFERENCES organizations (organization_id),
  artifact_id            TEXT NOT NULL,
  -- The partner's id for the call: the natural idempotency key of a submission.
  partner_call_id        TEXT NOT NULL,
  notice_id              TEXT NOT NULL,
  -- The notice version published when the artefact was received (the one a consent is given to).
  notice_version         INTEGER NOT NULL,
  locale                 TEXT NOT NULL,
  purpose                TEXT NOT NULL,
  data_types             JSONB NOT NULL,
  dtmf_sequence          TEXT NOT NULL,
  -- As the partner sent it: Guard never receives the caller's number.
  caller_number_hash     TEXT NOT NULL,
  audio_recording_uri    TEXT NOT NULL,
  transcript             TEXT,
  -- Verbatim: Guard does not hold the partner's key and does not verify it.
  partner_signature      TEXT NOT NULL,
  captured_at            BIGINT NOT NULL,
  received_at            BIGINT NOT NULL,
  accepted               BOOLEAN NOT NULL,
  consent_id             TEXT,
  -- The withdrawal token issued with the consent, sealed (AES-256-GCM under GUARD_SECRETS_KEY), so
  -- a resubmission can answer it again; withdrawal_tokens keeps only its hash.
  withdrawal_token_sealed TEXT,
  -- SHA-256 (hex) of the submission's canonical JSON: a resubmission under the same call id with
  -- another body is told apart from a retry by it.
  submission_hash        TEXT NOT NULL,
  -- The API key that submitted it.
  received_by            TEXT NOT NULL,
  PRIMARY KEY (organization_id, artifact_id),
  UNIQUE (organization_id, partner_call_id),
  FOREIGN KEY (organization_id, notice_id, notice_version)
    REFERENCES notice_versions (organization_id, notice_id, version),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id),
  CHECK (accepted = (consent_id IS NOT NULL)),
  CHECK ((consent_id IS NULL) = (withdrawal_token_sealed IS NULL))
);
