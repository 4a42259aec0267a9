-- Notice lifecycle for staff: editable drafts beside the immutable versions, and when and by whom
-- each version changed state. Published versions stay immutable evidence: only their status and
-- these lifecycle times ever change (published -> superseded when a newer version is published,
-- published -> archived when the notice is withdrawn from public view).

ALTER TABLE notice_versions ADD COLUMN superseded_at BIGINT;
ALTER TABLE notice_versions ADD COLUMN archived_at BIGINT;
-- staff_id of whoever published the version, NULL when published from the command line.
ALTER TABLE notice_versions ADD COLUMN published_by TEXT;
ALTER TABLE notice_versions ADD COLUMN archived_by TEXT;

-- At most one draft per notice: the text a staff member is preparing as the next version. Drafts
-- are not evidence (nobody consents against them), so they are edited in place and deleted when
-- published or discarded. Any part may be missing until publication checks completeness.
CREATE TABLE notice_drafts (
  organization_id TEXT NOT NULL,
  notice_id       TEXT NOT NULL,
  itemized        JSONB NOT NULL,
  content         JSONB NOT NULL,
  languages       JSONB NOT NULL,         -- language codes of content, in display order
  created_at      BIGINT NOT NULL,
  updated_at      BIGINT NOT NULL,
  updated_by      TEXT,                   -- staff_id of the last editor
  PRIMARY KEY (organization_id, notice_id),
  FOREIGN KEY (organization_id, notice_id) REFERENCES notices (organization_id, notice_id)
);
