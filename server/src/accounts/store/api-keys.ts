// Service API keys, stored as the SHA-256 of the bearer value. The lookup by hash finds the
// organisation from the credential; every other statement filters by organization_id.
import type { Queryable } from "../../db/database.js";
import { execute, first, qb, rows } from "../../db/query.js";

export interface ApiKeySummary {
  apiKeyId: string;
  name: string;
  prefix: string;
  createdAt: number;
  createdBy: string | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export async function insertApiKey(
  db: Queryable,
  key: {
    organizationId: string;
    apiKeyId: string;
    name: string;
    prefix: string;
    keyHash: string;
    createdAt: number;
    createdBy: string | null;
  },
): Promise<void> {
  await execute(
    db,
    qb.insertInto("api_keys").values({
      organization_id: key.organizationId,
      api_key_id: key.apiKeyId,
      name: key.name,
      prefix: key.prefix,
      key_hash: key.keyHash,
      created_at: key.createdAt,
      created_by: key.createdBy,
    }),
  );
}

/** The organisation's keys, newest first. */
export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeySummary[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("api_keys")
      .select(["api_key_id", "name", "prefix", "created_at", "created_by", "last_used_at", "revoked_at"])
      .where("organization_id", "=", organizationId)
      .orderBy("created_at", "desc")
      .orderBy("api_key_id", "desc"),
  );
  return found.map((r) => ({
    apiKeyId: r.api_key_id,
    name: r.name,
    prefix: r.prefix,
    createdAt: r.created_at,
    createdBy: r.created_by,
    lastUsedAt: r.last_used_at,
    revokedAt: r.revoked_at,
  }));
}

/**
 * Revokes the key if it is active; true when this call revoked it. Only an active key is updated,
 * so a second revocation (concurrent ones too: the row lock makes the loser re-check `revoked_at`)
 * answers false.
 */
export async function revokeActiveApiKey(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  now: number,
): Promise<boolean> {
  const revoked = await rows(
    db,
    qb
      .updateTable("api_keys")
      .set({ revoked_at: now })
      .where("organization_id", "=", organizationId)
      .where("api_key_id", "=", apiKeyId)
      .where("revoked_at", "is", null)
      .returning("api_key_id"),
  );
  return revoked.length > 0;
}

/** Whether the organisation has the key; `activeOnly` leaves revoked keys out. */
export async function apiKeyExists(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  options: { activeOnly?: boolean } = {},
): Promise<boolean> {
  let query = qb
    .selectFrom("api_keys")
    .select("api_key_id")
    .where("organization_id", "=", organizationId)
    .where("api_key_id", "=", apiKeyId);
  if (options.activeOnly) query = query.where("revoked_at", "is", null);
  return (await first(db, query)) !== undefined;
}

/** The active key whose bearer value hashes to `keyHash`. */
export async function activeApiKeyByHash(
  db: Queryable,
  keyHash: string,
): Promise<{ organizationId: string; apiKeyId: string; lastUsedAt: number | null } | undefined> {
  const row = await first(
    db,
    qb
      .selectFrom("api_keys")
      .select(["organization_id", "api_key_id", "last_used_at"])
      .where("key_hash", "=", keyHash)
      .where("revoked_at", "is", null),
  );
  return (
    row && { organizationId: row.organization_id, apiKeyId: row.api_key_id, lastUsedAt: row.last_used_at }
  );
}

export async function setApiKeyLastUsed(
  db: Queryable,
  organizationId: string,
  apiKeyId: string,
  now: number,
): Promise<void> {
  await execute(
    db,
    qb
      .updateTable("api_keys")
      .set({ last_used_at: now })
      .where("organization_id", "=", organizationId)
      .where("api_key_id", "=", apiKeyId),
  );
}
