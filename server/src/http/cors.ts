// Browser access (CORS): the frame's half. Which origins an operation grants is a policy the
// composition root hands in (access/cors.ts decides it from the organisations' registered domains);
// the frame asks it, adds the response headers and answers preflights. An operation the policy
// gives no grant function (service-key and staff routes) gets no hook at all, so those routes, the
// Consent Gate among them, pay nothing; a request without `Origin` pays one header lookup.
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Credential, SecurityKind } from "../lib/credentials.js";
import { Failure } from "../lib/failure.js";
import type { AccessRequest } from "./access.js";
import { stampResponseHeaders } from "./response-headers.js";

/** An operation as the CORS policy is told of it when its route is registered. */
export interface CorsOperation {
  operationId: string;
  method: string;
  /** The route's path as Fastify declares it (`/api/v1/org/:orgId/notices`). */
  path: string;
  security: readonly SecurityKind[];
}

/** What the grant reads of a request: its parts, and the credential the access check found. */
export interface CorsRequest extends AccessRequest {
  readonly credential?: Credential;
}

/** Whether `origin` may read this request's answer; synchronous when the policy's cache knows. */
export type CorsGrant = (origin: string, request: CorsRequest) => boolean | Promise<boolean>;

export interface CorsPolicy {
  /** The grant of one operation, prepared at registration; undefined when it never grants. */
  grantFor(operation: CorsOperation): CorsGrant | undefined;
  /**
   * Whether a preflight from `origin` is granted. A preflight carries no body or credential, so
   * the policy answers without knowing the organisation; the actual request is checked again.
   */
  preflight(origin: string): boolean | Promise<boolean>;
}

/** Request headers a browser may send: the contract's and the SDKs'. */
const ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "idempotency-key",
  "x-guard-sdk",
  "x-guard-retry-count",
  "x-request-id",
].join(", ");

/** Response headers a browser script may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS = ["x-request-id", "retry-after", "idempotent-replayed"].join(", ");

/** How long a browser may reuse a preflight answer, seconds (a removed domain stops within this). */
const PREFLIGHT_MAX_AGE = "600";

const SAFE_METHODS = new Set(["GET", "HEAD"]);

declare module "fastify" {
  interface FastifyRequest {
    /** Set once this request's origin has been granted or refused (the error path then leaves it). */
    corsDecided?: boolean;
  }
}

/** A browser's own-origin request carries `Origin` too; it needs no grant. */
function sameOrigin(origin: string, request: FastifyRequest): boolean {
  const host = request.headers.host;
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host.toLowerCase();
  } catch {
    return false;
  }
}

function grantHeaders(reply: FastifyReply, origin: string): void {
  reply.header("access-control-allow-origin", origin);
  reply.header("access-control-expose-headers", EXPOSED_HEADERS);
}

/**
 * Runs after the access check (so a principal request's organisation is known): grants the
 * origin, or refuses a cross-origin write from an origin its organisation did not register before
 * the handler runs. A refused read is still answered, without a grant, so the browser withholds it.
 * Returns a promise only when the policy had to read.
 */
export function applyCors(
  grant: CorsGrant,
  request: FastifyRequest,
  reply: FastifyReply,
): void | Promise<void> {
  const origin = request.headers.origin;
  if (origin === undefined) return;
  reply.header("vary", "Origin");
  if (sameOrigin(origin, request)) return;
  const decide = (granted: boolean): void => {
    request.corsDecided = true;
    if (granted) grantHeaders(reply, origin);
    else if (!SAFE_METHODS.has(request.method))
      throw new Failure(
        "FORBIDDEN",
        `Origin ${origin} is not one of this organisation's registered domains; browser writes ` +
          "are accepted only from them",
        { field: "Origin" },
      );
  };
  const answer = grant(origin, request);
  if (answer instanceof Promise) return answer.then(decide);
  decide(answer);
}

/**
 * On the error path of a granting route whose origin was not yet decided (the access check or the
 * router failed first): the catalog error body names no organisation's data, so it is readable
 * from any origin a preflight would grant, and a browser client can show its code and request id.
 */
export async function corsForFailure(
  policy: CorsPolicy,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const origin = request.headers.origin;
  if (origin === undefined || request.corsDecided) return;
  reply.header("vary", "Origin");
  if (!sameOrigin(origin, request) && (await policy.preflight(origin))) grantHeaders(reply, origin);
}

/**
 * Registers `OPTIONS` for each path with a granting operation. A preflight for a method the path
 * does not grant, or from an origin no organisation registered, is answered 204 without grants
 * (the browser then refuses the request); a path with no granting operation, and an `OPTIONS`
 * without `Origin` and `Access-Control-Request-Method`, keep the catalog 404.
 */
export function registerPreflights(
  app: FastifyInstance,
  policy: CorsPolicy,
  methodsByPath: ReadonlyMap<string, ReadonlySet<string>>,
): void {
  for (const [path, methods] of methodsByPath) {
    const allowed = [...methods].join(", ");
    app.route({
      method: "OPTIONS",
      url: path,
      handler: async (request, reply) => {
        stampResponseHeaders(request, reply);
        const origin = request.headers.origin;
        const asked = request.headers["access-control-request-method"];
        // An OPTIONS that is not a preflight is what it was before browser access: no such route.
        if (typeof origin !== "string" || typeof asked !== "string")
          throw new Failure("NOT_FOUND", `No route OPTIONS ${request.url.split("?")[0]}`);
        reply.header("vary", "Origin");
        if (methods.has(asked.toUpperCase()) && (await policy.preflight(origin))) {
          reply.header("access-control-allow-origin", origin);
          reply.header("access-control-allow-methods", allowed);
          reply.header("access-control-allow-headers", ALLOWED_HEADERS);
          reply.header("access-control-max-age", PREFLIGHT_MAX_AGE);
        }
        return reply.code(204).send();
      },
    });
  }
}
