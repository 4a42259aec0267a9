// Browser access (CORS): which origins may read an operation's answers from a web page. The frame
// (http/cors.ts) adds the headers and answers preflights; this module decides, and the composition
// root hands it to buildApp as it hands the access check.
//
// - Only public and principal-token operations grant. An operation whose `security` accepts only a
//   service key or a staff session never does (those credentials must not live in a browser), nor
//   does anything under /api/v1/staff/ (the dashboard is served by Guard itself, same-origin).
// - An origin is granted when its host is one of the registered domains (banner/) of the
//   organisation the request concerns, on any port: the principal token's organisation, else the
//   one the request names (path, query or body, as access/public-organizations.ts finds it). A
//   request naming no organisation that resolves (a health check, an unknown id) is granted when any
//   organisation registered the host; its answer carries no organisation's data.
// - A preflight carries no body or token, so it is granted when any organisation registered the
//   host; the actual request is then checked against its own organisation.
// - `https` is required, except for loopback hosts and outside production (NODE_ENV=production).
//
// The host-to-organisations answer is cached per origin on each instance and dropped whenever a
// domain is registered or removed anywhere (the `registered_domains` invalidation), so a new domain
// is granted on its next request and a removed one is refused.
import { LRUCache } from "lru-cache";
import { organizationsRegisteringDomain } from "../banner/store.js";
import type { CapabilityCache } from "../capabilities/capabilities.js";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import type { InvalidationFeed } from "../db/invalidation.js";
import type { Credential, SecurityKind } from "../lib/credentials.js";
import { isId } from "../lib/ids.js";
import { PublicOrganizations, type PublicRequest } from "./public-organizations.js";

export interface CorsDeps {
  config: Pick<Config, "production">;
  db: Database;
  capabilities: CapabilityCache;
}

/** An operation as its route declares it (http/cors.ts's CorsOperation). */
export interface CorsOperation {
  operationId: string;
  path: string;
  security: readonly SecurityKind[];
}

/** What the grant reads of a request. */
export interface CorsRequest extends PublicRequest {
  readonly credential?: Credential;
}

type Grant = (origin: string, request: CorsRequest) => boolean | Promise<boolean>;

/** No organisation: the answer to an origin that is malformed, not http(s), or http in production. */
const NONE: readonly string[] = Object.freeze([]);

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The host an origin may be granted for, or undefined when its form or scheme rules it out. */
export function originHost(origin: string, production: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return undefined;
  }
  // An Origin header is scheme://host[:port] and nothing else ("null" and paths are refused).
  if (url.origin !== origin.toLowerCase().replace(/\/$/, "")) return undefined;
  const host = url.hostname.replace(/\.$/, "");
  if (url.protocol === "https:") return host;
  if (url.protocol === "http:" && (!production || LOOPBACK_HOSTS.has(host))) return host;
  return undefined;
}

/** Organisations whose registered domains include an origin's host, per origin, kept honest. */
class RegisteredOrigins {
  private readonly entries = new LRUCache<string, readonly string[]>({ max: 10_000, ttl: 60_000 });
  private generation = 0;

  constructor(
    private readonly db: Database,
    private readonly feed: InvalidationFeed,
    private readonly production: boolean,
  ) {
    feed.subscribe({
      // Registrations change rarely, and one host may belong to several organisations, so any
      // change drops every origin.
      invalidate: (invalidation) => {
        if (invalidation.topic === "registered_domains") this.clear();
      },
      reset: () => this.clear(),
    });
  }

  /** The organisations, synchronously when cached (an empty list is cached too: refusals are hot). */
  organizations(origin: string): readonly string[] | Promise<readonly string[]> {
    if (this.feed.connected) {
      const cached = this.entries.get(origin);
      if (cached) return cached;
    }
    const host = originHost(origin, this.production);
    if (host === undefined) return this.store(origin, NONE, this.generation);
    const generation = this.generation;
    return organizationsRegisteringDomain(this.db, host).then((found) =>
      this.store(origin, found, generation),
    );
  }

  private store(origin: string, organizationIds: readonly string[], generation: number): readonly string[] {
    if (this.feed.connected && generation === this.generation) this.entries.set(origin, organizationIds);
    return organizationIds;
  }

  private clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}

const then = <T, R>(value: T | Promise<T>, next: (value: T) => R | Promise<R>): R | Promise<R> =>
  value instanceof Promise ? value.then(next) : next(value);

const pathOrganization = (params: unknown): string | undefined => {
  const value =
    params !== null && typeof params === "object" ? (params as Record<string, unknown>).orgId : undefined;
  return typeof value === "string" && isId(value) ? value : undefined;
};

/** The CORS policy handed to the frame (http/cors.ts's CorsPolicy). */
export function createCorsPolicy(deps: CorsDeps, invalidations: InvalidationFeed) {
  const origins = new RegisteredOrigins(deps.db, invalidations, deps.config.production);
  const publicOrganizations = new PublicOrganizations(deps.db, deps.capabilities);

  const anyOrganization = (origin: string): boolean | Promise<boolean> =>
    then(origins.organizations(origin), (ids) => ids.length > 0);

  const forOrganization = (origin: string, organizationId: string): boolean | Promise<boolean> =>
    then(origins.organizations(origin), (ids) => ids.includes(organizationId));

  function grantFor(operation: CorsOperation): Grant | undefined {
    const { operationId, path, security } = operation;
    if (path.startsWith("/api/v1/staff/")) return undefined;
    if (security.length === 0) {
      return (origin, request) => {
        const inPath = pathOrganization(request.params);
        if (inPath !== undefined) return forOrganization(origin, inPath);
        // Skip the lookup for an origin no organisation registered: most refusals end here.
        return then(anyOrganization(origin), async (registered) => {
          if (!registered) return false;
          const named = await publicOrganizations.resolve(operationId, request);
          return named ? forOrganization(origin, named.organizationId) : true;
        });
      };
    }
    if (!security.includes("principalToken")) return undefined;
    return (origin, request) => {
      const credential = request.credential;
      // Another credential kind the operation also accepts is a server's, never a browser's.
      if (credential?.kind !== "principal") return false;
      return forOrganization(origin, credential.organizationId);
    };
  }

  return { grantFor, preflight: anyOrganization };
}
