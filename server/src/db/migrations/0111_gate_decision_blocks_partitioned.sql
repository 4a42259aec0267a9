-- The gate's decision blocks partitioned by month on bucket_start (issue 27, item 4; the rules:
-- log-retention/README.md, "Partitioning"), so the retention job drops a month whose every
-- organisation is past its policy instead of deleting its rows. Every column, CHECK and index of
-- 0107 is kept; the primary key (organization_id, bucket_start, block_nonce) already holds the
-- partition key, so it is enforced as before. A block never straddles two partitions: its
-- decisions lie within [bucket_start, bucket_start + 10 000) and month bounds are multiples of
-- 10 s. Every month of the existing blocks, and the current month and the next two, is created
-- here, so the DEFAULT partition starts empty; the partition maintenance (log-retention/
-- partitions.ts, at start and daily) creates the months ahead from then on. gate_decision_runs
-- stays a plain table: it holds seconds of decisions, and compaction VACUUMs it every second.
--
-- The view gate_decisions reads the table, so it is dropped and made again, unchanged.
DROP VIEW gate_decisions;
ALTER TABLE gate_decision_blocks RENAME TO gate_decision_blocks_0107;
ALTER TABLE gate_decision_blocks_0107 RENAME CONSTRAINT gate_decision_blocks_pkey TO gate_decision_blocks_0107_pkey;
ALTER INDEX gate_decision_blocks_with_denials RENAME TO gate_decision_blocks_0107_with_denials;
ALTER INDEX gate_decision_blocks_by_consent RENAME TO gate_decision_blocks_0107_by_consent;

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
) PARTITION BY RANGE (bucket_start);
CREATE TABLE gate_decision_blocks_default PARTITION OF gate_decision_blocks DEFAULT;
CREATE INDEX gate_decision_blocks_with_denials ON gate_decision_blocks (organization_id, bucket_start)
  WHERE deny_count > 0;
CREATE INDEX gate_decision_blocks_by_consent ON gate_decision_blocks USING gin (consent_refs)
  WITH (fastupdate = off);

-- The months of the blocks kept, and this month and the next two (UTC), named as the partition
-- maintenance names them (<table>_pYYYYMM).
CREATE FUNCTION guard_0111_create_months() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month timestamp;
BEGIN
  FOR month IN
    SELECT DISTINCT date_trunc('month', to_timestamp(bucket_start / 1000.0) AT TIME ZONE 'UTC')
      FROM gate_decision_blocks_0107
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => n)
      FROM generate_series(0, 2) AS n
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF gate_decision_blocks FOR VALUES FROM (%s) TO (%s)',
                   'gate_decision_blocks_p' || to_char(month, 'YYYYMM'),
                   (extract(epoch FROM month) * 1000)::bigint,
                   (extract(epoch FROM month + interval '1 month') * 1000)::bigint);
  END LOOP;
END
$$;
SELECT guard_0111_create_months();
DROP FUNCTION guard_0111_create_months();

INSERT INTO gate_decision_blocks SELECT * FROM gate_decision_blocks_0107;
DROP TABLE gate_decision_blocks_0107;

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
