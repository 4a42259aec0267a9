-- Consent events partitioned by month on occurred_at (issue 27, item 4; the rules:
-- log-retention/README.md, "Partitioning"). They are not purged: each is the evidence of a consent
-- the organisation still holds (log-retention/README.md says why); the months are there so that a
-- future purge can drop them whole, and so that each month's table and indexes are vacuumed and
-- cached on their own.
--
-- The primary key must hold the partition key, so it becomes (organization_id, event_id,
-- occurred_at). Nothing references consent events and no statement has an ON CONFLICT on them;
-- event ids are random (lib/ids.ts), and every reader goes by consent, by time or by chain
-- reference, so nothing relied on the database to refuse an event id repeated at another time.
-- Columns, CHECK, foreign key and indexes are otherwise those of 0003, 0091 and 0092.
--
-- Every month of the existing events, and the current month and the next two, is created here, so
-- the DEFAULT partition starts empty; the partition maintenance (log-retention/partitions.ts)
-- creates the months ahead from then on.
ALTER TABLE consent_events RENAME TO consent_events_0003;
ALTER INDEX consent_events_pkey RENAME TO consent_events_0003_pkey;
DROP INDEX consent_events_by_consent;
DROP INDEX consent_events_by_time;

CREATE TABLE consent_events (
  organization_id   TEXT NOT NULL,
  event_id          TEXT NOT NULL,
  consent_id        TEXT NOT NULL,
  event_type        TEXT NOT NULL CHECK (event_type IN ('given', 'withdrawn', 'linked')),
  occurred_at       BIGINT NOT NULL,
  principal_id      TEXT,
  anonymous_id      TEXT,
  notice_id         TEXT NOT NULL,
  notice_version    INTEGER NOT NULL,
  purpose           TEXT NOT NULL,
  data_types        JSONB NOT NULL,
  given_at          BIGINT NOT NULL,
  source            TEXT NOT NULL,
  reason            TEXT,
  audit_hash        TEXT NOT NULL,
  audit_key_version INTEGER NOT NULL,
  audit_ref         BIGINT NOT NULL,
  PRIMARY KEY (organization_id, event_id, occurred_at),
  FOREIGN KEY (organization_id, consent_id) REFERENCES consents (organization_id, consent_id)
) PARTITION BY RANGE (occurred_at);
CREATE TABLE consent_events_default PARTITION OF consent_events DEFAULT;
CREATE INDEX consent_events_by_consent ON consent_events (organization_id, consent_id, audit_ref);
CREATE INDEX consent_events_by_time ON consent_events (organization_id, occurred_at);

-- The months of the events kept, and this month and the next two (UTC), named as the partition
-- maintenance names them (<table>_pYYYYMM).
CREATE FUNCTION guard_0113_create_months() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  month timestamp;
BEGIN
  FOR month IN
    SELECT DISTINCT date_trunc('month', to_timestamp(occurred_at / 1000.0) AT TIME ZONE 'UTC')
      FROM consent_events_0003
    UNION
    SELECT date_trunc('month', now() AT TIME ZONE 'UTC') + make_interval(months => n)
      FROM generate_series(0, 2) AS n
  LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF consent_events FOR VALUES FROM (%s) TO (%s)',
                   'consent_events_p' || to_char(month, 'YYYYMM'),
                   (extract(epoch FROM month) * 1000)::bigint,
                   (extract(epoch FROM month + interval '1 month') * 1000)::bigint);
  END LOOP;
END
$$;
SELECT guard_0113_create_months();
DROP FUNCTION guard_0113_create_months();

INSERT INTO consent_events
  (organization_id, event_id, consent_id, event_type, occurred_at, principal_id, anonymous_id, notice_id,
   notice_version, purpose, data_types, given_at, source, reason, audit_hash, audit_key_version, audit_ref)
SELECT organization_id, event_id, consent_id, event_type, occurred_at, principal_id, anonymous_id, notice_id,
       notice_version, purpose, data_types, given_at, source, reason, audit_hash, audit_key_version, audit_ref
  FROM consent_events_0003;
DROP TABLE consent_events_0003;
