// Data principals as the fiduciary identifies them (org-scoped externalId, optional email). Every
// statement filters by organization_id.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";

export interface PrincipalRow {
  principalId: string;
  externalId: string;
  email: string | null;
}

/**
 * The principal for (organisation, externalId): inserted with `principalId` on first sight, else
 * the existing one. DO UPDATE (a no-op write) rather than DO NOTHING so RETURNING yields the
 * existing row too; safe under concurrency.
 */
export async function upsertPrincipal(
  db: Queryable,
  input: { organizationId: string; principalId: string; externalId: string; createdAt: number },
): Promise<string> {
  const row = await first(
    db,
    qb
      .insertInto("principals")
      .values({
        organization_id: input.organizationId,
        principal_id: input.principalId,
        external_id: input.externalId,
        created_at: input.createdAt,
      })
      .onConflict((oc) =>
        oc
          .columns(["organization_id", "external_id"])
          .doUpdateSet({ external_id: (eb) => eb.ref("excluded.external_id") }),
      )
      .returning("principal_id"),
  );
  return row!.principal_id;
}

/** The principal identified by (normalised) email or by externalId at the organisation. */
export async function findPrincipalRow(
  db: Queryable,
  organizationId: string,
  by: { email: string } | { externalId: string },
): Promise<PrincipalRow | undefined> {
  const query = qb
    .selectFrom("principals")
    .select(["principal_id", "external_id", "email"])
    .where("organization_id", "=", organizationId);
  const row = await first(
    db,
    "email" in by ? query.where("email", "=", by.email) : query.where("external_id", "=", by.externalId),
  );
  return row && { principalId: row.principal_id, externalId: row.external_id, email: row.email };
}

/** The principal's stored email; undefined when there is no such principal. */
export async function principalEmail(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<{ email: string | null } | undefined> {
  return first(
    db,
    qb
      .selectFrom("principals")
      .select("email")
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId),
  );
}

/**
 * Gives the (normalised) email to the principal, taking it from any other principal of the
 * organisation that held it. Run it in a transaction: concurrent moves of one address take turns
 * on a transaction-scoped advisory lock named after the organisation and the address.
 */
export async function movePrincipalEmail(
  tx: Queryable,
  input: { organizationId: string; principalId: string; email: string },
): Promise<void> {
  const lockName = `principal-email:${input.organizationId}:${input.email}`;
  await execute(tx, qb.selectNoFrom(sql<string>`pg_advisory_xact_lock(hashtext(${lockName}))`.as("locked")));
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ email: null })
      .where("organization_id", "=", input.organizationId)
      .where("email", "=", input.email)
      .where("principal_id", "<>", input.principalId),
  );
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ email: input.email })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId),
  );
}

/** A principal with the time it was first seen, and its organisation. */
export interface PrincipalIdentity extends PrincipalRow {
  organizationId: string;
  createdAt: number;
}

/**
 * The principals named by (organisation, principal id) pairs, in one read; unknown pairs are left
 * out. The pairs may span organisations (the rights clock sweep names several at once).
 */
export async function findPrincipalsByIds(
  db: Queryable,
  keys: readonly { organizationId: string; principalId: string }[],
): Promise<PrincipalIdentity[]> {
  if (keys.length === 0) return [];
  const organizationIds = keys.map((k) => k.organizationId);
  const principalIds = keys.map((k) => k.principalId);
  const found = await rows(
    db,
    qb
      .selectFrom("principals")
      .select(["organization_id", "principal_id", "external_id", "email", "created_at"])
      .where(
        sql<boolean>`(organization_id, principal_id) IN (SELECT * FROM unnest(${organizationIds}::text[], ${principalIds}::text[]))`,
      ),
  );
  return found.map((r) => ({
    organizationId: r.organization_id,
    principalId: r.principal_id,
    externalId: r.external_id,
    email: r.email,
    createdAt: r.created_at,
  }));
}

/** The principal, locked until the transaction ends (rights erasure replaces its identifiers). */
export async function lockPrincipal(
  tx: Queryable,
  organizationId: string,
  principalId: string,
): Promise<PrincipalRow | undefined> {
  const row = await first(
    tx,
    qb
      .selectFrom("principals")
      .select(["principal_id", "external_id", "email"])
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .forUpdate(),
  );
  return row && { principalId: row.principal_id, externalId: row.external_id, email: row.email };
}

/**
 * Erasure (rights/erasure.ts): replaces the principal's externalId by `pseudonym` and removes its
 * email. A later broker-token call with the old externalId makes a new, unrelated principal.
 */
export async function pseudonymisePrincipal(
  tx: Queryable,
  input: { organizationId: string; principalId: string; pseudonym: string },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("principals")
      .set({ external_id: input.pseudonym, email: null })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId),
  );
}
