-- The Consent Gate's decision log, stored for what it costs per decision (issue 27, item 4; the
-- figures and what was tried: bench/README.md, "Decision log storage"). Two tiers, one answer:
--
-- - gate_decision_runs: what verify writes, durably, before it answers: one row per run (the
--   decisions of one organisation and one API key in one group-committed statement, all decided
--   at the same instant). A row costs a heap tuple and an index entry whatever its size, and at a
--   paced rate a run holds one or two decisions, so this tier is kept for seconds only.
-- - gate_decision_blocks: where runs end up. The gate's compaction (gate/compaction.ts, every
--   second, one instance at a time) moves the runs decided more than a second ago into one block
--   per organisation, API key and 10-second bucket (at most 32 000 decisions a block), in one
--   statement that deletes the runs and inserts their blocks: a decision is in exactly one tier.
--   A block stores, per decision, only its consent as a 4-byte reference (consent_refs); per run
--   its time (an offset into the bucket), size and nonce; its denials as positions and offsets;
--   the organisation and the key once. Arrays past 2 kB are compressed and moved to TOAST.
-- - gate_consent_refs: the consents the log mentions, as integers: one row per consent ever
--   logged (allocated by compaction, from a sequence, so references are unique across
--   organisations and the GIN index needs no organisation column).
--
-- Decision ids are not stored: a decision's id is 'gdc_' + its decided_at (11 hex digits) + its
-- run's nonce (16 hex digits, 63 random bits) + its position in the run (3 hex digits), computed
-- by verify when it answers and by the view below when the log is read. Ids of decisions logged
-- before this migration were random; they are kept, verbatim, in legacy_decision_ids.
--
-- Partitioning by time (the log-retention side): bucket_start is the blocks' time column, a
-- multiple of 10 000 ms that every decision of the block lies within [bucket_start, +10 000), so
-- a block never straddles a range partition whose bounds are multiples of 10 s (days, months),
-- and it leads the primary key after the organisation. Runs are keyed by decided_at likewise.

CREATE SEQUENCE gate_consent_ref_seq AS integer;

-- A row per consent, about 210 bytes with its indexes, paid once per consent ever logged. Keyed by
-- reference (reads turn references back into ids); looked up by consent id through a hash index,
-- which holds a 4-byte hash per entry where a B-tree would hold the id (and the organisation). No
-- constraint keeps (organization_id, consent_id) unique: compaction, the only writer, adds a
-- consent only when it finds none, under its advisory lock.
CREATE TABLE gate_consent_refs (
  organization_id TEXT NOT NULL,
  consent_ref     INTEGER NOT NULL DEFAULT nextval('gate_consent_ref_seq'),
  consent_id      TEXT NOT NULL,
  PRIMARY KEY (organization_id, consent_ref)
);
ALTER SEQUENCE gate_consent_ref_seq OWNED BY gate_consent_refs.consent_ref;
CREATE INDEX gate_consent_refs_by_consent ON gate_consent_refs USING hash (consent_id);

-- Column order: fixed-width columns first, so no alignment padding falls between them.
CREATE TABLE gate_decision_runs (
  decided_at          BIGINT NOT NULL,
  nonce               BIGINT NOT NULL CHECK (nonce >= 0),
  organization_id     TEXT NOT NULL,
  api_key_id          TEXT NOT NULL,
  consent_ids         TEXT[] NOT NULL,
  allowed             BOOLEAN[] NOT NULL,
  legacy_decision_ids TEXT[],
  PRIMARY KEY (organization_id, decided_at, nonce),
  CHECK (cardinality(consent_ids) > 0 AND cardinality(consent_ids) = cardinality(allowed)
     AND (legacy_decision_ids IS NULL OR cardinality(legacy_decision_ids) = cardinality(consent_ids)))
);

