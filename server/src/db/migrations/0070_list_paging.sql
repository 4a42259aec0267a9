-- Cursor paging of the rights lists (lib/paging.ts): each page reads the rows after the previous
-- page's last sort key, and that key always ends with the row's id so that it is unique. These
-- indexes carry the id after the sort column, so a page is one index range scan that stops after
-- the page's rows, however deep into the list it starts (rather than finding the page's start by
-- reading every row with the same deadline or creation time).
-- - staff queues: earliest deadline first, (due_at, id);
-- - a principal's own lists: newest first, (created_at, id) read backwards.
DROP INDEX dsr_requests_queue;
CREATE INDEX dsr_requests_queue ON dsr_requests (organization_id, due_at, request_id);
DROP INDEX dsr_requests_by_principal;
CREATE INDEX dsr_requests_by_principal ON dsr_requests (organization_id, principal_id, created_at, request_id);
DROP INDEX grievances_queue;
CREATE INDEX grievances_queue ON grievances (organization_id, due_at, grievance_id);
DROP INDEX grievances_by_principal;
CREATE INDEX grievances_by_principal ON grievances (organization_id, principal_id, created_at, grievance_id);
