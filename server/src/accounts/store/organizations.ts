// Organisations: the tenant row, with the organisation's settings document (parsed by the domains
// that own each setting) and its capability switches (capabilities/). Lookups by slug find the
// organisation from a public name; every other statement filters by organization_id.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";

export interface Organization {
  organizationId: string;
  slug: string;
  name: string;
  createdAt: number;
}

const ORGANIZATION_COLUMNS = ["organization_id", "slug", "name", "created_at"] as const;

const toOrganization = (row: {
  organization_id: string;
  slug: string;
  name: string;
  created_at: number;
}): Organization => ({
  organizationId: row.organization_id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at,
});

/** Inserts the organisation; undefined when its slug is taken. */
export async function insertOrganization(
  db: Queryable,
  org: Organization,
): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb
      .insertInto("organizations")
      .values({
        organization_id: org.organizationId,
        slug: org.slug,
        name: org.name,
        created_at: org.createdAt,
      })
      .onConflict((oc) => oc.column("slug").doNothing())
      .returning(ORGANIZATION_COLUMNS),
  );
  return row && toOrganization(row);
}

export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(ORGANIZATION_COLUMNS).where("slug", "=", slug),
  );
  return row && toOrganization(row);
}

export async function findOrganizationById(
  db: Queryable,
  organizationId: string,
): Promise<Organization | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(ORGANIZATION_COLUMNS).where("organization_id", "=", organizationId),
  );
  return row && toOrganization(row);
}

/** Every organisation, oldest first (for operators: `guard org list`). */
export async function listOrganizations(db: Queryable): Promise<Organization[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("organizations")
      .select(ORGANIZATION_COLUMNS)
      .orderBy("created_at")
      .orderBy("organization_id"),
  );
  return found.map(toOrganization);
}

/**
 * How many organisations the database holds; 0 when it has no organizations table yet (a backup
 * of a database that was never migrated).
 */
export async function countOrganizations(db: Queryable): Promise<number> {
  const [table] = await db.query<{ name: string | null }>(
    "SELECT to_regclass('organizations')::text AS name",
  );
  if (!table?.name) return 0;
  const [row] = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM organizations");
  return row?.n ?? 0;
}

/**
 * The organisation's settings document (organizations.settings) as stored; undefined when there is
 * no such organisation. Each domain parses the part it owns (consent/settings.ts, gate/settings.ts).
 * `forUpdate` locks the row for a read-modify-write inside a transaction.
 */
export async function readStoredSettings(
  db: Queryable,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<unknown> {
  const query = qb
    .selectFrom("organizations")
    .select("settings")
    .where("organization_id", "=", organizationId);
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row?.settings;
}

/** Replaces the organisation's settings document. */
export async function writeStoredSettings(
  db: Queryable,
  organizationId: string,
  settings: unknown,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("organizations")
      .set({ settings: JSON.stringify(settings) })
      .where("organization_id", "=", organizationId),
  );
}

/** Up to `limit` organisation ids after `afterOrganizationId`, by id (a keyset scan of every tenant). */
export async function pageOrganizationIds(
  db: Queryable,
  afterOrganizationId: string,
  limit: number,
): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("organizations")
      .select("organization_id")
      .where("organization_id", ">", afterOrganizationId)
      .orderBy("organization_id")
      .limit(limit),
  );
  return found.map((r) => r.organization_id);
}

/** Capability switches as stored: `{"<name>": false}` for each one switched off. */
export type CapabilitySwitches = Partial<Record<string, boolean>>;

/** The organisation's capability switches; undefined when there is no such organisation. */
export async function readCapabilitySwitches(
  db: Queryable,
  organizationId: string,
): Promise<CapabilitySwitches | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select("capabilities").where("organization_id", "=", organizationId),
  );
  return row && (row.capabilities as CapabilitySwitches);
}

/** The organisation a slug names, with its capability switches, in one indexed read. */
export async function capabilitySwitchesBySlug(
  db: Queryable,
  slug: string,
): Promise<{ organizationId: string; switches: CapabilitySwitches } | undefined> {
  const row = await first(
    db,
    qb.selectFrom("organizations").select(["organization_id", "capabilities"]).where("slug", "=", slug),
  );
  return row && { organizationId: row.organization_id, switches: row.capabilities as CapabilitySwitches };
}

/**
 * Drops the `switchOn` names from the stored switches and merges `switchOff` in, in one statement
 * (so concurrent changes to different capabilities both apply). The switches now stored; undefined
 * when there is no such organisation.
 */
export async function updateCapabilitySwitches(
  db: Queryable,
  organizationId: string,
  switchOn: readonly string[],
  switchOff: Record<string, false>,
): Promise<CapabilitySwitches | undefined> {
  const row = await first(
    db,
    qb
      .updateTable("organizations")
      // The names to drop are a PostgreSQL text[] (`jsonb - text[]`), the merged object JSON text.
      .set({
        capabilities: sql<string>`(capabilities - ${switchOn}::text[]) || ${JSON.stringify(switchOff)}::jsonb`,
      })
      .where("organization_id", "=", organizationId)
      .returning("capabilities"),
  );
  return row && (row.capabilities as CapabilitySwitches);
}
