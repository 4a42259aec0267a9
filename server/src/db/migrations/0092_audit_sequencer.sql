-- The audit chain is no longer appended under the head's row lock inside each writing transaction
-- (which serialised every write of an organisation through its own WAL flush). A writer now queues
-- its entry in audit_queue, in its own transaction; the sequencer (audit/sequencer.ts) links queued
-- entries into audit_entries in batches, under the head's lock, and deletes them from the queue in
-- the same transaction. audit/README.md gives the design and its guarantees.

-- Every entry, queued or linked, is named by a reference taken from this sequence when it is
-- queued, so the record it commits to (a consent event) can point at it before it has a position.
CREATE SEQUENCE audit_entry_refs AS BIGINT;

CREATE TABLE audit_queue (
  organization_id TEXT NOT NULL REFERENCES organizations (organization_id),
  entry_ref       BIGINT NOT NULL DEFAULT nextval('audit_entry_refs'),
  entry_type      TEXT NOT NULL,
  subject_id      TEXT NOT NULL,
  payload         TEXT NOT NULL,
  created_at      BIGINT NOT NULL,
  PRIMARY KEY (organization_id, entry_ref)
);

-- Entries linked before the sequencer existed take their position as their reference: that is what
-- consent events stored to point at them. New references start above every existing position.
ALTER TABLE audit_entries ADD COLUMN entry_ref BIGINT;
UPDATE audit_entries SET entry_ref = seq;
ALTER TABLE audit_entries ALTER COLUMN entry_ref SET NOT NULL;
-- Unique per organisation: the database itself refuses to link one queued entry twice.
CREATE UNIQUE INDEX audit_entries_by_ref ON audit_entries (organization_id, entry_ref);
SELECT setval('audit_entry_refs', GREATEST((SELECT max(seq) FROM audit_entries), 1));

-- A consent event points at its entry by reference (its position is known only once linked).
ALTER TABLE consent_events RENAME COLUMN audit_seq TO audit_ref;
