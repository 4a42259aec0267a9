-- Browser access (access/cors.ts) asks which organisations registered an origin's host, across
-- organisations; the primary key (organization_id, domain) cannot answer that without a scan.
CREATE INDEX registered_domains_by_domain ON registered_domains (domain);
