-- The Consent Gate's decision log is written at request rate, so every index on it is paid for
-- by every verification. Its primary key becomes (organization_id, decided_at, decision_id):
-- - new rows land at the right-hand edge of the index instead of at a random leaf (decision ids are
--   random), which keeps the pages a write touches few and hot;
-- - the same index answers "newest first" (read backwards), so gate_decisions_newest goes.
-- decision_id stays unique in practice (119 random bits per id) and nothing looks a decision up by
-- its id alone.
ALTER TABLE gate_decisions DROP CONSTRAINT gate_decisions_pkey;
ALTER TABLE gate_decisions ADD PRIMARY KEY (organization_id, decided_at, decision_id);
DROP INDEX gate_decisions_newest;
