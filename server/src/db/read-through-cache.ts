// A per-instance cache of rows that hot paths read on every request (the API key behind a bearer
// credential, an organisation's capabilities) and that change rarely. Correctness does not rest on
// expiry: writes announce invalidations (db/invalidation.ts) and the cache drops the organisation's
// entries when one arrives. Expiry only bounds how long a change made behind Guard's back (plain
// SQL) can go unnoticed.
//
// Two races are closed here rather than left to expiry:
// - a load that started before an invalidation and finishes after it would store the old row, so
//   loads only store when no invalidation arrived meanwhile (a generation counter);
// - while the feed is disconnected invalidations are being missed, so the cache reads through and
//   stores nothing until it reconnects (which clears it).
import { LRUCache } from "lru-cache";
import type { Invalidation, InvalidationSource, InvalidationTopic } from "./invalidation.js";

export interface ReadThroughCacheOptions {
  topic: InvalidationTopic;
  /** Most entries kept (least recently used go first). */
  max: number;
  /** Longest an entry is trusted without any invalidation, ms. */
  ttlMs: number;
}

export class ReadThroughCache<V extends { organizationId: string }> {
  private readonly entries: LRUCache<string, V>;
  private generation = 0;

  constructor(
    private readonly feed: InvalidationSource,
    private readonly options: ReadThroughCacheOptions,
  ) {
    this.entries = new LRUCache<string, V>({ max: options.max, ttl: options.ttlMs });
    feed.subscribe({
      invalidate: (invalidation) => this.invalidate(invalidation),
      reset: () => this.clear(),
    });
  }

  /**
   * The cached value for `key`, or what `load` reads (stored when it is found). A miss (undefined)
   * is never stored: unknown keys must not fill the cache.
   */
  async get(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    if (this.feed.connected) {
      const cached = this.entries.get(key);
      if (cached) return cached;
    }
    const generation = this.generation;
    const value = await load();
    if (value && this.feed.connected && generation === this.generation) this.entries.set(key, value);
    return value;
  }

  /**
   * The cached value for `key` without loading it: undefined when it is not cached, or while the
   * feed is disconnected (then nothing cached is trusted). For hot paths that answer synchronously
   * when they can and fall back to `get`.
   */
  peek(key: string): V | undefined {
    return this.feed.connected ? this.entries.get(key) : undefined;
  }

  private invalidate(invalidation: Invalidation): void {
    if (invalidation.topic !== this.options.topic) return;
    this.generation += 1;
    // Rare (a revocation, a switch), so a scan is cheaper than keeping an index by organisation.
    for (const [key, value] of this.entries.entries()) {
      if (value.organizationId === invalidation.organizationId) this.entries.delete(key);
    }
  }

  private clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
