-- The audit chain's entries partitioned by month on created_at (issue 27, item 4; the rules:
-- log-retention/README.md, "Partitioning", and audit/README.md, "Partitions"), so the retention
-- job drops a month of entries every organisation in it may purge (behind a checkpoint) instead of
-- deleting its rows. created_at is the time the writer queued the entry (audit_queue.created_at),
-- known before the entry is linked, and fixed: linking an entry writes it once, with that time.
--
-- Keys must hold the partition key, so the primary key becomes (organization_id, seq, created_at)
-- and the unique index by reference (organization_id, entry_ref, created_at). What they
-- guaranteed still holds (audit/README.md, "Partitions", gives the argument in full):
-- - one queued entry linked twice would carry its one created_at both times, so it would land in
--   one month and hit that month's unique index, as before; and the link statement (audit/
--   store.ts) deletes exactly the entries it links from the queue and fails unless it removed
--   every one of them, so an entry already linked (gone from the queue) cannot be linked again;
-- - a position is given only under the chain head's row lock, and the head moves only from the
--   position the batch was built on (the statement fails otherwise), so no two batches can give
--   the same position; verify reports a position or a reference held twice (it asks the
--   database for duplicates, whatever month they are in).
-- Nothing references audit_entries and no statement has an ON CONFLICT on it. Columns, the CHECK
-- and the by-subject index are those of 0004 and 0092.
--
-- Every month of the existing entries, and the current month and the next two, is created here, so
-- the DEFAULT partition starts empty; the partition maintenance (log-retention/partitions.ts)
-- creates the months ahead from then on.
ALTER TABLE audit_entries RENAME TO audit_entries_0004;
ALTER INDEX audit_entries_pkey RENAME TO audit_entries_0004_pkey;
DROP INDEX audit_entries_by_subject;
DROP INDEX audit_entries_by_ref;

CREATE TABLE audit_entries (
  organization_id TEXT NOT NULL,
  seq             BIGINT NOT NULL CHECK (seq >= 1),
  entry_type      TEXT NOT NULL,
  subject_id      TEXT NOT NULL,
  payload         TEXT NOT NULL,
  prev_hash       TEXT NOT NULL,
  entry_hash      TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  entry_ref       BIGINT NOT NULL,
  PRIMARY KEY (organization_id, seq, created_at)
) PARTITION BY RANGE (created_at);
CREATE TABLE audit_entries_default PARTITION OF audit_entries DEFAULT;
CREATE INDEX audit_entries_by_subject ON audit_entries (organization_id, subject_id);
CREATE UNIQUE INDEX audit_entries_by_ref ON audit_entries (organization_id, entry_ref, created_at);

-- The months of the entries kept, and this month and the next two (UTC), named as the partition
-- maintenance names them (<table>_pYYYYMM).
CREATE FUNCTION guard_0114_create_months() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month timestamp;
BEGIN
  FOR month IN
    SELECT DISTINCT date_trunc('month', to_timestamp(created_at / 1000.0) AT TIME ZONE 'UTC')
      FROM audit_entries_0004
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => n)
      FROM generate_series(0, 2) AS n
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF audit_entries FOR VALUES FROM (%s) TO (%s)',
                   'audit_entries_p' || to_char(month, 'YYYYMM'),
                   (extract(epoch FROM month) * 1000)::bigint,
                   (extract(epoch FROM month + interval '1 month') * 1000)::bigint);
  END LOOP;
END
$$;
SELECT guard_0114_create_months();
DROP FUNCTION guard_0114_create_months();

INSERT INTO audit_entries
  (organization_id, seq, entry_type, subject_id, payload, prev_hash, entry_hash, created_at, entry_ref)
SELECT organization_id, seq, entry_type, subject_id, payload, prev_hash, entry_hash, created_at, entry_ref
  FROM audit_entries_0004;
DROP TABLE audit_entries_0004;
