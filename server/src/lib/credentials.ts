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

/** The credential kinds an operation's contract `security` may accept, in the contract's names. */
export type SecurityKind = "serviceKey" | "principalToken" | "staffSession" | "operatorToken";
