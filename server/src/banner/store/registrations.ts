// registered_domains and registered_apps: the web domains and native apps an organisation shows
// its banner on. Stored normalised; the rule modules normalise before calling.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";

export interface RegisteredDomain {
  domain: string;
  createdAt: number;
  domainGroupIds: string[];
  hasOwnBannerSettings: boolean;
}

export interface RegisteredApp {
  appId: string;
  createdAt: number;
  hasOwnBannerSettings: boolean;
}

/** Registers a domain; nothing happens when it already is. */
export async function insertRegisteredDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .insertInto("registered_domains")
      .values({ organization_id: organizationId, domain, created_at: now })
      .onConflict((oc) => oc.columns(["organization_id", "domain"]).doNothing()),
  );
}

/** Registers an app id; nothing happens when it already is. */
export async function insertRegisteredApp(
  db: Queryable,
  organizationId: string,
  appId: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .insertInto("registered_apps")
      .values({ organization_id: organizationId, app_id: appId, created_at: now })
      .onConflict((oc) => oc.columns(["organization_id", "app_id"]).doNothing()),
  );
}

/** Every registered domain with its groups and whether it has its own settings, by hostname. */
export async function listRegisteredDomains(
  db: Queryable,
  organizationId: string,
): Promise<RegisteredDomain[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("registered_domains as r")
      .select((eb) => [
        "r.domain",
        "r.created_at",
        eb.fn
          .coalesce(
            eb
              .selectFrom("domain_group_domains as g")
              .select(
                sql<string[]>`jsonb_agg(g.domain_group_id ORDER BY g.domain_group_id COLLATE "C")`.as("ids"),
              )
              .whereRef("g.organization_id", "=", "r.organization_id")
              .whereRef("g.domain", "=", "r.domain"),
            sql<string[]>`'[]'::jsonb`,
          )
          .as("groups"),
        eb
          .exists(
            eb
              .selectFrom("banner_configs as b")
              .select(sql`1`.as("one"))
              .whereRef("b.organization_id", "=", "r.organization_id")
              .where("b.scope", "=", "domain")
              .whereRef("b.scope_value", "=", "r.domain"),
          )
          .$castTo<boolean>()
          .as("own"),
      ])
      .where("r.organization_id", "=", organizationId)
      .orderBy(sql`r.domain COLLATE "C"`),
  );
  return found.map((r) => ({
    domain: r.domain,
    createdAt: r.created_at,
    domainGroupIds: r.groups,
    hasOwnBannerSettings: r.own,
  }));
}

/** Every registered app id and whether it has its own settings, by id. */
export async function listRegisteredApps(db: Queryable, organizationId: string): Promise<RegisteredApp[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("registered_apps as r")
      .select((eb) => [
        "r.app_id",
        "r.created_at",
        eb
          .exists(
            eb
              .selectFrom("banner_configs as b")
              .select(sql`1`.as("one"))
              .whereRef("b.organization_id", "=", "r.organization_id")
              .where("b.scope", "=", "app")
              .whereRef("b.scope_value", "=", "r.app_id"),
          )
          .$castTo<boolean>()
          .as("own"),
      ])
      .where("r.organization_id", "=", organizationId)
      .orderBy(sql`r.app_id COLLATE "C"`),
  );
  return found.map((r) => ({ appId: r.app_id, createdAt: r.created_at, hasOwnBannerSettings: r.own }));
}

/** Those of `domains` that are registered to the organisation. */
export async function registeredDomainsAmong(
  db: Queryable,
  organizationId: string,
  domains: readonly string[],
): Promise<string[]> {
  if (domains.length === 0) return [];
  const found = await rows(
    db,
    qb
      .selectFrom("registered_domains")
      .select("domain")
      .where("organization_id", "=", organizationId)
      .where("domain", "in", domains),
  );
  return found.map((r) => r.domain);
}

/**
 * The organisations that registered the domain (normalised). Asked once per host per instance by
 * the browser-access (CORS) check, which caches the answer until a registration changes.
 */
export async function organizationsRegisteringDomain(db: Queryable, domain: string): Promise<string[]> {
  const found = await rows(
    db,
    qb.selectFrom("registered_domains").select("organization_id").where("domain", "=", domain),
  );
  return found.map((r) => r.organization_id);
}

/** Whether the app id is registered to the organisation. */
export async function appRegistered(db: Queryable, organizationId: string, appId: string): Promise<boolean> {
  const row = await first(
    db,
    qb
      .selectFrom("registered_apps")
      .select("app_id")
      .where("organization_id", "=", organizationId)
      .where("app_id", "=", appId),
  );
  return row !== undefined;
}

/** Unregisters a domain (it leaves its groups by cascade); false when it was not registered. */
export async function deleteRegisteredDomain(
  tx: Queryable,
  organizationId: string,
  domain: string,
): Promise<boolean> {
  const deleted = await rows(
    tx,
    qb
      .deleteFrom("registered_domains")
      .where("organization_id", "=", organizationId)
      .where("domain", "=", domain)
      .returning("domain"),
  );
  return deleted.length > 0;
}

/** Unregisters an app id; false when it was not registered. */
export async function deleteRegisteredApp(
  tx: Queryable,
  organizationId: string,
  appId: string,
): Promise<boolean> {
  const deleted = await rows(
    tx,
    qb
      .deleteFrom("registered_apps")
      .where("organization_id", "=", organizationId)
      .where("app_id", "=", appId)
      .returning("app_id"),
  );
  return deleted.length > 0;
}

/** Whether the domain (normalised) is registered to the organisation. */
export async function domainRegistered(
  db: Queryable,
  organizationId: string,
  domain: string,
): Promise<boolean> {
  const row = await first(
    db,
    qb
      .selectFrom("registered_domains")
      .select("domain")
      .where("organization_id", "=", organizationId)
      .where("domain", "=", domain),
  );
  return row !== undefined;
}
