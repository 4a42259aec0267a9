// Data principals as the fiduciary identifies them: by its own stable, org-scoped `externalId`.
import type { Queryable } from "../db/database.js";
import { newId } from "../lib/ids.js";

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
