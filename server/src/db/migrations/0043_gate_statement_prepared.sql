-- The Consent Gate's group statement is prepared by name on both engines now (PGlite through
-- db/pglite-pipelined.ts, as on a PostgreSQL server), so it is planned once per session without
-- the PL/pgSQL wrapper of migration 0041. Measured on PGlite, per group of 1/8/40 verifications:
-- 170–190/255–275/600–700 µs as a prepared statement against 225–240/335–340/775–805 µs through
-- the function. The statement lives in gate/gate.ts again.
DROP FUNCTION gate_record_decisions(json);
