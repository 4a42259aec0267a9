-- The Consent Gate's decision log (gate/gate.ts): append-only, written only by verify. Every
-- decision is logged, durably, before it is answered. The log is written at request rate, so what
-- each decision costs to store is paid by every verification: it is stored a group at a time, one
-- row per organisation per group-committed statement holding that group's decisions as parallel
-- arrays, so each group (not each decision) costs one heap tuple and one entry in each index.
--
-- - decided_at is the group's decision time: the moment its statement reads the consents, one
--   clock reading for all its decisions.
-- - allowed[i] is the decision: true for allow (consent_active), false for deny
--   (consent_withdrawn). A consent not found in the organisation is answered 404 and is not a
--   decision: it is not in any group.
-- - decision_count is the arrays' length, kept as a column so that "the newest N decisions" can
--   find its groups without reading their arrays.
-- - group_id is the id of one of the group's decisions (decision ids are unique, so group ids are;
--   119 random bits each). Nothing looks a decision up by its id alone.
-- - The primary key leads with (organization_id, decided_at), so new rows land at the index's
--   right-hand edge rather than at a random leaf (ids are random), and the same index answers
--   "newest first" read backwards.
-- - The partial index serves bypass alerts (groups holding a denial, by time); the GIN index on
--   consent_ids serves a principal's access summary (the groups that checked their consents)
--   without reading the organisation's whole log.
CREATE TABLE gate_decision_groups (
  organization_id TEXT NOT NULL,
  group_id        TEXT NOT NULL,
  decided_at      BIGINT NOT NULL,
  decision_count  INTEGER NOT NULL CHECK (decision_count > 0),
  decision_ids    TEXT[] NOT NULL,
  consent_ids     TEXT[] NOT NULL,
  api_key_ids     TEXT[] NOT NULL,
  allowed         BOOLEAN[] NOT NULL,
  PRIMARY KEY (organization_id, decided_at, group_id),
  CHECK (cardinality(decision_ids) = cardinality(consent_ids)
     AND cardinality(decision_ids) = cardinality(api_key_ids)
     AND cardinality(decision_ids) = cardinality(allowed))
);
CREATE INDEX gate_decision_groups_with_denials ON gate_decision_groups (organization_id, decided_at)
  WHERE false = ANY (allowed);
CREATE INDEX gate_decision_groups_by_consent ON gate_decision_groups USING gin (consent_ids);

-- One row per decision, for reading by hand (and for tests).
CREATE VIEW gate_decisions AS
SELECT g.organization_id, d.decision_id, d.consent_id, d.api_key_id,
       CASE WHEN d.allowed THEN 'allow' ELSE 'deny' END AS decision,
       CASE WHEN d.allowed THEN 'consent_active' ELSE 'consent_withdrawn' END AS reason,
       g.decided_at
  FROM gate_decision_groups g
 CROSS JOIN LATERAL unnest(g.decision_ids, g.consent_ids, g.api_key_ids, g.allowed)
       AS d (decision_id, consent_id, api_key_id, allowed);
