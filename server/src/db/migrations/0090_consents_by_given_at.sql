-- The consent evidence export (consent/evidence-export.ts) reads an organisation's consents in
-- [from, to) on given_at, in pages keyed on (given_at, consent_id): each page is one index range
-- instead of a scan and sort of every consent of the organisation.
CREATE INDEX consents_by_given_at ON consents (organization_id, given_at, consent_id);
