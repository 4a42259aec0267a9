// Builds the Fastify application: contract-driven validation and serialisation, the single error
// path, request ids, credential checks, and every domain's routes. Tests call buildApp() and use
// inject(); `guard serve` calls it and listens.
import { statusForCode, type ApiErrorCode } from "@guard/contract";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import { systemClock, type Clock } from "../lib/clock.js";
import { randomBase62 } from "../lib/ids.js";
import { ApiKeyCache } from "../accounts/api-keys.js";
import {
  CapabilityCache,
  capabilityForOperation,
  type CapabilityName,
} from "../capabilities/capabilities.js";
import { InvalidationFeed } from "../db/invalidation.js";
import {
  assertCapabilityResolvable,
  enforceCapability,
  enforceCapabilityCached,
} from "../capabilities/enforce.js";
import { authenticate, authenticateCached } from "./auth.js";
import { contractComponentsSchema, contractOperation, servedOpenApiDocument } from "./contract.js";
import type { Credential, StaffRole } from "../lib/credentials.js";
import { Failure, forbidden } from "../lib/failure.js";
import { type ErrorBody } from "./errors.js";
import { registerApiReference } from "./docs.js";
import { errorToFailure } from "./error-mapping.js";
import {
  assertIdempotencySupported,
  invokeHandler,
  type HandlerTools,
  type IdempotencyOption,
} from "./idempotency.js";
import { registerJsonBodyParser } from "./json-body.js";
import { appLogging } from "./logging.js";
import { stampResponseHeaders } from "./response-headers.js";
import type { ContractRequest, OperationId, SuccessBody } from "./route-types.js";
import { createResponseChecker, createValidatorCompiler } from "./validation.js";
import { sdkFloorHook } from "./sdk-floor.js";

declare module "fastify" {
  interface FastifyRequest {
    credential?: Credential;
  }
}

/** What every route module receives. */
export interface AppContext {
  config: Config;
  db: Database;
  clock: Clock;
  /** Readiness: false while shutting down. */
  state: { ready: boolean };
  /** Per-instance caches of what every authenticated request reads (kept honest by invalidations). */
  apiKeys: ApiKeyCache;
  capabilities: CapabilityCache;
}

export interface RouteSpec<O extends OperationId = OperationId> {
  operationId: O;
  /** Staff roles allowed (staff-session routes); all roles when absent. */
  roles?: readonly StaffRole[];
  /**
   * The capability whose switching off makes this route 404. Defaults to the operation's entry in
   * capabilities/capabilities.ts, so route modules need not set it.
   */
  capability?: CapabilityName;
  /**
   * Honour `Idempotency-Key` (http/idempotency.ts); the handler then does its writes through
   * `tools.write` and returns what it resolved to.
   */
  idempotency?: IdempotencyOption<O>;
  /** Statuses this route answers for a failure code instead of the catalog's (a contract exception). */
  statuses?: Partial<Record<ApiErrorCode, number>>;
  /**
   * Returns the response body; the status is the operation's first declared 2xx unless set on reply.
   * `tools.write(tx => ...)` runs a write in one transaction (and records an idempotent answer).
   */
  handler: (request: ContractRequest<O>, reply: FastifyReply, tools: HandlerTools) => Promise<SuccessBody<O>>;
}

/** One route of any operation: the operationId picks the types of its handler. */
export type AnyRouteSpec = { [O in OperationId]: RouteSpec<O> }[OperationId];

/**
 * What the frame sees of a route once registered: the same spec, with the request typed as
 * Fastify's. The contract's validation (before the handler runs) is what makes the typed view true.
 */
export type RegisteredRoute = Omit<RouteSpec, "handler" | "idempotency"> & {
  idempotency?: true | { publicScope: (request: FastifyRequest) => string };
  handler: (request: FastifyRequest, reply: FastifyReply, tools: HandlerTools) => Promise<unknown>;
};

export type RouteModule = (ctx: AppContext) => AnyRouteSpec[];

export interface BuildAppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  routes: RouteModule[];
  /** Check every response body against its contract schema and fail loudly (tests). */
  checkResponses?: boolean;
  /** A pino destination for logs (tests capture them); default stdout. */
  logStream?: { write(line: string): void };
}

// A request id from the caller is kept when it is a sane token, so one id follows a request
// through proxies; otherwise we mint one.
const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
function requestIdFor(request: { headers: Record<string, string | string[] | undefined> }): string {
  const incoming = request.headers["x-request-id"];
  if (typeof incoming === "string" && REQUEST_ID_PATTERN.test(incoming)) return incoming;
  return `req_${randomBase62(16)}`;
}

