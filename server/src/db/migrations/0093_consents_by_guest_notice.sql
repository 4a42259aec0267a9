-- A guest's consents are looked up by (guest, notice, purpose): anonymous capture's read of the
-- guest's active consent and anonymous withdrawal's read of the consents given under the guest id
-- (consent/store.ts). consents_by_guest held only (organization_id, anonymous_id), so those reads
-- filtered the guest's consents after the range, and it held an entry for every principal's
-- consent as well (anonymous_id NULL), which no statement looks up: /cm/v1 writes paid for it.
-- This index leads with the same two columns, so the other reads by guest id (linking a guest's
-- consents) use it as they used consents_by_guest, and it holds only consents given under a guest id.
CREATE INDEX consents_by_guest_notice ON consents (organization_id, anonymous_id, notice_id, purpose)
  WHERE anonymous_id IS NOT NULL;
DROP INDEX consents_by_guest;
