-- Converts the decision log of migration 0040 (gate_decision_groups, a row per group holding
-- parallel arrays) into the layout of 0107, then drops it. Each group becomes one run per API key
-- in gate_decision_runs, in its order, with its decisions' ids kept verbatim in
-- legacy_decision_ids (they were random, so they cannot be derived); the gate's compaction then
-- moves them into blocks like any other run (gate/compaction.ts). The run's nonce, unused for ids
-- here, is derived from the group id and the key so that it is unique within the group's instant.
INSERT INTO gate_decision_runs
  (organization_id, decided_at, nonce, api_key_id, consent_ids, allowed, legacy_decision_ids)
SELECT g.organization_id, g.decided_at,
       ('x' || substr(md5(g.group_id || '/' || d.api_key_id), 1, 15))::bit(60)::bigint,
       d.api_key_id,
       array_agg(d.consent_id ORDER BY d.i),
       array_agg(d.allowed ORDER BY d.i),
       array_agg(d.decision_id ORDER BY d.i)
  FROM gate_decision_groups g
 CROSS JOIN LATERAL unnest(g.decision_ids, g.consent_ids, g.api_key_ids, g.allowed) WITH ORDINALITY
       AS d (decision_id, consent_id, api_key_id, allowed, i)
 GROUP BY g.organization_id, g.decided_at, g.group_id, d.api_key_id;

DROP TABLE gate_decision_groups;
