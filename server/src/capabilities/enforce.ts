// The central capability check, run by http/app.ts for every gated operation: after
// authentication the organisation is the credential's; on a public route it is the one the request
// names (path, query or body). The switches come from the instance's cache; a notice or domain
// group is mapped to its organisation once (ownership never changes), and a slug, which can be
// given to another organisation, with one indexed read that also returns the switches. A
// switched-off capability answers exactly what an unknown route answers. When no organisation
// resolves (unknown or malformed id) nothing is checked: the handler or the validator answers 404
// or 400 as it would anyway.
import type { FastifyRequest } from "fastify";
import type { Queryable } from "../db/database.js";
import { Failure } from "../lib/failure.js";
import { isId } from "../lib/ids.js";
import {
  isOn,
  readCapabilityOverrides,
  type CapabilityCache,
  type CapabilityName,
  type CapabilityOverrides,
} from "./capabilities.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The organisation's capability overrides, once the central check has read them. */
    capabilityOverrides?: { organizationId: string; overrides: CapabilityOverrides };
  }
}

type Resolved = { organizationId: string; capabilities: CapabilityOverrides };
type OrgSource = (
  request: FastifyRequest,
  db: Queryable,
  cache: CapabilityCache,
) => Promise<Resolved | undefined>;

const field = (value: unknown, name: string): unknown =>
  value !== null && typeof value === "object" ? (value as Record<string, unknown>)[name] : undefined;

const asId = (value: unknown): string | undefined =>
  typeof value === "string" && isId(value) ? value : undefined;

/** An organisation named by id: its switches from the instance's cache (banner and capture traffic). */
async function byOrganizationId(
  db: Queryable,
  cache: CapabilityCache,
  organizationId: string | undefined,
): Promise<Resolved | undefined> {
  if (organizationId === undefined) return undefined;
  const capabilities = await cache.read(db, organizationId);
  return capabilities && { organizationId, capabilities };
}

/** An organisation named by slug: one indexed read (a slug can change hands, so it is not cached). */
async function bySlug(db: Queryable, slug: unknown): Promise<Resolved | undefined> {
  if (typeof slug !== "string") return undefined;
  const [row] = await db.query<{ organization_id: string; capabilities: CapabilityOverrides }>(
    "SELECT organization_id, capabilities FROM organizations WHERE slug = $1",
    [slug],
  );
  return row && { organizationId: row.organization_id, capabilities: row.capabilities };
}

const NOTICE_OWNER = "SELECT organization_id FROM notices WHERE notice_id = $1 LIMIT 1";
const DOMAIN_GROUP_OWNER = "SELECT organization_id FROM domain_groups WHERE domain_group_id = $1";

/** A notice or domain group named by id: its organisation (cached), then that one's switches. */
async function byOwner(
  db: Queryable,
  cache: CapabilityCache,
  ownerSql: string,
  recordId: string | undefined,
): Promise<Resolved | undefined> {
  if (recordId === undefined) return undefined;
  const organizationId = await cache.ownerOf(recordId, async () => {
    const [row] = await db.query<{ organization_id: string }>(ownerSql, [recordId]);
    return row?.organization_id;
  });
  return byOrganizationId(db, cache, organizationId);
}

/** Where each gated public operation names its organisation. */
const PUBLIC_ORG_SOURCES: Record<string, OrgSource> = {
  getOrgBySlug: (r, db) => bySlug(db, field(r.params, "slug")),
  getNoticesForOrg: (r, db, cache) => byOrganizationId(db, cache, asId(field(r.params, "orgId"))),
  getBannerConfig: (r, db, cache) => byOrganizationId(db, cache, asId(field(r.params, "orgId"))),
  getNoticeById: (r, db, cache) => byOwner(db, cache, NOTICE_OWNER, asId(field(r.params, "noticeId"))),
  getWidgetConfig: (r, db, cache) => byOwner(db, cache, DOMAIN_GROUP_OWNER, asId(field(r.query, "id"))),
  // The body is parsed (not yet validated) when the check runs, so it is read defensively.
  giveConsentAnonymous: (r, db, cache) => byOrganizationId(db, cache, asId(field(r.body, "organizationId"))),
};

/** Fails at start-up when a gated public operation has no way to find its organisation. */
export function assertCapabilityResolvable(operationId: string, isPublic: boolean): void {
  if (isPublic && !PUBLIC_ORG_SOURCES[operationId]) {
    throw new Error(
      `${operationId} is public and gated by a capability, but capabilities/enforce.ts has no ` +
        "PUBLIC_ORG_SOURCES entry saying where its organisation is",
    );
  }
}

/** Throws NOT_FOUND, worded as for an unknown route, when the capability is off. */
export async function enforceCapability(
  request: FastifyRequest,
  db: Queryable,
  cache: CapabilityCache,
  operationId: string,
  capability: CapabilityName,
): Promise<void> {
  const resolved = request.credential
    ? await byOrganizationId(db, cache, request.credential.organizationId)
    : await PUBLIC_ORG_SOURCES[operationId]?.(request, db, cache);
  if (resolved) applyCapability(request, resolved, capability);
}

/**
 * enforceCapability without I/O, for an authenticated request whose organisation's switches this
 * instance has cached: true when it has decided (having thrown NOT_FOUND if the capability is off),
 * false when enforceCapability must run.
 */
export function enforceCapabilityCached(
  request: FastifyRequest,
  cache: CapabilityCache,
  capability: CapabilityName,
): boolean {
  const organizationId = request.credential?.organizationId;
  if (organizationId === undefined) return false;
  const capabilities = cache.peek(organizationId);
  if (capabilities === undefined) return false;
  applyCapability(request, { organizationId, capabilities }, capability);
  return true;
}

function applyCapability(request: FastifyRequest, resolved: Resolved, capability: CapabilityName): void {
  request.capabilityOverrides = { organizationId: resolved.organizationId, overrides: resolved.capabilities };
  if (!isOn(resolved.capabilities, capability)) {
    throw new Failure("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`);
  }
}

/**
 * Whether a capability is on for the request's organisation, reusing what the central check found
 * for this request (from the instance's cache, which switches invalidate on every instance).
 */
export async function requestCapabilityEnabled(
  request: FastifyRequest,
  db: Queryable,
  organizationId: string,
  capability: CapabilityName,
): Promise<boolean> {
  const known = requestCapabilityKnown(request, organizationId, capability);
  if (known !== undefined) return known;
  const overrides = await readCapabilityOverrides(db, organizationId);
  if (!overrides) return false;
  request.capabilityOverrides = { organizationId, overrides };
  return isOn(overrides, capability);
}

/**
 * requestCapabilityEnabled without I/O: the answer when the central check has read this
 * organisation's switches for the request, undefined otherwise.
 */
export function requestCapabilityKnown(
  request: FastifyRequest,
  organizationId: string,
  capability: CapabilityName,
): boolean | undefined {
  const cached = request.capabilityOverrides;
  return cached?.organizationId === organizationId ? isOn(cached.overrides, capability) : undefined;
}
