// Cache invalidation shared by every instance of the service. A write that makes cached state
// stale (revoking an API key, switching a capability) announces it inside its own transaction with
// pg_notify, which PostgreSQL delivers to every listening session when (and only if) the
// transaction commits; each instance's feed passes it on to its caches. The announcing process's
// own caches are also told at once, so the instance that made a change never serves the old state
// even for the moment its own notification takes to come back.
//
// A cache must not trust itself while the feed is disconnected (notifications are being missed)
// and must forget everything when it reconnects: `InvalidationFeed.connected` and the reset event.
//
// Most caches belong to one app and listen to its feed. A few are read from code that is handed
// only a transaction, deep inside many callers (the webhook endpoint list behind every enqueued
// event, the settings and notice reads of a capture): those listen to `processInvalidations`, every
// feed open in this process as one, and trust themselves only while at least one feed is open and
// all of them are connected. In production a process serves one database through one feed, so
// this is the same guarantee; a process with no feed (a CLI command) reads through.
import { EventEmitter } from "node:events";
import type { Database, NotificationListener, Queryable } from "./database.js";

export const INVALIDATION_CHANNEL = "guard_cache_invalidation";

export type InvalidationTopic =
  | "api_keys"
  | "capabilities"
  | "registered_domains"
  // organizations.settings (consent settings read on every anonymous capture)
  | "organization_settings"
  // which version of a notice is published (read on every capture)
  | "notices"
  // the enabled, undeleted webhook endpoints and their event types (read on every enqueued event)
  | "webhook_endpoints"
  // the DSR and grievance response periods (read on every filing)
  | "response_periods";

export interface Invalidation {
  topic: InvalidationTopic;
  organizationId: string;
}

const TOPICS = new Set<string>([
  "api_keys",
  "capabilities",
  "registered_domains",
  "organization_settings",
  "notices",
  "webhook_endpoints",
  "response_periods",
]);

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

/** What a cache listens to: a feed, or every feed of the process (`processInvalidations`). */
export interface InvalidationSource {
  /** Whether invalidations are arriving; while false, caches must read through. */
  readonly connected: boolean;
  subscribe(subscriber: InvalidationSubscriber): void;
}

/** One per running app: the listening session and the caches it keeps honest. */
export class InvalidationFeed implements InvalidationSource {
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
    processInvalidations.add(feed);
    return feed;
  }

  /** Whether invalidations are arriving; while false, caches must read through. */
  get connected(): boolean {
    return this.listener?.connected ?? false;
  }

  subscribe(subscriber: InvalidationSubscriber): void {
    this.subscribers.add(subscriber);
  }

  unsubscribe(subscriber: InvalidationSubscriber): void {
    this.subscribers.delete(subscriber);
  }

  async close(): Promise<void> {
    inProcess.off("invalidation", this.onLocal);
    processInvalidations.remove(this);
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

/**
 * Every feed open in this process, as one source (see the header). Opening or closing a feed
 * forgets everything: a cache filled while another feed listened may hold what the new one's
 * database says otherwise, and with no feed left nothing is trusted anyway.
 */
class ProcessInvalidations implements InvalidationSource {
  private readonly feeds = new Set<InvalidationFeed>();
  private readonly subscribers = new Set<InvalidationSubscriber>();
  private readonly forward: InvalidationSubscriber = {
    invalidate: (invalidation) => {
      for (const subscriber of this.subscribers) subscriber.invalidate(invalidation);
    },
    reset: () => this.resetAll(),
  };

  get connected(): boolean {
    if (this.feeds.size === 0) return false;
    for (const feed of this.feeds) if (!feed.connected) return false;
    return true;
  }

  subscribe(subscriber: InvalidationSubscriber): void {
    this.subscribers.add(subscriber);
  }

  add(feed: InvalidationFeed): void {
    this.feeds.add(feed);
    feed.subscribe(this.forward);
    this.resetAll();
  }

  remove(feed: InvalidationFeed): void {
    if (!this.feeds.delete(feed)) return;
    feed.unsubscribe(this.forward);
    this.resetAll();
  }

  private resetAll(): void {
    for (const subscriber of this.subscribers) subscriber.reset();
  }
}

export const processInvalidations = new ProcessInvalidations();
