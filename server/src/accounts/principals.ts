// Data principals as the fiduciary identifies them: by its own stable, org-scoped `externalId`.
import type { Database, Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";
import { normaliseEmail } from "./staff.js";

/** The principal for (organisation, externalId), created on first sight. Safe under concurrency. */
export async function ensurePrincipal(
  db: Queryable,
  input: { organizationId: string; externalId: string },
  now: number,
): Promise<{ principalId: string }> {
  // DO UPDATE (a no-op write) rather than DO NOTHING so RETURNING yields the existing row too.
  const rows = await db.query<{ principal_id: string }>(
    `INSERT INTO principals (organization_id, principal_id, external_id, created_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (organization_id, external_id) DO UPDATE SET external_id = EXCLUDED.external_id
     RETURNING principal_id`,
    [input.organizationId, newId("prn"), input.externalId, now],
  );
  return { principalId: rows[0]!.principal_id };
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
  const [current] = await db.query<{ email: string | null }>(
    "SELECT email FROM principals WHERE organization_id = $1 AND principal_id = $2",
    [input.organizationId, input.principalId],
  );
  if (current?.email === email) return;
  await db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext($1))", [
      `principal-email:${input.organizationId}:${email}`,
    ]);
    await tx.query(
      "UPDATE principals SET email = NULL WHERE organization_id = $1 AND email = $2 AND principal_id <> $3",
      [input.organizationId, email, input.principalId],
    );
    await tx.query("UPDATE principals SET email = $3 WHERE organization_id = $1 AND principal_id = $2", [
      input.organizationId,
      input.principalId,
      email,
    ]);
  });
}

export interface PrincipalSummary {
  principalId: string;
  externalId: string;
  email: string | null;
}

/** The principal identified by email (any case) or by externalId at the organisation. */
export async function findPrincipal(
  db: Queryable,
  organizationId: string,
  by: { email: string } | { externalId: string },
): Promise<PrincipalSummary | undefined> {
  const [column, value] =
    "email" in by ? ["email", normaliseEmail(by.email)] : ["external_id", by.externalId];
  const rows = await db.query<{ principal_id: string; external_id: string; email: string | null }>(
    `SELECT principal_id, external_id, email FROM principals WHERE organization_id = $1 AND ${column} = $2`,
    [organizationId, value],
  );
  const row = rows[0];
  return row && { principalId: row.principal_id, externalId: row.external_id, email: row.email };
}
