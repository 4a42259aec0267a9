// Service API keys: `gk_live_` + 40 random base62 characters (~238 bits). Shown once at creation;
// only the SHA-256 is stored, with a 16-character display prefix. Revocation is immediate: it is
// announced in its own transaction, and every instance's key cache drops the organisation's keys
// when the announcement commits (db/invalidation.ts).
import type { Queryable } from "../db/database.js";
import { announceInvalidation, type InvalidationFeed } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { newId, randomBase62 } from "../lib/ids.js";
import { sha256Hex } from "../lib/secrets.js";

export const API_KEY_PREFIX = "gk_live_";
const DISPLAY_PREFIX_LENGTH = 16;
/** last_used_at is refreshed at most this often per key, so the hot path rarely writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ApiKeySummary {
  apiKeyId: string;
  name: string;
  prefix: string;
  createdAt: number;
  createdBy: string | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

export interface CreatedApiKey {
  apiKeyId: string;
  name: string;
  prefix: string;
  key: string;
  createdAt: number;
}

export async function createApiKey(
  db: Queryable,
  input: { organizationId: string; name: string; createdBy: string | null },
  now: number,
): Promise<CreatedApiKey> {
  const name = input.name.trim();
  if (name.length === 0 || name.length > 100) throw new RangeError("name: 1-100 characters");
  const key = API_KEY_PREFIX + randomBase62(40);
  const apiKeyId = newId("key");
  const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
  await db.query(
    `INSERT INTO api_keys (organization_id, api_key_id, name, prefix, key_hash, created_at, created_by)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [input.organizationId, apiKeyId, name, prefix, sha256Hex(key), now, input.createdBy],
  );
  return { apiKeyId, name, prefix, key, createdAt: now };
}

type KeyRow = {
  api_key_id: string;
  name: string;
  prefix: string;
  created_at: number;
  created_by: string | null;
  last_used_at: number | null;
  revoked_at: number | null;
};

export async function listApiKeys(db: Queryable, organizationId: string): Promise<ApiKeySummary[]> {
  const rows = await db.query<KeyRow>(
    `SELECT api_key_id, name, prefix, created_at, created_by, last_used_at, revoked_at
       FROM api_keys WHERE organization_id = $1 ORDER BY created_at DESC, api_key_id DESC`,
    [organizationId],
  );
  return rows.map((r) => ({
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
 * `revoked`: true when this call revoked it, false when it already was; undefined: no such key here.
 * Run it in a transaction so the revocation and its announcement commit together.
 */
export async function revokeApiKey(
  db: Queryable,
  input: { organizationId: string; apiKeyId: string },
  now: number,
): Promise<{ revoked: boolean } | undefined> {
  // Only an active key is updated, so a second revocation (even in the same millisecond, or
  // concurrently: the row lock makes the loser re-check `revoked_at`) reports false.
  const revoked = await db.query(
    `UPDATE api_keys SET revoked_at = $3
      WHERE organization_id = $1 AND api_key_id = $2 AND revoked_at IS NULL
      RETURNING api_key_id`,
    [input.organizationId, input.apiKeyId, now],
  );
  if (revoked.length > 0) {
    await announceInvalidation(db, { topic: "api_keys", organizationId: input.organizationId });
    return { revoked: true };
  }
  const existing = await db.query("SELECT 1 FROM api_keys WHERE organization_id = $1 AND api_key_id = $2", [
    input.organizationId,
    input.apiKeyId,
  ]);
  return existing.length > 0 ? { revoked: false } : undefined;
}

export interface ResolvedApiKey {
  organizationId: string;
  apiKeyId: string;
}

type ActiveKey = ResolvedApiKey & { lastUsedAt: number | null };

async function loadActiveKey(db: Queryable, keyHash: string): Promise<ActiveKey | undefined> {
  const [row] = await db.query<{ organization_id: string; api_key_id: string; last_used_at: number | null }>(
    "SELECT organization_id, api_key_id, last_used_at FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
    [keyHash],
  );
  return (
    row && { organizationId: row.organization_id, apiKeyId: row.api_key_id, lastUsedAt: row.last_used_at }
  );
}

const lastUsedIsFresh = (key: ActiveKey, now: number) =>
  key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_RESOLUTION_MS;

async function touch(db: Queryable, key: ActiveKey, now: number): Promise<void> {
  if (lastUsedIsFresh(key, now)) return;
  key.lastUsedAt = now;
  await db.query("UPDATE api_keys SET last_used_at = $3 WHERE organization_id = $1 AND api_key_id = $2", [
    key.organizationId,
    key.apiKeyId,
    now,
  ]);
}

/**
 * Resolves bearer keys to the active key they name, refreshing its last-used time. The row is read
 * once per instance and then served from memory until a revocation in its organisation is
 * announced (or a minute passes). The hash is the cache key; unknown and revoked keys are never
 * cached.
 */
export class ApiKeyCache {
  /** Active keys by the SHA-256 of the bearer value. */
  private readonly cache: ReadThroughCache<ActiveKey>;
  /** Active keys by `organizationId/apiKeyId`, for the principal tokens they brokered. */
  private readonly activeById: ReadThroughCache<ResolvedApiKey>;

  constructor(feed: InvalidationFeed) {
    const options = { topic: "api_keys", max: 10_000, ttlMs: 60_000 } as const;
    this.cache = new ReadThroughCache<ActiveKey>(feed, options);
    this.activeById = new ReadThroughCache<ResolvedApiKey>(feed, options);
  }

  /** Whether the organisation's key `apiKeyId` exists and is not revoked (tokens it brokered live). */
  async isActive(db: Queryable, organizationId: string, apiKeyId: string): Promise<boolean> {
    const found = await this.activeById.get(`${organizationId}/${apiKeyId}`, async () => {
      const [row] = await db.query(
        "SELECT 1 FROM api_keys WHERE organization_id = $1 AND api_key_id = $2 AND revoked_at IS NULL",
        [organizationId, apiKeyId],
      );
      return row && { organizationId, apiKeyId };
    });
    return found !== undefined;
  }

  /**
   * What `resolve` would answer, when it needs no database work: the key is cached and its
   * last-used time is fresh. Undefined means "ask `resolve`" (not cached, unknown, revoked, or due
   * a last-used refresh), never "no such key".
   */
  resolveCached(key: string, now: number): ResolvedApiKey | undefined {
    if (key.length > 100) return undefined;
    const active = this.cache.peek(sha256Hex(key));
    if (!active || !lastUsedIsFresh(active, now)) return undefined;
    return { organizationId: active.organizationId, apiKeyId: active.apiKeyId };
  }

  async resolve(db: Queryable, key: string, now: number): Promise<ResolvedApiKey | undefined> {
    if (key.length > 100) return undefined;
    const keyHash = sha256Hex(key);
    const active = await this.cache.get(keyHash, () => loadActiveKey(db, keyHash));
    if (!active) return undefined;
    await touch(db, active, now);
    return { organizationId: active.organizationId, apiKeyId: active.apiKeyId };
  }
}