CREATE TABLE gate_decision_blocks (
  bucket_start        BIGINT NOT NULL CHECK (bucket_start % 10000 = 0),
  block_nonce         BIGINT NOT NULL,
  decision_count      INTEGER NOT NULL CHECK (decision_count BETWEEN 1 AND 32767),
  deny_count          INTEGER NOT NULL,
  organization_id     TEXT NOT NULL,
  api_key_id          TEXT NOT NULL,
  run_offsets         SMALLINT[] NOT NULL,
  run_sizes           SMALLINT[] NOT NULL,
  run_nonces          BIGINT[] NOT NULL,
  consent_refs        INTEGER[] NOT NULL,
  denied_positions    SMALLINT[] NOT NULL,
  denied_offsets      SMALLINT[] NOT NULL,
  legacy_decision_ids TEXT[],
  PRIMARY KEY (organization_id, bucket_start, block_nonce),
  CHECK (cardinality(consent_refs) = decision_count
     AND cardinality(run_offsets) = cardinality(run_sizes)
     AND cardinality(run_offsets) = cardinality(run_nonces)
     AND cardinality(denied_positions) = deny_count
     AND cardinality(denied_offsets) = deny_count
     AND (legacy_decision_ids IS NULL OR cardinality(legacy_decision_ids) = decision_count))
);
-- Bypass alerts read only the blocks holding a denial.
CREATE INDEX gate_decision_blocks_with_denials ON gate_decision_blocks (organization_id, bucket_start)
  WHERE deny_count > 0;
-- A principal's access summary reads only the blocks that checked their consents. Written by
-- compaction only, so the pending list (fastupdate) would buy nothing but 4 MB of pages.
CREATE INDEX gate_decision_blocks_by_consent ON gate_decision_blocks USING gin (consent_refs)
  WITH (fastupdate = off);

-- One row per decision, from both tiers, as the log answers: for reading by hand, for the gate's
-- own listing, and for tests. stored_at is the row's lower time bound (the run's decided_at, the
-- block's bucket_start): filtering on it reaches the tables' primary keys.
DROP VIEW gate_decisions;
CREATE VIEW gate_decisions AS
SELECT r.organization_id,
       coalesce(r.legacy_decision_ids[d.i],
                'gdc_' || lpad(to_hex(r.decided_at), 11, '0') || lpad(to_hex(r.nonce), 16, '0')
                       || lpad(to_hex(d.i), 3, '0')) AS decision_id,
       d.consent_id, r.api_key_id,
       CASE WHEN d.allowed THEN 'allow' ELSE 'deny' END AS decision,
       CASE WHEN d.allowed THEN 'consent_active' ELSE 'consent_withdrawn' END AS reason,
       r.decided_at, d.allowed, r.decided_at AS stored_at
  FROM gate_decision_runs r
 CROSS JOIN LATERAL unnest(r.consent_ids, r.allowed) WITH ORDINALITY AS d (consent_id, allowed, i)
UNION ALL
SELECT b.organization_id,
       coalesce(b.legacy_decision_ids[d.position],
                'gdc_' || lpad(to_hex(d.decided_at), 11, '0') || lpad(to_hex(d.nonce), 16, '0')
                       || lpad(to_hex(d.run_position), 3, '0')) AS decision_id,
       k.consent_id, b.api_key_id,
       CASE WHEN d.allowed THEN 'allow' ELSE 'deny' END AS decision,
       CASE WHEN d.allowed THEN 'consent_active' ELSE 'consent_withdrawn' END AS reason,
       d.decided_at, d.allowed, b.bucket_start AS stored_at
  FROM gate_decision_blocks b
 CROSS JOIN LATERAL (
       SELECT r.decided_at, r.nonce, p.i AS run_position, r.before + p.i AS position,
              dn.position IS NULL AS allowed
         FROM (SELECT b.bucket_start + u.run_offset AS decided_at, u.nonce, u.size,
                      (sum(u.size) OVER (ORDER BY u.k) - u.size)::int AS before
                 FROM unnest(b.run_offsets, b.run_sizes, b.run_nonces) WITH ORDINALITY
                      AS u (run_offset, size, nonce, k)) AS r
        CROSS JOIN generate_series(1, r.size::int) AS p (i)
         LEFT JOIN unnest(b.denied_positions) AS dn (position) ON dn.position = r.before + p.i) AS d
  JOIN gate_consent_refs k ON k.organization_id = b.organization_id AND k.consent_ref = b.consent_refs[d.position];
