// nominations: a principal's nominees, at most one active (the partial unique index
// nominations_one_active), revoked ones kept. Every statement filters by the caller's organization_id.
// `status = 'active'` is a literal, not a parameter, wherever that partial index should serve.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows, sql } from "../../db/query.js";
import type { NominationStatus } from "../state-machines.js";

export interface StoredNomination {
  nominationId: string;
  principalId: string;
  nomineeName: string;
  nomineeContact: string;
  status: NominationStatus;
  createdAt: number;
}

const COLUMNS = [
  "nomination_id",
  "principal_id",
  "nominee_name",
  "nominee_contact",
  "status",
  "created_at",
] as const;

const toStored = (r: {
  nomination_id: string;
  principal_id: string;
  nominee_name: string;
  nominee_contact: string;
  status: string;
  created_at: number;
}): StoredNomination => ({
  nominationId: r.nomination_id,
  principalId: r.principal_id,
  nomineeName: r.nominee_name,
  nomineeContact: r.nominee_contact,
  // The table's CHECK constraint holds status to the state machine's values.
  status: r.status as NominationStatus,
  createdAt: r.created_at,
});

/** The principal's active nomination; `forUpdate` locks it until the transaction ends. */
export async function findActiveNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
  options: { forUpdate?: boolean } = {},
): Promise<StoredNomination | undefined> {
  const query = qb
    .selectFrom("nominations")
    .select(COLUMNS)
    .where("organization_id", "=", organizationId)
    .where("principal_id", "=", principalId)
    .where("status", "=", sql.lit("active"));
  const row = await first(db, options.forUpdate ? query.forUpdate() : query);
  return row && toStored(row);
}

/** The principal's latest nomination, active or revoked (the staff lookup shows either). */
export async function findLatestNomination(
  db: Queryable,
  organizationId: string,
  principalId: string,
): Promise<StoredNomination | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("nominations")
      .select(COLUMNS)
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .orderBy("created_at", "desc")
      .orderBy("nomination_id", "desc")
      .limit(1),
  );
  return row && toStored(row);
}

/**
 * Inserts the principal's active nomination; undefined when the principal already has one (a
 * concurrent insert won the partial unique index).
 */
export async function insertActiveNomination(
  tx: Queryable,
  input: {
    organizationId: string;
    nominationId: string;
    principalId: string;
    nomineeName: string;
    nomineeContact: string;
    now: number;
  },
): Promise<StoredNomination | undefined> {
  const row = await first(
    tx,
    qb
      .insertInto("nominations")
      .values({
        organization_id: input.organizationId,
        nomination_id: input.nominationId,
        principal_id: input.principalId,
        nominee_name: input.nomineeName,
        nominee_contact: input.nomineeContact,
        status: "active",
        created_at: input.now,
        updated_at: input.now,
      })
      // The conflict target names the partial index's predicate, so PostgreSQL infers that index.
      .onConflict((oc) =>
        oc.columns(["organization_id", "principal_id"]).where("status", "=", sql.lit("active")).doNothing(),
      )
      .returning(COLUMNS),
  );
  return row && toStored(row);
}

export async function updateNominee(
  tx: Queryable,
  input: {
    organizationId: string;
    nominationId: string;
    nomineeName: string;
    nomineeContact: string;
    now: number;
  },
): Promise<void> {
  await execute(
    tx,
    qb
      .updateTable("nominations")
      .set({ nominee_name: input.nomineeName, nominee_contact: input.nomineeContact, updated_at: input.now })
      .where("organization_id", "=", input.organizationId)
      .where("nomination_id", "=", input.nominationId),
  );
}

/** Revokes the principal's active nomination; its id, or undefined when there was none. */
export async function revokeStoredNomination(
  tx: Queryable,
  organizationId: string,
  principalId: string,
  now: number,
): Promise<string | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("nominations")
      .set({ status: "revoked", revoked_at: now, updated_at: now })
      .where("organization_id", "=", organizationId)
      .where("principal_id", "=", principalId)
      .where("status", "=", sql.lit("active"))
      .returning("nomination_id"),
  );
  return row?.nomination_id;
}

/** Erasure: overwrites the nominee of every nomination of the principal not yet erased; how many. */
export async function eraseNomineesOfPrincipal(
  tx: Queryable,
  input: { organizationId: string; principalId: string; redacted: string; now: number },
): Promise<number> {
  const erased = await rows(
    tx,
    qb
      .updateTable("nominations")
      .set({
        nominee_name: input.redacted,
        nominee_contact: input.redacted,
        erased_at: input.now,
        updated_at: input.now,
      })
      .where("organization_id", "=", input.organizationId)
      .where("principal_id", "=", input.principalId)
      .where("erased_at", "is", null)
      .returning("nomination_id"),
  );
  return erased.length;
}

/** Up to `limit` nominations with ids after `afterNominationId`, by id (audit verify's keyset scan). */
export async function scanNominationStates(
  db: Queryable,
  organizationId: string,
  afterNominationId: string,
  limit: number,
): Promise<
  { nominationId: string; principalId: string; status: string; createdAt: number; revokedAt: number | null }[]
> {
  const found = await rows(
    db,
    qb
      .selectFrom("nominations")
      .select(["nomination_id", "principal_id", "status", "created_at", "revoked_at"])
      .where("organization_id", "=", organizationId)
      .where("nomination_id", ">", afterNominationId)
      .orderBy("nomination_id")
      .limit(limit),
  );
  return found.map((r) => ({
    nominationId: r.nomination_id,
    principalId: r.principal_id,
    status: r.status,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
  }));
}

/** Which of these nomination ids the organisation has (audit verify: records the chain names). */
export async function presentNominationIds(
  db: Queryable,
  organizationId: string,
  nominationIds: readonly string[],
): Promise<Set<string>> {
  if (nominationIds.length === 0) return new Set();
  const found = await rows(
    db,
    qb
      .selectFrom("nominations")
      .select("nomination_id")
      .where("organization_id", "=", organizationId)
      .where("nomination_id", "in", nominationIds),
  );
  return new Set(found.map((r) => r.nomination_id));
}
