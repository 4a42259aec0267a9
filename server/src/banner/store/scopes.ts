// banner_configs: one row per scope (`default` with scope_value '', `domain` with the hostname,
// `app` with the app id). The default row is the organisation's banner lock: saves and removals
// of any scope take turns on it.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";

/** A new organisation's default banner configuration: empty settings, version 1. */
export async function createDefaultBannerConfig(
  db: Queryable,
  organizationId: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb.insertInto("banner_configs").values({
      organization_id: organizationId,
      scope: "default",
      scope_value: "",
      settings: JSON.stringify({}),
      config_version: 1,
      updated_at: now,
    }),
  );
}

export type ScopeKind = "default" | "domain" | "app";

/** A banner_configs row. */
export interface StoredScopeConfig {
  scope: ScopeKind;
  scopeValue: string;
  settings: Record<string, unknown>;
  configVersion: number;
  updatedAt: number;
}

/** What the public banner read found for a scope of an organisation. */
export interface ScopeConfigLookup {
  /** The domain or app is registered to the organisation (always true for the default scope). */
  registered: boolean;
  /** The scope's own settings, else the default's; undefined when there are neither. */
  config?: { settings: Record<string, unknown>; configVersion: number };
}

/**
 * The registration and the settings a scope shows, in one round trip. Every page view of a
 * fiduciary's site asks this, so it is hand-written and prepared once per connection.
 */
export async function lookupScopeConfig(
  db: Queryable,
  organizationId: string,
  scope: ScopeKind,
  scopeValue: string,
): Promise<ScopeConfigLookup> {
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
       FROM (SELECT 1) AS one
       LEFT JOIN LATERAL (
              SELECT settings, config_version FROM banner_configs
               WHERE organization_id = $1
                 AND ((scope = $2 AND scope_value = $3) OR scope = 'default')
               ORDER BY (scope = 'default') LIMIT 1) config ON true`,
    [organizationId, scope, scopeValue],
    { preparedAs: "lookup_banner_scope_config" },
  );
  const registered = row?.registered ?? false;
  if (!row || row.settings === null || row.config_version === null) return { registered };
  return { registered, config: { settings: row.settings, configVersion: row.config_version } };
}

const toScopeConfig = (row: {
  scope: string;
  scope_value: string;
  settings: unknown;
  config_version: number;
  updated_at: number;
}): StoredScopeConfig => ({
  scope: row.scope as ScopeKind,
  scopeValue: row.scope_value,
  settings: row.settings as Record<string, unknown>,
  configVersion: row.config_version,
  updatedAt: row.updated_at,
});

const SCOPE_COLUMNS = ["scope", "scope_value", "settings", "config_version", "updated_at"] as const;

/** The default and every scope with its own settings: the default first, then by scope and value. */
export async function listScopeConfigs(db: Queryable, organizationId: string): Promise<StoredScopeConfig[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("banner_configs")
      .select(SCOPE_COLUMNS)
      .where("organization_id", "=", organizationId)
      .orderBy(sql`scope = 'default'`, "desc")
      .orderBy("scope")
      .orderBy("scope_value"),
  );
  return found.map(toScopeConfig);
}

/** One scope's own settings, if it has any. */
export async function readScopeConfig(
  db: Queryable,
  organizationId: string,
  scope: ScopeKind,
  scopeValue: string,
): Promise<StoredScopeConfig | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("banner_configs")
      .select(SCOPE_COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("scope", "=", scope)
      .where("scope_value", "=", scopeValue),
  );
  return row && toScopeConfig(row);
}

/**
 * Writes a scope's settings. A new row continues from the default's version; an existing row is
 * bumped only when the settings differ. The new version, or undefined when nothing changed.
 */
export async function upsertScopeConfig(
  db: Queryable,
  organizationId: string,
  scope: ScopeKind,
  scopeValue: string,
  settings: Record<string, unknown>,
  now: number,
): Promise<number | undefined> {
  const row = await first(
    db,
    qb
      .insertInto("banner_configs")
      .values((eb) => ({
        organization_id: organizationId,
        scope,
        scope_value: scopeValue,
        settings: JSON.stringify(settings),
        config_version: eb(
          eb.fn.coalesce(
            eb
              .selectFrom("banner_configs")
              .select("config_version")
              .where("organization_id", "=", organizationId)
              .where("scope", "=", "default"),
            eb.lit(0),
          ),
          "+",
          1,
        ),
        updated_at: now,
      }))
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "scope", "scope_value"])
          .doUpdateSet((eb) => ({
            settings: eb.ref("excluded.settings"),
            config_version: eb("banner_configs.config_version", "+", 1),
            updated_at: eb.ref("excluded.updated_at"),
          }))
          .whereRef("banner_configs.settings", "is distinct from", "excluded.settings"),
      )
      .returning("config_version"),
  );
  return row?.config_version;
}

/**
 * Locks the organisation's default row (the banner lock: saves and removals take turns on it);
 * its version, 0 when it has none.
 */
export async function lockDefaultScope(tx: Queryable, organizationId: string): Promise<number> {
  const row = await first(
    tx,
    qb
      .selectFrom("banner_configs")
      .select("config_version")
      .where("organization_id", "=", organizationId)
      .where("scope", "=", "default")
      .forUpdate(),
  );
  return row?.config_version ?? 0;
}

/** Deletes a scope's own settings; the version they had, or undefined when there were none. */
export async function deleteScopeConfig(
  tx: Queryable,
  organizationId: string,
  scope: ScopeKind,
  scopeValue: string,
): Promise<number | undefined> {
  const row = await first(
    tx,
    qb
      .deleteFrom("banner_configs")
      .where("organization_id", "=", organizationId)
      .where("scope", "=", scope)
      .where("scope_value", "=", scopeValue)
      .returning("config_version"),
  );
  return row?.config_version;
}

/** Sets the default scope's version. */
export async function setDefaultVersion(
  tx: Queryable,
  organizationId: string,
  configVersion: number,
  now: number,
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("banner_configs")
      .set({ config_version: configVersion, updated_at: now })
      .where("organization_id", "=", organizationId)
      .where("scope", "=", "default"),
  );
}
