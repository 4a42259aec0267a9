-- The Consent Gate's group statement (gate/gate.ts verifyConsents) as a PL/pgSQL function, so that
-- every session plans it once: PL/pgSQL keeps its statements' plans for the session. On a
-- PostgreSQL server a named prepared statement did the same; PGlite has no named statements
-- through its query API and re-planned the statement on every group (about 0.6 ms, more than
-- executing a small group). Changing the statement means a new migration with CREATE OR REPLACE.
--
-- Input: a JSON array of {o: organization_id, c: consent_id, d: decision_id, k: api_key_id,
-- r: record the decision?, t: decided_at}. Each consent is read by primary key within its caller's
-- organisation; a decision row is inserted for each one found whose caller records decisions.
-- Output: a JSON array of [decision_id, active] for the consents found (none found: []).
CREATE FUNCTION gate_record_decisions(verifications json) RETURNS json
LANGUAGE plpgsql AS $body$
DECLARE
  answers json;
BEGIN
  WITH input AS (
    SELECT * FROM json_to_recordset(verifications) AS i (o text, c text, d text, k text, r boolean, t bigint)
  ), found AS (
    SELECT i.*, c.withdrawn_at IS NULL AS active
      FROM input i
      JOIN consents c ON c.organization_id = i.o AND c.consent_id = i.c
  ), logged AS (
    INSERT INTO gate_decisions (organization_id, decision_id, consent_id, api_key_id, decision, reason, decided_at)
    SELECT o, d, c, k,
           CASE WHEN active THEN 'allow' ELSE 'deny' END,
           CASE WHEN active THEN 'consent_active' ELSE 'consent_withdrawn' END,
           t
      FROM found WHERE r
  )
  SELECT coalesce(json_agg(json_build_array(d, active)), '[]'::json) INTO answers FROM found;
  RETURN answers;
END
$body$;
