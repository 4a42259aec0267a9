// Organisations (fiduciaries): the tenant every other record belongs to.
import { createDefaultBannerConfig } from "../banner/store.js";
import type { Queryable } from "../db/database.js";
import { Failure, validationError } from "../lib/failure.js";
import { newId } from "../lib/ids.js";
import { insertOrganization, type Organization } from "./store.js";

export { findOrganizationById, findOrganizationBySlug, type Organization } from "./store.js";

const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/;

export async function createOrganization(
  db: Queryable,
  input: { slug: string; name: string },
  now: number,
): Promise<Organization> {
  if (!SLUG_PATTERN.test(input.slug)) {
    throw validationError(
      "slug",
      "slug must be lowercase letters, digits and inner hyphens, 1-64 characters",
    );
  }
  const name = input.name.trim();
  if (name.length === 0 || name.length > 200) throw validationError("name", "name must be 1-200 characters");
  const org = await insertOrganization(db, {
    organizationId: newId("org"),
    slug: input.slug,
    name,
    createdAt: now,
  });
  if (!org) {
    throw new Failure("CONFLICT", `An organisation with slug "${input.slug}" already exists`, {
      field: "slug",
    });
  }
  // Every organisation starts with a default banner configuration (version 1).
  await createDefaultBannerConfig(db, org.organizationId, now);
  return org;
}
