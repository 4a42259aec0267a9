// Data principals as the fiduciary identifies them: by its own stable, org-scoped `externalId`.
import type { Database, Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { normaliseEmail } from "./staff.js";
import {
  findPrincipalRow,
  movePrincipalEmail,
  principalEmail,
  upsertPrincipal,
  type PrincipalRow,
} from "./store.js";

/** The principal for (organisation, externalId), created on first sight. Safe under concurrency. */
export async function ensurePrincipal(
  db: Queryable,
  input: { organizationId: string; externalId: string },
  now: number,
): Promise<{ principalId: string }> {
  const principalId = await upsertPrincipal(db, {
    organizationId: input.organizationId,
    principalId: newId("prn"),
    externalId: input.externalId,
    createdAt: now,
  });
  return { principalId };
}

/**
 * Associates an email with the principal (stored lower-cased), so /cm/v1 can find the principal by it.
 * The fiduciary is the authority on its users' addresses: if another principal of the organisation
 * held this email, it moves to this one. Different concurrent moves of one address take turns.
 */
export async function setPrincipalEmail(
  db: Database,
  input: { organizationId: string; principalId: string; email: string },
): Promise<void> {
  const email = normaliseEmail(input.email);
  const current = await principalEmail(db, input.organizationId, input.principalId);
  if (current?.email === email) return;
  await db.transaction((tx) => movePrincipalEmail(tx, { ...input, email }));
}

/** The principal identified by email (any case) or by externalId at the organisation. */
export async function findPrincipal(
  db: Queryable,
  organizationId: string,
  by: { email: string } | { externalId: string },
): Promise<PrincipalRow | undefined> {
  return findPrincipalRow(db, organizationId, "email" in by ? { email: normaliseEmail(by.email) } : by);
}
