// The staff side of banner configuration: registering and removing domains and apps, and saving or
// removing each scope's own settings. configVersion rules (a client caching by version must see a
// new number whenever what it is served changes):
// - saving changed settings bumps the scope's version; saving the same settings changes nothing;
// - a scope's first own settings continue from the default's version (saveBannerSettings);
// - removing a scope's own settings (or the domain or app itself) hands the scope back to the
//   default, whose version is raised above the removed one if needed, so it is never one the scope
//   showed before.
import type { Database, Queryable } from "../db/database.js";
import {
  normaliseDomain,
  registerApp,
  registerDomain,
  saveBannerSettings,
  type BannerConfig,
  type BannerScope,
} from "./banner-config.js";

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

export interface ScopeSettings extends BannerConfig {
  scope: BannerScope["kind"];
  domain?: string;
  appId?: string;
  updatedAt: number;
}

/** The scope's key in banner_configs; undefined for a domain that is not a hostname. */
function scopeKey(scope: BannerScope): [string, string] | undefined {
  if (scope.kind === "default") return ["default", ""];
  if (scope.kind === "app") return ["app", scope.appId];
  const host = normaliseDomain(scope.domain);
  return host ? ["domain", host] : undefined;
}

export async function listDomains(db: Queryable, organizationId: string): Promise<RegisteredDomain[]> {
  const rows = await db.query<{ domain: string; created_at: number; groups: string[]; own: boolean }>(
    `SELECT r.domain, r.created_at,
            COALESCE((SELECT jsonb_agg(g.domain_group_id ORDER BY g.domain_group_id COLLATE "C") FROM domain_group_domains g
                       WHERE g.organization_id = r.organization_id AND g.domain = r.domain), '[]'::jsonb) AS groups,
            EXISTS (SELECT 1 FROM banner_configs b WHERE b.organization_id = r.organization_id
                       AND b.scope = 'domain' AND b.scope_value = r.domain) AS own
       FROM registered_domains r WHERE r.organization_id = $1 ORDER BY r.domain COLLATE "C"`,
    [organizationId],
  );
  return rows.map((r) => ({
    domain: r.domain,
    createdAt: r.created_at,
    domainGroupIds: r.groups,
    hasOwnBannerSettings: r.own,
  }));
}

export async function findDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
): Promise<RegisteredDomain | undefined> {
  const host = normaliseDomain(domain);
  return host === undefined
    ? undefined
    : (await listDomains(db, organizationId)).find((d) => d.domain === host);
}

/** Registers a domain (idempotent); RangeError when it is not a hostname. */
export async function addDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
  now: number,
): Promise<RegisteredDomain> {
  const host = await registerDomain(db, organizationId, domain, now);
  return (await findDomain(db, organizationId, host))!;
}

export async function listApps(db: Queryable, organizationId: string): Promise<RegisteredApp[]> {
  const rows = await db.query<{ app_id: string; created_at: number; own: boolean }>(
    `SELECT r.app_id, r.created_at,
            EXISTS (SELECT 1 FROM banner_configs b WHERE b.organization_id = r.organization_id
                       AND b.scope = 'app' AND b.scope_value = r.app_id) AS own
       FROM registered_apps r WHERE r.organization_id = $1 ORDER BY r.app_id COLLATE "C"`,
    [organizationId],
  );
  return rows.map((r) => ({ appId: r.app_id, createdAt: r.created_at, hasOwnBannerSettings: r.own }));
}

/** Registers an app id (idempotent); RangeError when it is not a bundle id or package name. */
export async function addApp(
  db: Queryable,
  organizationId: string,
  appId: string,
  now: number,
): Promise<RegisteredApp> {
  const id = await registerApp(db, organizationId, appId, now);
  return (await listApps(db, organizationId)).find((a) => a.appId === id)!;
}

/** Whether a domain or app scope is registered (the default always is). */
export async function scopeRegistered(
  db: Queryable,
  organizationId: string,
  scope: BannerScope,
): Promise<boolean> {
  const key = scopeKey(scope);
  if (!key) return false;
  if (key[0] === "default") return true;
  const sql =
    key[0] === "domain"
      ? "SELECT 1 FROM registered_domains WHERE organization_id = $1 AND domain = $2"
      : "SELECT 1 FROM registered_apps WHERE organization_id = $1 AND app_id = $2";
  return (await db.query(sql, [organizationId, key[1]])).length > 0;
}

type ScopeRow = {
  scope: BannerScope["kind"];
  scope_value: string;
  settings: Record<string, unknown>;
  config_version: number;
  updated_at: number;
};

