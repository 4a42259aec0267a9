// Banner presentation settings and the domains/apps an organisation registered. Scoping: a web
// domain or native app must be registered to the organisation (strict, exact, case-insensitive
// hostname match); its own settings override the organisation default when it has any.
import { findOrganizationById } from "../accounts/store.js";
import type { Queryable } from "../db/database.js";
import { announceInvalidation } from "../db/invalidation.js";
import { validationError } from "../lib/failure.js";
import {
  insertRegisteredApp,
  insertRegisteredDomain,
  lookupScopeConfig,
  readScopeConfig,
  upsertScopeConfig,
  type ScopeKind,
} from "./store.js";

export interface BannerConfig {
  bannerSettings: Record<string, unknown>;
  configVersion: number;
}

export type BannerScope =
  { kind: "default" } | { kind: "domain"; domain: string } | { kind: "app"; appId: string };

const HOSTNAME = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))*$/;

/** Lower-cases and checks a hostname; undefined when it is not one. */
export function normaliseDomain(domain: string): string | undefined {
  const host = domain.trim().toLowerCase().replace(/\.$/, "");
  return HOSTNAME.test(host) ? host : undefined;
}

export async function registerDomain(
  db: Queryable,
  organizationId: string,
  domain: string,
  now: number,
): Promise<string> {
  const host = normaliseDomain(domain);
  if (!host) throw validationError("domain", `domain ${JSON.stringify(domain)} is not a hostname`);
  await insertRegisteredDomain(db, organizationId, host, now);
  // Registered domains are the origins browsers may call Guard from (access/cors.ts caches them).
  await announceInvalidation(db, { topic: "registered_domains", organizationId });
  return host;
}

export async function registerApp(
  db: Queryable,
  organizationId: string,
  appId: string,
  now: number,
): Promise<string> {
  const id = appId.trim();
  if (!/^[A-Za-z0-9._-]{1,255}$/.test(id))
    throw validationError("appId", `appId ${JSON.stringify(appId)} is not a bundle id or package name`);
  await insertRegisteredApp(db, organizationId, id, now);
  return id;
}

/** What a public banner-config read found. */
export type BannerLookup =
  { kind: "no-organization" } | { kind: "unregistered" } | { kind: "found"; config: BannerConfig };

/**
 * A scope's key in banner_configs: its kind and value (the normalised hostname, the app id, or ""
 * for the default); undefined for a domain that is not a hostname.
 */
export function scopeKey(scope: BannerScope): [ScopeKind, string] | undefined {
  if (scope.kind === "default") return ["default", ""];
  if (scope.kind === "app") return ["app", scope.appId];
  const host = normaliseDomain(scope.domain);
  return host ? ["domain", host] : undefined;
}

/**
 * The banner configuration an organisation shows in a scope: the scope's own settings if it has
 * any, else the organisation default. "unregistered" when the domain or app is not registered to
 * the organisation (or, for the default scope, when it has no settings at all). Every page view of
 * a fiduciary's site asks this: the registration and the settings come in one statement, and only
 * a miss asks whether the organisation exists (every organisation has default settings).
 */
export async function lookupBannerConfig(
  db: Queryable,
  organizationId: string,
  scope: BannerScope,
): Promise<BannerLookup> {
  // Registered domains are stored normalised, so "" (not a hostname) matches none of them.
  const [kind, value] = scopeKey(scope) ?? ["domain", ""];
  const found = await lookupScopeConfig(db, organizationId, kind, value);
  if (found.registered && found.config) {
    return {
      kind: "found",
      config: { bannerSettings: found.config.settings, configVersion: found.config.configVersion },
    };
  }
  if (!(await findOrganizationById(db, organizationId))) return { kind: "no-organization" };
  return { kind: "unregistered" };
}

/**
 * Replaces the settings of a scope, bumping its configVersion (never a re-consent trigger) when
 * they differ from what it has. A scope's first own settings replace the default it showed until
 * now, so its version continues from the default's instead of restarting at 1: a client comparing
 * versions must see it go up.
 */
export async function saveBannerSettings(
  db: Queryable,
  organizationId: string,
  scope: BannerScope,
  settings: Record<string, unknown>,
  now: number,
): Promise<BannerConfig> {
  // A domain that is not a hostname keeps its text: no registered domain has it, so nothing shows it.
  const [kind, value] = scopeKey(scope) ?? ["domain", scope.kind === "domain" ? scope.domain : ""];
  const bumped = await upsertScopeConfig(db, organizationId, kind, value, settings, now);
  if (bumped !== undefined) return { bannerSettings: settings, configVersion: bumped };
  // Saving the settings a scope already has (a retried save) changes nothing, version included.
  const current = await readScopeConfig(db, organizationId, kind, value);
  return { bannerSettings: settings, configVersion: current!.configVersion };
}