export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const invalidations = await InvalidationFeed.open(db);
  const ctx: AppContext = {
    config,
    db,
    clock: options.clock ?? systemClock,
    state: { ready: true },
    apiKeys: new ApiKeyCache(invalidations),
    capabilities: new CapabilityCache(invalidations),
  };

  const logging = appLogging(config.logLevel, options.logStream);
  const app = Fastify({
    logger: logging.fastifyLogger,
    childLoggerFactory: logging.childLoggerFactory,
    genReqId: requestIdFor,
    bodyLimit: config.bodyLimitBytes,
    trustProxy: false,
    // Failures the router meets before any hook runs (malformed URL encoding, an overlong path
    // segment) take the same error path instead of Fastify's own body.
    frameworkErrors: (error, request, reply) => void sendFailure(error, request, reply),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  });

  app.decorate("serviceLog", logging.serviceLogger ?? app.log);
  app.addHook("onClose", () => invalidations.close());
  registerJsonBodyParser(app);

  const components = contractComponentsSchema();
  app.addSchema(components);
  app.setValidatorCompiler(createValidatorCompiler(components));

  // Most deployments set no floor; then no request pays for the check.
  if (Object.keys(config.minSdkVersions).length > 0)
    app.addHook("onRequest", sdkFloorHook(config.minSdkVersions));

  app.setNotFoundHandler(async (request) => {
    throw new Failure("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`);
  });

  app.setErrorHandler(async (error, request, reply) => sendFailure(error, request, reply));

  const responseChecker = options.checkResponses ? createResponseChecker(components) : undefined;
  const implemented = new Set<string>();
  for (const module of options.routes) {
    for (const spec of module(ctx)) {
      registerOperation(app, ctx, spec as unknown as RegisteredRoute, responseChecker);
      implemented.add(spec.operationId);
    }
  }
  const servedDocument = servedOpenApiDocument(implemented);
  app.decorate("implementedOperations", implemented);
  app.decorate("servedDocument", servedDocument);
  await registerApiReference(app, servedDocument);
  return app;
}

/**
 * The one error path: `{code, error, requestId, field?}` with the status the catalog gives the
 * code, unless the route declares another for it (RouteSpec.statuses).
 */
function sendFailure(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  stampResponseHeaders(request, reply);
  const failure = errorToFailure(error);
  const routeStatuses = (request.routeOptions?.config as { statuses?: RouteSpec["statuses"] } | undefined)
    ?.statuses;
  const status = routeStatuses?.[failure.code] ?? statusForCode(failure.code);
  if (status >= 500) request.log.error({ err: error }, "request failed");
  const body: ErrorBody = { code: failure.code, error: failure.message, requestId: request.id };
  if (failure.field !== undefined) body.field = failure.field;
  if (failure.details.retryAfterSeconds !== undefined)
    reply.header("retry-after", String(failure.details.retryAfterSeconds));
  return reply.code(status).type("application/json; charset=utf-8").send(body);
}

declare module "fastify" {
  interface FastifyInstance {
    /** The service's logger, for work outside requests (delivery workers, sweeps). */
    serviceLog: FastifyBaseLogger;
    implementedOperations: Set<string>;
    servedDocument: Record<string, unknown>;
  }
}

function registerOperation(
  app: FastifyInstance,
  ctx: AppContext,
  spec: RegisteredRoute,
  responseChecker: ReturnType<typeof createResponseChecker> | undefined,
): void {
  const op = contractOperation(spec.operationId);
  const successStatus = Number(Object.keys(op.schema.response).find((s) => s.startsWith("2")) ?? 200);
  const capability = spec.capability ?? capabilityForOperation(spec.operationId);
  if (capability) assertCapabilityResolvable(op.operationId, op.security.length === 0);
  assertIdempotencySupported(spec, op);

  /** The credential and capability checks, as far as this instance's caches answer them. */
  const checkAccessCached = (request: FastifyRequest): boolean => {
    if (op.security.length === 0) return capability === undefined;
    const credential = authenticateCached(request, op.security, ctx);
    if (!credential) return false;
    request.credential = credential;
    return capability === undefined || enforceCapabilityCached(request, ctx.capabilities, capability);
  };

  const checkAccess = async (request: FastifyRequest): Promise<void> => {
    if (op.security.length > 0) {
      const credential = await authenticate(request, op.security, ctx);
      if (credential.kind === "staff" && spec.roles && !spec.roles.includes(credential.role)) {
        throw forbidden(`The ${credential.role} role cannot do this; it needs ${spec.roles.join(" or ")}`);
      }
      request.credential = credential;
    }
    // After authentication (so the organisation is the credential's) and before validation, so
    // a switched-off route answers 404 as if absent, not a 400 about its input.
    if (capability) await enforceCapability(request, ctx.db, ctx.capabilities, op.operationId, capability);
  };

  app.route({
    method: op.method,
    url: op.routePath,
    // Credentials are checked in preValidation, so a caller without one gets 401 before any 400;
    // Fastify then validates params, query, headers and body with the contract's schemas.
    schema: op.schema,
    config: { operationId: op.operationId, statuses: spec.statuses },
    // A callback hook, so that a request the caches answer (a known service key, its organisation's
    // switches) passes without a promise; anything else takes checkAccess. Async all the way down,
    // the check cost every request about ten async layers, each a promise, a then-lookup on its
    // result and a microtask: with the handler's own layers (invokeHandler, the gate's capability
    // read) this took a gate request from 154 000 to 141 000 instructions by callgrind. A throw
    // here takes the error path as a rejection does.
    preValidation: (request, reply, done) => {
      stampResponseHeaders(request, reply);
      if (checkAccessCached(request)) return done();
      checkAccess(request).then(() => done(), done);
    },
    handler: async (request, reply) => {
      const result = await invokeHandler(ctx, spec, successStatus, request, reply);
      if (reply.sent) return reply;
      if (reply.statusCode === 200 && successStatus !== 200) reply.code(successStatus);
      if (responseChecker)
        responseChecker(op.operationId, String(reply.statusCode), op.schema.response, result);
      return result;
    },
  });
}
