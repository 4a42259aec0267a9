// What the frame asks of the access check it is handed (buildApp's `access`): for each operation,
// whether a request may call it. The frame knows no credential store, capability or staff rule;
// the composition root (app.ts) hands it the check that does (access/).
import type { Credential, SecurityKind, StaffRole } from "../lib/credentials.js";

/** An operation as the access check is told of it when its route is registered. */
export interface OperationAccess {
  operationId: string;
  /** The credential kinds the contract accepts, in order; empty for a public operation. */
  security: readonly SecurityKind[];
  /** Staff roles allowed (RouteSpec.roles); all roles when absent. */
  roles?: readonly StaffRole[];
}

/** What the access check reads of a request: its parts as received and parsed, not yet validated. */
export interface AccessRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly params: unknown;
  readonly query: unknown;
  readonly body: unknown;
}

/**
 * Whether a request may call the operation: the credential it calls it with (undefined for a
 * public operation), or a thrown Failure (UNAUTHORIZED, FORBIDDEN, or NOT_FOUND while a capability
 * gating the operation is switched off). The answer is synchronous when the instance's caches give
 * it, a promise otherwise.
 */
export type AccessCheck = (
  request: AccessRequest,
) => Credential | undefined | Promise<Credential | undefined>;

export interface AccessPolicy {
  /**
   * The check of one operation, prepared once when its route is registered; throws there when the
   * operation's access cannot be checked (so a misconfigured route fails at start-up).
   */
  checkFor(operation: OperationAccess): AccessCheck;
}
