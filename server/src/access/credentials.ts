// Resolves the credential an operation's `security` asks for. Service keys and principal tokens
// both travel as `Authorization: Bearer`; the value itself tells them apart (`gk_live_`/`gk_test_`
// prefix vs a signed token), and one is never accepted where the other is required. The staff
// session travels as a cookie, and a cookie-authenticated write must echo the session's CSRF token.
import { createHash, timingSafeEqual } from "node:crypto";
import { parseCookie } from "cookie";
import type { ApiKeyCache } from "../accounts/api-keys.js";
import { verifyPrincipalToken } from "../accounts/principal-tokens.js";
import { resolveStaffSession, SESSION_COOKIE } from "../accounts/staff-sessions.js";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import type { Credential, SecurityKind, ServiceCredential } from "../lib/credentials.js";
import { forbidden, unauthorized } from "../lib/failure.js";
import { constantTimeEqual } from "../lib/secrets.js";

export interface CredentialDeps {
  config: Config;
  db: Database;
  clock: Clock;
  apiKeys: ApiKeyCache;
}

/** What credential resolution reads of a request. */
export interface CredentialRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The credential of an `Authorization: Bearer` header; undefined when absent or malformed. */
const bearerValue = (header: string | string[] | undefined): string | undefined =>
  typeof header === "string" ? BEARER.exec(header)?.[1] : undefined;

function bearerToken(request: CredentialRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const token = bearerValue(header);
  if (token === undefined) throw unauthorized("The Authorization header must be `Bearer <credential>`");
  return token;
}

const isServiceKey = (token: string) => token.startsWith("gk_live_") || token.startsWith("gk_test_");

function sessionCookie(request: CredentialRequest): string | undefined {
  const header = request.headers.cookie;
  return typeof header === "string" ? parseCookie(header)[SESSION_COOKIE] : undefined;
}

async function resolve(
  kind: SecurityKind,
  request: CredentialRequest,
  deps: CredentialDeps,
): Promise<Credential | undefined> {
  switch (kind) {
    case "serviceKey": {
      const token = bearerToken(request);
      if (!token) return undefined;
      if (!isServiceKey(token))
        throw unauthorized("This route needs a service API key, not a principal token");
      const key = await deps.apiKeys.resolve(deps.db, token, deps.clock.now());
      if (!key) throw unauthorized("Unknown or revoked service API key");
      return { kind: "service", organizationId: key.organizationId, apiKeyId: key.apiKeyId };
    }
    case "principalToken": {
      const token = bearerToken(request);
      if (!token) return undefined;
      if (isServiceKey(token))
        throw unauthorized("This route needs a principal access token, not a service API key");
      const principal = await verifyPrincipalToken(deps.config, token, deps.clock.now());
      if (!principal) throw unauthorized("Invalid or expired access token");
      if (
        principal.apiKeyId !== undefined &&
        !(await deps.apiKeys.isActive(deps.db, principal.organizationId, principal.apiKeyId))
      ) {
        throw unauthorized("The service key that issued this access token has been revoked");
      }
      return {
        kind: "principal",
        organizationId: principal.organizationId,
        principalId: principal.principalId,
        externalId: principal.externalId,
      };
    }
    case "operatorToken": {
      const token = bearerToken(request);
      if (!token) return undefined;
      const expected = deps.config.operatorTokenDigest;
      // Digests of equal length, compared in constant time: neither the token nor its length leaks.
      const given = createHash("sha256").update(token, "utf8").digest();
      if (!expected || !timingSafeEqual(given, expected)) {
        throw unauthorized(
          expected
            ? "Invalid operator token"
            : "No operator token is configured on this deployment (GUARD_OPERATOR_TOKEN)",
        );
      }
      return { kind: "operator" };
    }
    case "staffSession": {
      const cookie = sessionCookie(request);
      if (!cookie) return undefined;
      const session = await resolveStaffSession(deps.db, cookie, deps.clock.now());
      if (!session) throw unauthorized("The session has ended or expired; sign in again");
      if (!SAFE_METHODS.has(request.method)) {
        // Cookies ride along on cross-site requests; a header a foreign page cannot read or set does not.
        const sent = request.headers["x-csrf-token"];
        if (typeof sent !== "string" || !constantTimeEqual(sent, session.csrfToken)) {
          throw forbidden("X-CSRF-Token is missing or does not match the session");
        }
      }
      return { kind: "staff", ...session };
    }
  }
}

/**
 * The credential `authenticate` would resolve, when that needs no I/O: the operation takes a
 * service key first and the request carries one whose row this instance has cached. Undefined
 * means "run `authenticate`" (which also gives every refusal), never a refusal.
 */
export function cachedCredential(
  request: CredentialRequest,
  security: readonly SecurityKind[],
  deps: CredentialDeps,
): ServiceCredential | undefined {
  if (security[0] !== "serviceKey") return undefined;
  const token = bearerValue(request.headers.authorization);
  if (token === undefined || !isServiceKey(token)) return undefined;
  const key = deps.apiKeys.resolveCached(token, deps.clock.now());
  return key && { kind: "service", organizationId: key.organizationId, apiKeyId: key.apiKeyId };
}

const DESCRIBE: Record<SecurityKind, string> = {
  serviceKey: "a service API key (Authorization: Bearer gk_live_…)",
  principalToken: "a principal access token (Authorization: Bearer <token>)",
  staffSession: "a staff sign-in session",
  operatorToken: "the deployment's operator token (Authorization: Bearer <GUARD_OPERATOR_TOKEN>)",
};

/** The credential for an operation, trying its security alternatives in order. */
export async function authenticate(
  request: CredentialRequest,
  security: readonly SecurityKind[],
  deps: CredentialDeps,
): Promise<Credential> {
  for (const kind of security) {
    const credential = await resolve(kind, request, deps);
    if (credential) return credential;
  }
  throw unauthorized(`This route needs ${security.map((k) => DESCRIBE[k]).join(" or ")}`);
}
