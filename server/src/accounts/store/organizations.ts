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
  /** When the operator disabled it (accounts/organization-status.ts); null while it is enabled. */
  disabledAt: number | null;
  disabledReason: string | null;
  disabledBy: string | null;
}

const ORGANIZATION_COLUMNS = [
  "organization_id",
  "slug",
  "name",
  "created_at",
  "disabled_at",
  "disabled_reason",
  "disabled_by",
] as const;

const toOrganization = (row: {
  organization_id: string;
  slug: string;
  name: string;
  created_at: number;
  disabled_at: number | null;
  disabled_reason: string | null;
  disabled_by: string | null;
}): Organization => ({
  organizationId: row.organization_id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  disabledReason: row.disabled_reason,
  disabledBy: row.disabled_by,
});

/** Inserts the organisation (enabled); undefined when its slug is taken. */
export async function insertOrganization(
  db: Queryable,
  org: Pick<Organization, "organizationId" | "slug" | "name" | "createdAt">,
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

/**
 * The organisation with that id. `forUpdate` locks its row for a read-modify-write until the
 * transaction ends: FOR NO KEY UPDATE, as only non-key columns change, so the many writes that
 * merely reference the organisation (their foreign key takes KEY SHARE on this row) neither wait
 * for the change nor can deadlock with it.
 */
export async function findOrganizationById(
  db: Queryable,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<Organization | undefined> {
  const query = qb
    .selectFrom("organizations")
    .select(ORGANIZATION_COLUMNS)
    .where("organization_id", "=", organizationId);
  const row = await first(db, options.forUpdate ? query.forNoKeyUpdate() : query);
  return row && toOrganization(row);
}

/**
 * Marks the organisation disabled unless it already is (the first disabling's time, reason and
 * author stay). The organisation as it now is; undefined when there is no such organisation.
 */
export async function setOrganizationDisabled(
  db: Queryable,
  organizationId: string,
  disabled: { at: number; reason: string; by: string },
): Promise<Organization | undefined> {
  await execute(
    db,
    qb
      .updateTable("organizations")
      .set({ disabled_at: disabled.at, disabled_reason: disabled.reason, disabled_by: disabled.by })
      .where("organization_id", "=", organizationId)
      .where("disabled_at", "is", null),
  );
  return findOrganizationById(db, organizationId);
}

/** Clears the organisation's disabling; the organisation as it now is, undefined when none. */
export async function clearOrganizationDisabled(
  db: Queryable,
  organizationId: string,
): Promise<Organization | undefined> {
  await execute(
    db,
    qb
      .updateTable("organizations")
      .set({ disabled_at: null, disabled_reason: null, disabled_by: null })
      .where("organization_id", "=", organizationId)
      .where("disabled_at", "is not", null),
  );
  return findOrganizationById(db, organizationId);
}

/**
 * The ids of every disabled organisation, for background jobs that skip them (a partial index
 * holds only these, so the read costs the few rows there are).
 */
export async function disabledOrganizationIds(db: Queryable): Promise<string[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("organizations")
      .select("organization_id")
      .where("disabled_at", "is not", null)
      .orderBy("organization_id"),
  );
  return found.map((r) => r.organization_id);
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
 * `forUpdate` locks the row for a read-modify-write inside a transaction (FOR NO KEY UPDATE, as in
 * findOrganizationById).
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
  const row = await first(db, options.forUpdate ? query.forNoKeyUpdate() : query);
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
  return (await readOrganizationAccess(db, organizationId))?.switches;
}

/** What the access check reads of an organisation: its switches and whether it is disabled. */
export interface OrganizationAccess {
  switches: CapabilitySwitches;
  disabled: boolean;
}

/** The organisation's switches and disabled state in one read; undefined for no such organisation. */
export async function readOrganizationAccess(
  db: Queryable,
  organizationId: string,
): Promise<OrganizationAccess | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("organizations")
      .select(["capabilities", "disabled_at"])
      .where("organization_id", "=", organizationId),
  );
  return row && { switches: row.capabilities as CapabilitySwitches, disabled: row.disabled_at !== null };
}

/** The organisation a slug names, with its switches and disabled state, in one indexed read. */
export async function capabilitySwitchesBySlug(
  db: Queryable,
  slug: string,
): Promise<({ organizationId: string } & OrganizationAccess) | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("organizations")
      .select(["organization_id", "capabilities", "disabled_at"])
      .where("slug", "=", slug),
  );
  return (
    row && {
      organizationId: row.organization_id,
      switches: row.capabilities as CapabilitySwitches,
      disabled: row.disabled_at !== null,
    }
  );
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
