// The access check: whether a request may call an operation. In order: the credential the
// operation's `security` asks for (access/credentials.ts), whether its organisation is disabled
// (403; accounts/organization-status.ts), the staff roles its route allows, and the capability that
// gates it (capabilities/capabilities.ts), checked for the credential's organisation, or on a public
// route for the organisation the request names (access/public-organizations.ts; a disabled one is
// answered as an unknown one). A switched-off capability answers exactly what an unknown
// route answers. The frame (http/app.ts) runs the check before validation, so a caller without a
// credential gets 401 before any 400, and a switched-off route is 404 even for malformed input.
//
// Most requests are answered by the instance's caches (a known service key, its organisation's
// switches); then the check answers synchronously, without a promise, since every async layer costs
// each request a promise and a microtask. Anything else takes the same checks asynchronously.
import type { ApiKeyCache } from "../accounts/api-keys.js";
import { organizationDisabled } from "../accounts/organization-status.js";
import {
  capabilityForOperation,
  isOn,
  type CapabilityCache,
  type CapabilityName,
} from "../capabilities/capabilities.js";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import type { Credential, SecurityKind, StaffRole } from "../lib/credentials.js";
import { Failure, forbidden } from "../lib/failure.js";
import { authenticate, cachedCredential, type CredentialRequest } from "./credentials.js";
import {
  assertCapabilityResolvable,
  namesOrganization,
  PublicOrganizations,
  type PublicRequest,
} from "./public-organizations.js";

export interface AccessDeps {
  config: Config;
  db: Database;
  clock: Clock;
  apiKeys: ApiKeyCache;
  capabilities: CapabilityCache;
}

/** An operation as its route declares it (http/access.ts's OperationAccess). */
export interface Operation {
  operationId: string;
  security: readonly SecurityKind[];
  roles?: readonly StaffRole[];
}

/** What the check reads of a request. */
export interface CheckedRequest extends CredentialRequest, PublicRequest {
  readonly url: string;
}

/** The credential a request may call the operation with; undefined on a public operation. */
export type Access = Credential | undefined;

/** Throws NOT_FOUND worded as for an unknown route (http/app.ts's not-found handler). */
function asIfAbsent(request: CheckedRequest): never {
  throw new Failure("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`);
}

function checkRole(credential: Credential, roles: readonly StaffRole[] | undefined): void {
  if (credential.kind === "staff" && roles && !roles.includes(credential.role)) {
    throw forbidden(`The ${credential.role} role cannot do this; it needs ${roles.join(" or ")}`);
  }
}

/**
 * The access policy handed to the frame: `checkFor(operation)` prepares, when the route is
 * registered, the one check its requests go through.
 */
export function createAccessPolicy(deps: AccessDeps) {
  const publicOrganizations = new PublicOrganizations(deps.db, deps.capabilities);

  function checkFor(operation: Operation): (request: CheckedRequest) => Access | Promise<Access> {
    const { operationId, security, roles } = operation;
    const capability = capabilityForOperation(operationId);
    if (security.length === 0) {
      if (capability !== undefined) assertCapabilityResolvable(operationId, true);
      else if (!namesOrganization(operationId)) return () => undefined;
      return (request) => checkPublic(request, operationId, capability);
    }
    return (request) => {
      const cached = cachedCredential(request, security, deps);
      if (cached) {
        // The organisation's entry says both whether it is disabled and what is switched off.
        const gate = deps.capabilities.peekGate(cached.organizationId);
        if (gate !== undefined && !gate.disabled) {
          if (capability !== undefined && !isOn(gate.overrides, capability)) asIfAbsent(request);
          return cached;
        }
      }
      return checkAuthenticated(request, security, roles, capability);
    };
  }

  async function checkAuthenticated(
    request: CheckedRequest,
    security: readonly SecurityKind[],
    roles: readonly StaffRole[] | undefined,
    capability: CapabilityName | undefined,
  ): Promise<Access> {
    const credential = await authenticate(request, security, deps);
    // The operator belongs to no organisation: no organisation's state or switches apply to it.
    if (credential.kind === "operator") {
      checkRole(credential, roles);
      return credential;
    }
    // An organisation that no longer exists has no state to apply; its routes answer for it.
    const gate = await deps.capabilities.readGate(deps.db, credential.organizationId);
    if (gate?.disabled) throw organizationDisabled();
    checkRole(credential, roles);
    if (capability !== undefined && gate && !isOn(gate.overrides, capability)) asIfAbsent(request);
    return credential;
  }

  async function checkPublic(
    request: CheckedRequest,
    operationId: string,
    capability: CapabilityName | undefined,
  ): Promise<Access> {
    const named = await publicOrganizations.resolve(operationId, request);
    // A disabled organisation is answered as one that does not exist, in the route's own words.
    if (named?.disabled) throw publicOrganizations.absent(operationId);
    if (named && capability !== undefined && !isOn(named.switches, capability)) asIfAbsent(request);
    return undefined;
  }

  return { checkFor };
}
