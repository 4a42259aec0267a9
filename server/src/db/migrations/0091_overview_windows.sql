-- The staff overview (overview/) counts an organisation's recent activity by time window. Without
-- these, each window would be a scan of the organisation's whole history:
-- consent events per day over the last N days (consent/store.ts consentEventsPerDay) had only the
-- primary key and the by-consent index, neither ordered by time;
CREATE INDEX consent_events_by_time ON consent_events (organization_id, occurred_at);
-- the DSR and grievance queues' health (rights/store/queue.ts) reads the open items (closed_at is
-- null) and those closed within the window: both one range of (organization_id, closed_at).
CREATE INDEX dsr_requests_by_closed ON dsr_requests (organization_id, closed_at);
CREATE INDEX grievances_by_closed ON grievances (organization_id, closed_at);
