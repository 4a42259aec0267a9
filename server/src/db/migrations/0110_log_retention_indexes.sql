-- The log-retention job (log-retention/purge.ts) deletes an organisation's finished webhook
-- deliveries and their events oldest first, up to a cutoff time; without these it would scan
-- every delivery of the organisation on each pass.
CREATE INDEX webhook_deliveries_by_time ON webhook_deliveries (organization_id, created_at);
CREATE INDEX webhook_events_by_time ON webhook_events (organization_id, created_at);
