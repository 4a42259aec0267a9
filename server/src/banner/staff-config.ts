// The staff side of banner configuration: registering and removing domains and apps, and saving or
// removing each scope's own settings. configVersion rules (a client caching by version must see a
// new number whenever what it is served changes):
// - saving changed settings bumps the scope's version; saving the same settings changes nothing;
// - a scope's first own settings continue from the default's version (saveBannerSettings);
// - removing a scope's own settings (or the domain or app itself) hands the scope back to the
//   default, whose version is raised above the removed one if needed, so it is never one the scope
//   showed before.
import type { Database, Queryable } from "../db/database.js";
import { announceInvalidation } from "../db/invalidation.js";
import {
  normaliseDomain,
  registerApp,
  registerDomain,
  saveBannerSettings,
  scopeKey,
  type BannerConfig,
  type BannerScope,
} from "./banner-config.js";
import {
  appRegistered,
  deleteRegisteredApp,
  deleteRegisteredDomain,
  deleteScopeConfig,
  domainRegistered,
  listRegisteredApps,
  listRegisteredDomains,
  listScopeConfigs,
  lockDefaultScope,
  readScopeConfig,
  setDefaultVersion,
  type ScopeKind,
  type RegisteredApp,
  type RegisteredDomain,
  type StoredScopeConfig,
} from "./store.js";

export interface ScopeSettings extends BannerConfig {
  scope: BannerScope["kind"];
  domain?: string;
  appId?: string;
  updatedAt: number;
}

export async function listDomains(db: Queryable, organizationId: string): Promise<RegisteredDomain[]> {
  return listRegisteredDomains(db, organizationId);
}

async function findDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
): Promise<RegisteredDomain | undefined> {
  const host = normaliseDomain(domain);
  return host === undefined
    ? undefined
    : (await listDomains(db, organizationId)).find((d) => d.domain === host);
}

/** Registers a domain (idempotent); VALIDATION_ERROR when it is not a hostname. */
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
  return listRegisteredApps(db, organizationId);
}

/** Registers an app id (idempotent); VALIDATION_ERROR when it is not a bundle id or package name. */
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
async function scopeRegistered(db: Queryable, organizationId: string, scope: BannerScope): Promise<boolean> {
  const key = scopeKey(scope);
  if (!key) return false;
  if (key[0] === "default") return true;
  return key[0] === "domain"
    ? domainRegistered(db, organizationId, key[1])
    : appRegistered(db, organizationId, key[1]);
}

const toScopeSettings = (stored: StoredScopeConfig): ScopeSettings => ({
  scope: stored.scope,
  ...(stored.scope === "domain" ? { domain: stored.scopeValue } : {}),
  ...(stored.scope === "app" ? { appId: stored.scopeValue } : {}),
  bannerSettings: stored.settings,
  configVersion: stored.configVersion,
  updatedAt: stored.updatedAt,
});

/** The default and every scope with its own settings. */
export async function listScopeSettings(db: Queryable, organizationId: string): Promise<ScopeSettings[]> {
  return (await listScopeConfigs(db, organizationId)).map(toScopeSettings);
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
    // their version arithmetic never races.
    await lockDefaultScope(tx, organizationId);
    await saveBannerSettings(tx, organizationId, scope, settings, now);
    return toScopeSettings((await readScopeConfig(tx, organizationId, key[0], key[1]))!);
  });
}

/** Deletes a scope's own settings inside `tx`, raising the default's version past it if needed. */
async function dropScopeSettings(
  tx: Queryable,
  organizationId: string,
  key: [ScopeKind, string],
  now: number,
): Promise<boolean> {
  const defaultVersion = await lockDefaultScope(tx, organizationId);
  const removed = await deleteScopeConfig(tx, organizationId, key[0], key[1]);
  if (removed === undefined) return false;
  if (defaultVersion <= removed) await setDefaultVersion(tx, organizationId, removed + 1, now);
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
    const removed = await deleteRegisteredDomain(tx, organizationId, host);
    // The domain stops being an origin browsers may call Guard from (access/cors.ts).
    if (removed) await announceInvalidation(tx, { topic: "registered_domains", organizationId });
    return removed;
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
    return deleteRegisteredApp(tx, organizationId, appId);
  });
}
