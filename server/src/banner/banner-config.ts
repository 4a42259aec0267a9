// Banner presentation settings and the domains/apps an organisation registered. Scoping: a web
// domain or native app must be registered to the organisation (strict, exact, case-insensitive
// hostname match); its own settings override the organisation default when it has any.
import type { Queryable } from "../db/database.js";

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
  if (!host) throw new RangeError(`domain: ${JSON.stringify(domain)} is not a hostname`);
  await db.query(
    `INSERT INTO registered_domains (organization_id, domain, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, domain) DO NOTHING`,
    [organizationId, host, now],
  );
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
    throw new RangeError(`appId: ${JSON.stringify(appId)} is not a bundle id or package name`);
  await db.query(
    `INSERT INTO registered_apps (organization_id, app_id, created_at) VALUES ($1, $2, $3)
     ON CONFLICT (organization_id, app_id) DO NOTHING`,
    [organizationId, id, now],
  );
  return id;
}

/** What a public banner-config read found. */
export type BannerLookup =
  { kind: "no-organization" } | { kind: "unregistered" } | { kind: "found"; config: BannerConfig };

/**
 * The banner configuration an organisation shows in a scope: the scope's own settings if it has
 * any, else the organisation default. "unregistered" when the domain or app is not registered to
 * the organisation (or, for the default scope, when it has no settings at all). Every page view of
 * a fiduciary's site asks this, so it is one prepared statement: the organisation, the registration
 * and the settings in one round trip.
 */
export async function lookupBannerConfig(
  db: Queryable,
  organizationId: string,
  scope: BannerScope,
): Promise<BannerLookup> {
  let scopeKind: "domain" | "app" | "default" = "default";
  let scopeValue = "";
  if (scope.kind === "domain") {
    scopeKind = "domain";
    // Registered domains are stored normalised, so "" (not a hostname) matches none of them.
    scopeValue = normaliseDomain(scope.domain) ?? "";
  } else if (scope.kind === "app") {
    scopeKind = "app";
    scopeValue = scope.appId;
  }
  const [row] = await db.query<{
    registered: boolean;
    settings: Record<string, unknown> | null;
    config_version: number | null;
  }>(
    `SELECT CASE $2::text
              WHEN 'domain' THEN EXISTS (SELECT 1 FROM registered_domains
                                          WHERE organization_id = $1 AND domain = $3)
              WHEN 'app' THEN EXISTS (SELECT 1 FROM registered_apps
                                       WHERE organization_id = $1 AND app_id = $3)
              ELSE true
            END AS registered,
            config.settings, config.config_version
       FROM organizations o
       LEFT JOIN LATERAL (
              SELECT settings, config_version FROM banner_configs
               WHERE organization_id = o.organization_id
                 AND ((scope = $2 AND scope_value = $3) OR scope = 'default')
               ORDER BY (scope = 'default') LIMIT 1) config ON true
      WHERE o.organization_id = $1`,
    [organizationId, scopeKind, scopeValue],
    { preparedAs: "lookup_banner_config" },
  );
  if (!row) return { kind: "no-organization" };
  if (!row.registered || row.settings === null || row.config_version === null)
    return { kind: "unregistered" };
  return { kind: "found", config: { bannerSettings: row.settings, configVersion: row.config_version } };
}

/**
 * Replaces the settings of a scope, bumping its configVersion (never a re-consent trigger) when
 * they differ from what it has.
 */
export async function saveBannerSettings(
  db: Queryable,
  organizationId: string,
  scope: BannerScope,
  settings: Record<string, unknown>,
  now: number,
): Promise<BannerConfig> {
  const [kind, value] =
    scope.kind === "domain"
      ? ["domain", normaliseDomain(scope.domain) ?? scope.domain]
      : scope.kind === "app"
        ? ["app", scope.appId]
        : ["default", ""];
  // A scope's first own settings replace the default it showed until now, so its version continues
  // from the default's instead of restarting at 1: a client comparing versions must see it go up.
  const rows = await db.query<{ config_version: number }>(
    `INSERT INTO banner_configs (organization_id, scope, scope_value, settings, config_version, updated_at)
     VALUES ($1, $2, $3, $4::jsonb,
       COALESCE((SELECT config_version FROM banner_configs WHERE organization_id = $1 AND scope = 'default'), 0) + 1,
       $5)
     ON CONFLICT (organization_id, scope, scope_value)
     DO UPDATE SET settings = EXCLUDED.settings, config_version = banner_configs.config_version + 1, updated_at = EXCLUDED.updated_at
       WHERE banner_configs.settings IS DISTINCT FROM EXCLUDED.settings
     RETURNING config_version`,
    [organizationId, kind, value, JSON.stringify(settings), now],
  );
  if (rows[0]) return { bannerSettings: settings, configVersion: rows[0].config_version };
  // Saving the settings a scope already has (a retried save) changes nothing, version included.
  const [current] = await db.query<{ config_version: number }>(
    "SELECT config_version FROM banner_configs WHERE organization_id = $1 AND scope = $2 AND scope_value = $3",
    [organizationId, kind, value],
  );
  return { bannerSettings: settings, configVersion: current!.config_version };
}
