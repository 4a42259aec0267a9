// What the deployment's operator does over HTTP (/api/v1/operator/…, GUARD_OPERATOR_TOKEN): create
// an organisation ready to use — its first admin and a service key with it, as `guard org create`,
// `guard staff create` and `guard keys create` do — list the organisations, and disable or enable
// one (organization-status.ts).
import { randomBytes } from "node:crypto";
import type { Queryable } from "../db/database.js";
import { pageInMemory, pageScope, type Page, type PageRequest } from "../lib/paging.js";
import { createApiKey } from "./api-keys.js";
import { createOrganization } from "./organizations.js";
import { createStaffUser } from "./staff.js";
import { listOrganizations, type Organization } from "./store.js";

export interface OperatorCreatedOrganization {
  organization: Organization;
  /** The first admin, with the generated password shown this once; null when none was asked for. */
  admin: { staffId: string; email: string; password: string } | null;
  serviceKey: { apiKeyId: string; key: string };
}

/** Creates the organisation, its first admin and a service key; run it in one transaction. */
export async function createOrganizationForOperator(
  tx: Queryable,
  input: { slug: string; name: string; adminEmail?: string | undefined },
  now: number,
): Promise<OperatorCreatedOrganization> {
  const organization = await createOrganization(tx, { slug: input.slug, name: input.name }, now);
  let admin: OperatorCreatedOrganization["admin"] = null;
  if (input.adminEmail !== undefined) {
    // 24 base64url characters (144 bits): the admin signs in with it once and sets their own.
    const password = randomBytes(18).toString("base64url");
    const user = await createStaffUser(
      tx,
      { organizationId: organization.organizationId, email: input.adminEmail, role: "admin", password },
      now,
    );
    admin = { staffId: user.staffId, email: user.email, password };
  }
  const key = await createApiKey(
    tx,
    { organizationId: organization.organizationId, name: "created by the operator", createdBy: null },
    now,
  );
  return { organization, admin, serviceKey: { apiKeyId: key.apiKeyId, key: key.key } };
}

/** The deployment's organisations, oldest first, a page at a time. */
export async function pageOrganizationsForOperator(
  db: Queryable,
  request: PageRequest,
): Promise<Page<Organization>> {
  // Organisations are a deployment's tenants: hundreds, not millions; paged in memory.
  return pageInMemory(await listOrganizations(db), request, {
    scope: pageScope("operatorListOrganizations"),
    shape: ["number", "string"],
    keyOf: (o) => [o.createdAt, o.organizationId],
  });
}

/** The contract's OperatorOrganization. */
export const organizationToWire = (o: Organization) => ({
  organizationId: o.organizationId,
  slug: o.slug,
  name: o.name,
  createdAt: o.createdAt,
  disabledAt: o.disabledAt,
  disabledReason: o.disabledReason,
  disabledBy: o.disabledBy,
});

/** Who an operator request is recorded as: `operator`, or `operator:<by>` when the body names someone. */
export const operatorActor = (by: string | undefined): string =>
  by === undefined || by.trim() === "" ? "operator" : `operator:${by.trim()}`;
