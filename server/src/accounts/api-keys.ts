// Service API keys: `gk_live_` + 40 random base62 characters (~238 bits). Shown once at creation;
// only the SHA-256 is stored, with a 16-character display prefix. Revocation is immediate: it is
// announced in its own transaction, and every instance's key cache drops the organisation's keys
// when the announcement commits (db/invalidation.ts).
import type { Queryable } from "../db/database.js";
import { announceInvalidation, type InvalidationFeed } from "../db/invalidation.js";
import { ReadThroughCache } from "../db/read-through-cache.js";
import { validationError } from "../lib/failure.js";
import { newId, randomBase62 } from "../lib/ids.js";
import { sha256Hex } from "../lib/secrets.js";
import {
  activeApiKeyByHash,
  apiKeyExists,
  insertApiKey,
  revokeActiveApiKey,
  setApiKeyLastUsed,
} from "./store.js";

const API_KEY_PREFIX = "gk_live_";
const DISPLAY_PREFIX_LENGTH = 16;
/** last_used_at is refreshed at most this often per key, so the hot path rarely writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

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
  if (name === "") throw validationError("name", "name must not be blank");
  if (name.length > 100) throw validationError("name", "name must be at most 100 characters");
  const key = API_KEY_PREFIX + randomBase62(40);
  const apiKeyId = newId("key");
  const prefix = key.slice(0, DISPLAY_PREFIX_LENGTH);
  await insertApiKey(db, {
    organizationId: input.organizationId,
    apiKeyId,
    name,
    prefix,
    keyHash: sha256Hex(key),
    createdAt: now,
    createdBy: input.createdBy,
  });
  return { apiKeyId, name, prefix, key, createdAt: now };
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
  if (await revokeActiveApiKey(db, input.organizationId, input.apiKeyId, now)) {
    await announceInvalidation(db, { topic: "api_keys", organizationId: input.organizationId });
    return { revoked: true };
  }
  return (await apiKeyExists(db, input.organizationId, input.apiKeyId)) ? { revoked: false } : undefined;
}

export interface ResolvedApiKey {
  organizationId: string;
  apiKeyId: string;
}

type ActiveKey = ResolvedApiKey & { lastUsedAt: number | null };

const lastUsedIsFresh = (key: ActiveKey, now: number) =>
  key.lastUsedAt !== null && now - key.lastUsedAt < LAST_USED_RESOLUTION_MS;

async function touch(db: Queryable, key: ActiveKey, now: number): Promise<void> {
  if (lastUsedIsFresh(key, now)) return;
  key.lastUsedAt = now;
  await setApiKeyLastUsed(db, key.organizationId, key.apiKeyId, now);
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
    const found = await this.activeById.get(`${organizationId}/${apiKeyId}`, async () =>
      (await apiKeyExists(db, organizationId, apiKeyId, { activeOnly: true }))
        ? { organizationId, apiKeyId }
        : undefined,
    );
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
    const active = await this.cache.get(keyHash, () => activeApiKeyByHash(db, keyHash));
    if (!active) return undefined;
    await touch(db, active, now);
    return { organizationId: active.organizationId, apiKeyId: active.apiKeyId };
  }
}