const toScopeSettings = (row: ScopeRow): ScopeSettings => ({
  scope: row.scope,
  ...(row.scope === "domain" ? { domain: row.scope_value } : {}),
  ...(row.scope === "app" ? { appId: row.scope_value } : {}),
  bannerSettings: row.settings,
  configVersion: row.config_version,
  updatedAt: row.updated_at,
});

/** The default and every scope with its own settings. */
export async function listScopeSettings(db: Queryable, organizationId: string): Promise<ScopeSettings[]> {
  const rows = await db.query<ScopeRow>(
    `SELECT scope, scope_value, settings, config_version, updated_at FROM banner_configs
      WHERE organization_id = $1 ORDER BY scope = 'default' DESC, scope, scope_value`,
    [organizationId],
  );
  return rows.map(toScopeSettings);
}

/** Saves a scope's own settings; undefined when the domain or app is not registered. */
export async function saveScopeSettings(
  db: Database,
  organizationId: string,
  scope: BannerScope,
  settings: Record<string, unknown>,
  now: number,
): Promise<ScopeSettings | undefined> {
  return db.transaction(async (tx) => {
    const key = scopeKey(scope);
    if (!key || !(await scopeRegistered(tx, organizationId, scope))) return undefined;
    // The default row is the organisation's banner lock: saves and removals take turns on it, so
    // the version arithmetic above never races.
    await lockDefault(tx, organizationId);
    await saveBannerSettings(tx, organizationId, scope, settings, now);
    const [row] = await tx.query<ScopeRow>(
      `SELECT scope, scope_value, settings, config_version, updated_at FROM banner_configs
        WHERE organization_id = $1 AND scope = $2 AND scope_value = $3`,
      [organizationId, key[0], key[1]],
    );
    return toScopeSettings(row!);
  });
}

async function lockDefault(tx: Queryable, organizationId: string): Promise<number> {
  const [row] = await tx.query<{ config_version: number }>(
    "SELECT config_version FROM banner_configs WHERE organization_id = $1 AND scope = 'default' FOR UPDATE",
    [organizationId],
  );
  return row?.config_version ?? 0;
}

/** Deletes a scope's own settings inside `tx`, raising the default's version past it if needed. */
async function dropScopeSettings(
  tx: Queryable,
  organizationId: string,
  key: [string, string],
  now: number,
): Promise<boolean> {
  const defaultVersion = await lockDefault(tx, organizationId);
  const [removed] = await tx.query<{ config_version: number }>(
    `DELETE FROM banner_configs WHERE organization_id = $1 AND scope = $2 AND scope_value = $3
      RETURNING config_version`,
    [organizationId, key[0], key[1]],
  );
  if (!removed) return false;
  if (defaultVersion <= removed.config_version) {
    await tx.query(
      `UPDATE banner_configs SET config_version = $2, updated_at = $3
        WHERE organization_id = $1 AND scope = 'default'`,
      [organizationId, removed.config_version + 1, now],
    );
  }
  return true;
}

/** Removes a domain's or app's own settings (it follows the default again); false if it had none. */
export async function removeScopeSettings(
  db: Database,
  organizationId: string,
  scope: Exclude<BannerScope, { kind: "default" }>,
  now: number,
): Promise<boolean> {
  const key = scopeKey(scope);
  if (!key) return false;
  return db.transaction((tx) => dropScopeSettings(tx, organizationId, key, now));
}

/** Unregisters a domain: its own settings go, and it leaves every domain group. */
export async function removeDomain(
  db: Database,
  organizationId: string,
  domain: string,
  now: number,
): Promise<boolean> {
  const host = normaliseDomain(domain);
  if (!host) return false;
  return db.transaction(async (tx) => {
    await dropScopeSettings(tx, organizationId, ["domain", host], now);
    const removed = await tx.query(
      "DELETE FROM registered_domains WHERE organization_id = $1 AND domain = $2 RETURNING domain",
      [organizationId, host],
    );
    return removed.length > 0;
  });
}

/** Unregisters an app id and its own settings. */
export async function removeApp(
  db: Database,
  organizationId: string,
  appId: string,
  now: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    await dropScopeSettings(tx, organizationId, ["app", appId], now);
    const removed = await tx.query(
      "DELETE FROM registered_apps WHERE organization_id = $1 AND app_id = $2 RETURNING app_id",
      [organizationId, appId],
    );
    return removed.length > 0;
  });
}
