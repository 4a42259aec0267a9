// Cache invalidation shared by every instance of the service. A write that makes cached state
// stale (revoking an API key, switching a capability) announces it inside its own transaction with
// pg_notify, which PostgreSQL delivers to every listening session when (and only if) the
// transaction commits; each instance's feed passes it on to its caches. The announcing process's
// own caches are also told at once, so the instance that made a change never serves the old state
// even for the moment its own notification takes to come back.
//
// A cache must not trust itself while the feed is disconnected (notifications are being missed)
// and must forget everything when it reconnects: `InvalidationFeed.connected` and the reset event.
import { EventEmitter } from "node:events";
import type { Database, NotificationListener, Queryable } from "./database.js";

export const INVALIDATION_CHANNEL = "guard_cache_invalidation";

export type InvalidationTopic = "api_keys" | "capabilities" | "registered_domains";

export interface Invalidation {
  topic: InvalidationTopic;
  organizationId: string;
}

const TOPICS = new Set<string>(["api_keys", "capabilities", "registered_domains"]);

/** Same-process delivery, ahead of the notification's round trip through PostgreSQL. */
const inProcess = new EventEmitter().setMaxListeners(0);

/** Announces, inside the writing transaction `tx`, that cached `topic` state of an org is stale. */
export async function announceInvalidation(tx: Queryable, invalidation: Invalidation): Promise<void> {
  await tx.query("SELECT pg_notify($1, $2)", [INVALIDATION_CHANNEL, JSON.stringify(invalidation)]);
  inProcess.emit("invalidation", invalidation);
}

function parseInvalidation(payload: string): Invalidation | "unreadable" {
  try {
    const value = JSON.parse(payload) as Partial<Invalidation>;
    if (
      typeof value.topic === "string" &&
      TOPICS.has(value.topic) &&
      typeof value.organizationId === "string"
    )
      return { topic: value.topic as InvalidationTopic, organizationId: value.organizationId };
  } catch {
    // fall through: an unreadable message is treated as "forget everything"
  }
  return "unreadable";
}

export interface InvalidationSubscriber {
  /** Drop what is cached for this organisation under this topic. */
  invalidate(invalidation: Invalidation): void;
  /** Drop everything: invalidations may have been missed. */
  reset(): void;
}

/** One per running app: the listening session and the caches it keeps honest. */
export class InvalidationFeed {
  private readonly subscribers = new Set<InvalidationSubscriber>();
  private listener: NotificationListener | undefined;
  private readonly onLocal = (invalidation: Invalidation) => this.deliver(invalidation);

  static async open(db: Database): Promise<InvalidationFeed> {
    const feed = new InvalidationFeed();
    feed.listener = await db.listen(INVALIDATION_CHANNEL, {
      message: (payload) => {
        const invalidation = parseInvalidation(payload);
        if (invalidation === "unreadable") feed.resetAll();
        else feed.deliver(invalidation);
      },
      reset: () => feed.resetAll(),
    });
    inProcess.on("invalidation", feed.onLocal);
    return feed;
  }

  /** Whether invalidations are arriving; while false, caches must read through. */
  get connected(): boolean {
    return this.listener?.connected ?? false;
  }

  subscribe(subscriber: InvalidationSubscriber): void {
    this.subscribers.add(subscriber);
  }

  async close(): Promise<void> {
    inProcess.off("invalidation", this.onLocal);
    this.resetAll();
    await this.listener?.close();
  }

  private deliver(invalidation: Invalidation): void {
    for (const subscriber of this.subscribers) subscriber.invalidate(invalidation);
  }

  private resetAll(): void {
    for (const subscriber of this.subscribers) subscriber.reset();
  }
}
