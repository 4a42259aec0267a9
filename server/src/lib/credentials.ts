// Who is calling: the credential an authenticated request carries, resolved by the access check
// from the operation's `security`. Shared by the HTTP edge, the access check and the domains that
// record an actor.
export type StaffRole = "admin" | "dpo" | "viewer";
export const STAFF_ROLES: readonly StaffRole[] = ["admin", "dpo", "viewer"];

export interface ServiceCredential {
  kind: "service";
  organizationId: string;
  apiKeyId: string;
}

export interface PrincipalCredential {
  kind: "principal";
  organizationId: string;
  principalId: string;
  externalId: string;
}

export interface StaffCredential {
  kind: "staff";
  organizationId: string;
  staffId: string;
  role: StaffRole;
  sessionId: string;
  csrfToken: string;
  email: string;
  organizationSlug: string;
  expiresAt: number;
}

/**
 * The deployment's operator (GUARD_OPERATOR_TOKEN): creates and lists organisations over HTTP. It
 * belongs to no organisation, so it is accepted only by the operator routes.
 */
export interface OperatorCredential {
  kind: "operator";
}

export type Credential = ServiceCredential | PrincipalCredential | StaffCredential | OperatorCredential;

/**
 * Who made a write that a staff session or a service key may make, as the domains record it (chain
 * payloads, history rows): the staff member's id or the API key's id. Each domain's own actor type
 * (which may also allow "system") accepts it.
 */
export function staffOrServiceActor(credential: StaffCredential | ServiceCredential): {
  kind: "staff" | "service";
  id: string;
} {
  return credential.kind === "staff"
    ? { kind: "staff", id: credential.staffId }
    : { kind: "service", id: credential.apiKeyId };
}

/** The credential kinds an operation's contract `security` may accept, in the contract's names. */
export type SecurityKind = "serviceKey" | "principalToken" | "staffSession" | "operatorToken";
