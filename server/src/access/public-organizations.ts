// Where each public operation that names an organisation finds it (path, query or parsed body), so
// the access check can read that organisation's capability switches and whether the operator
// disabled it (then the route answers its own 404 for an unknown organisation). An organisation named by id takes
// its switches from the instance's CapabilityCache. A notice or domain group is mapped to its
// organisation once per instance (ownership never changes, so the map needs no invalidation; a
// record deleted since only means its organisation's switches are checked before the handler
// answers 404). A slug, which an organisation can give up and another take, costs one indexed read
// that also returns the switches. When no organisation resolves (unknown or malformed id) there is
// nothing to check: the handler or the validator answers 404 or 400 as it would anyway.
import { LRUCache } from "lru-cache";
import { capabilitySwitchesBySlug } from "../accounts/store.js";
import { domainGroupOwner } from "../banner/store.js";
import type { CapabilityCache, CapabilityOverrides } from "../capabilities/capabilities.js";
import type { Queryable } from "../db/database.js";
import { notFound, type Failure } from "../lib/failure.js";
import { isId } from "../lib/ids.js";
import { noticeOwner } from "../notices/store.js";

/** What the lookups read of a request: its parts as parsed, before validation. */
export interface PublicRequest {
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}

export interface ResolvedOrganization {
  organizationId: string;
  switches: CapabilityOverrides;
  /** Disabled by the operator: the request is answered as for an unknown organisation. */
  disabled: boolean;
}

const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined;

const asId = (value: unknown): string | undefined =>
  typeof value === "string" && isId(value) ? value : undefined;

type Source = (
  request: PublicRequest,
  find: PublicOrganizations,
) => Promise<ResolvedOrganization | undefined>;

interface PublicSource {
  find: Source;
  /**
   * The 404 the route itself gives when the organisation (or the record naming it) does not
   * exist: a disabled organisation gets exactly this, so a caller cannot tell it from none.
   */
  absent: string;
}

/** Where each public operation that names an organisation finds it. */
const PUBLIC_ORG_SOURCES: Record<string, PublicSource> = {
  getOrgBySlug: {
    find: (r, find) => find.bySlug(field(r.params, "slug")),
    absent: "No organisation has this slug",
  },
  getNoticesForOrg: {
    find: (r, find) => find.byId(asId(field(r.params, "orgId"))),
    absent: "No such organisation",
  },
  getBannerConfig: {
    find: (r, find) => find.byId(asId(field(r.params, "orgId"))),
    absent: "No such organisation",
  },
  getResponsePeriods: {
    find: (r, find) => find.byId(asId(field(r.params, "orgId"))),
    absent: "No such organisation",
  },
  getNoticeById: {
    find: (r, find) => find.byOwner(noticeOwner, asId(field(r.params, "noticeId"))),
    absent: "No such published notice",
  },
  getWidgetConfig: {
    find: (r, find) => find.byOwner(domainGroupOwner, asId(field(r.query, "id"))),
    absent: "No domain group with this id serves this domain, or it has no published notice",
  },
  // The body is parsed (not yet validated) when the check runs, so it is read defensively. The
  // guest withdrawal is not here: withdrawing stays possible whatever the organisation's state
  // (DPDP s.6(4)), as the offline withdrawal does (offline/withdrawal/routes.ts).
  giveConsentAnonymous: {
    find: (r, find) => find.byId(asId(field(r.body, "organizationId"))),
    absent: "No such notice in this organisation",
  },
};

/** Whether the public operation names an organisation the access check must look at. */
export const namesOrganization = (operationId: string): boolean =>
  Object.hasOwn(PUBLIC_ORG_SOURCES, operationId);

/** Fails at start-up when a gated public operation has no way to find its organisation. */
export function assertCapabilityResolvable(operationId: string, isPublic: boolean): void {
  if (isPublic && !namesOrganization(operationId)) {
    throw new Error(
      `${operationId} is public and gated by a capability, but access/public-organizations.ts has no ` +
        "PUBLIC_ORG_SOURCES entry saying where its organisation is",
    );
  }
}

/**
 * The organisation a gated public request names, with its switches: organisations' switches through
 * the instance's CapabilityCache, record owners remembered by this instance.
 */
export class PublicOrganizations {
  /** Owning organisation by record id (ids carry their kind's prefix, so notices and groups never collide). */
  private readonly owners = new LRUCache<string, string>({ max: 50_000 });

  constructor(
    private readonly db: Queryable,
    private readonly capabilities: CapabilityCache,
  ) {}

  /** The organisation `operationId`'s request names; undefined when none resolves. */
  resolve(operationId: string, request: PublicRequest): Promise<ResolvedOrganization | undefined> {
    const source = PUBLIC_ORG_SOURCES[operationId];
    return source ? source.find(request, this) : Promise.resolve(undefined);
  }

  /** The NOT_FOUND the operation answers for an organisation that does not exist. */
  absent(operationId: string): Failure {
    return notFound(PUBLIC_ORG_SOURCES[operationId]?.absent);
  }

  async byId(organizationId: string | undefined): Promise<ResolvedOrganization | undefined> {
    if (organizationId === undefined) return undefined;
    const gate = await this.capabilities.readGate(this.db, organizationId);
    return gate && { organizationId, switches: gate.overrides, disabled: gate.disabled };
  }

  /** One indexed read that also returns the switches (a slug can change hands, so it is not cached). */
  async bySlug(slug: unknown): Promise<ResolvedOrganization | undefined> {
    if (typeof slug !== "string") return undefined;
    return capabilitySwitchesBySlug(this.db, slug);
  }

  async byOwner(
    ownerOf: (db: Queryable, recordId: string) => Promise<string | undefined>,
    recordId: string | undefined,
  ): Promise<ResolvedOrganization | undefined> {
    if (recordId === undefined) return undefined;
    let organizationId = this.owners.get(recordId);
    if (organizationId === undefined) {
      organizationId = await ownerOf(this.db, recordId);
      if (organizationId !== undefined) this.owners.set(recordId, organizationId);
    }
    return this.byId(organizationId);
  }
}
