// Organisations (fiduciaries): the tenant every other record belongs to.
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";

export interface Organization {
  organizationId: string;
  slug: string;
  name: string;
  createdAt: number;
}

export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export class SlugTakenError extends Error {
  override name = "SlugTakenError";
  constructor(readonly slug: string) {
    super(`An organisation with slug "${slug}" already exists`);
  }
}

type OrgRow = { organization_id: string; slug: string; name: string; created_at: number };
const toOrganization = (row: OrgRow): Organization => ({
  organizationId: row.organization_id,
  slug: row.slug,
  name: row.name,
  createdAt: row.created_at,
});

export async function createOrganization(
  db: Queryable,
  input: { slug: string; name: string },
  now: number,
): Promise<Organization> {
  if (!SLUG_PATTERN.test(input.slug)) {
    throw new RangeError("slug: lowercase letters, digits and inner hyphens, 1-64 characters");
  }
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw new RangeError("name: 1-200 characters");
  const rows = await db.query<OrgRow>(
    `INSERT INTO organizations (organization_id, slug, name, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (slug) DO NOTHING RETURNING organization_id, slug, name, created_at`,
    [newId("org"), input.slug, name, now],
  );
  if (!rows[0]) throw new SlugTakenError(input.slug);
  // Every organisation starts with a default banner configuration (version 1).
  await db.query(
    `INSERT INTO banner_configs (organization_id, scope, scope_value, settings, config_version, updated_at)
     VALUES ($1, 'default', '', '{}'::jsonb, 1, $2)`,
    [rows[0].organization_id, now],
  );
  return toOrganization(rows[0]);
}

export async function findOrganizationBySlug(db: Queryable, slug: string): Promise<Organization | undefined> {
  const rows = await db.query<OrgRow>(
    "SELECT organization_id, slug, name, created_at FROM organizations WHERE slug = $1",
    [slug],
  );
  return rows[0] && toOrganization(rows[0]);
}

/**
 * The organisation's settings document (organizations.settings, JSONB) as stored; undefined when
 * there is no such organisation. Each domain parses the part it owns (consent/settings.ts,
 * gate/settings.ts). `forUpdate` locks the row for a read-modify-write inside a transaction.
 */
export async function readStoredSettings(
  db: Queryable,
  organizationId: string,
  options: { forUpdate?: boolean } = {},
): Promise<unknown> {
  const [row] = await db.query<{ settings: unknown }>(
    `SELECT settings FROM organizations WHERE organization_id = $1${options.forUpdate ? " FOR UPDATE" : ""}`,
    [organizationId],
  );
  return row?.settings;
}

export async function findOrganizationById(
  db: Queryable,
  organizationId: string,
): Promise<Organization | undefined> {
  const rows = await db.query<OrgRow>(
    "SELECT organization_id, slug, name, created_at FROM organizations WHERE organization_id = $1",
    [organizationId],
  );
  return rows[0] && toOrganization(rows[0]);
}
