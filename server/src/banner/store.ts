// The banner domain's store: the only code reading or writing banner_configs, registered_domains,
// registered_apps, domain_groups and domain_group_domains, one file per aggregate under store/.
// Every statement filters by organization_id, except the public lookups that find the
// organisation from a domain group's id. Other domains import from here.
export * from "./store/domain-groups.js";
export * from "./store/registrations.js";
export * from "./store/scopes.js";
