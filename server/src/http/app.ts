// Builds the Fastify application: contract-driven validation and serialisation, the single error
// path, request ids, the access check it is handed, and the route modules it is handed. The
// composition root (../app.ts) calls it for `guard serve` and for the tests, which use inject().
import { statusForCode, type ApiErrorCode } from "@guard/contract";
import { Readable } from "node:stream";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type preValidationHookHandler,
} from "fastify";
import type { Config } from "../config.js";
import type { Database } from "../db/database.js";
import type { Clock } from "../lib/clock.js";
import type { AccessPolicy } from "./access.js";
import { applyCors, corsForFailure, registerPreflights, type CorsGrant, type CorsPolicy } from "./cors.js";
import {
  contractComponentsSchema,
  contractOperation,
  servedOpenApiDocument,
  type ContractOperation,
} from "./contract.js";
import type { Credential, StaffRole } from "../lib/credentials.js";
import { Failure } from "../lib/failure.js";
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
import { clientErrorHandler, httpServerFactory } from "./node-server.js";
import { requestIdFor } from "./request-id.js";
import { serializerFactory } from "./lazy-serializers.js";
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

/**
 * What every route module receives from the frame. The composition root (app.ts) hands route
 * modules a context that extends it with the services its domains share.
 */
export interface RouteContext {
  config: Config;
  db: Database;
  clock: Clock;
  /** Readiness: false while shutting down. */
  state: { ready: boolean };
}

export interface RouteSpec<O extends OperationId = OperationId> {
  operationId: O;
  /** Staff roles allowed (staff-session routes); all roles when absent. */
  roles?: readonly StaffRole[];
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

export type RouteModule<C extends RouteContext = RouteContext> = (ctx: C) => AnyRouteSpec[];

export interface BuildAppOptions<C extends RouteContext> {
  /** What route modules receive. */
  context: C;
  /** Decides whether a request may call an operation (credential, staff role, capability). */
  access: AccessPolicy;
  /** Which origins a browser may call each operation from (CORS); none grant when absent. */
  cors?: CorsPolicy;
  routes: RouteModule<C>[];
  /** Check every response body against its contract schema and fail loudly (tests). */
  checkResponses?: boolean;
  /**
   * Compile every route's validators and serializers while the app is built rather than on first
   * use (a test that every schema compiles); default false, for a fast start.
   */
  compileSchemasEagerly?: boolean;
  /** A pino destination for logs (tests capture them); default stdout. */
  logStream?: { write(line: string): void };
}

export async function buildApp<C extends RouteContext>(
  options: BuildAppOptions<C>,
): Promise<FastifyInstance> {
  const ctx = options.context;
  const { config } = ctx;

  const logging = appLogging(config.logLevel, config.accessLog, options.logStream, config.logFormat);
  const app = Fastify({
    logger: logging.fastifyLogger,
    childLoggerFactory: logging.childLoggerFactory,
    logController: logging.logController,
    genReqId: requestIdFor,
    schemaController: {
      compilersFactory: {
        buildSerializer: serializerFactory(options.compileSchemasEagerly === true),
        // Never called: the validator compiler is set below, before any route. Named so that
        // Fastify does not load its default (a second Ajv) at start.
        buildValidator: () => {
          throw new Error("the application sets its own validator compiler (http/validation.ts)");
        },
      },
    },
    bodyLimit: config.bodyLimitBytes,
    // The HTTP server's deadlines, and catalog-shaped answers from the layer below Fastify (a
    // request the HTTP parser refuses or that arrives too slowly): http/node-server.ts.
    serverFactory: httpServerFactory(config),
    clientErrorHandler: clientErrorHandler(config),
    // X-Forwarded-For names the client only when the peer is a configured proxy (GUARD_TRUST_PROXY).
    trustProxy: config.trustProxy,
    // Failures the router meets before any hook runs (malformed URL encoding, an overlong path
    // segment) take the same error path instead of Fastify's own body.
    frameworkErrors: (error, request, reply) => void sendFailure(error, request, reply),
    return503OnClosing: false,
    routerOptions: { ignoreTrailingSlash: false, maxParamLength: 200 },
  });

  app.decorate("serviceLog", logging.serviceLogger ?? app.log);
  registerJsonBodyParser(app);

  const components = contractComponentsSchema();
  app.addSchema(components);
  app.setValidatorCompiler(createValidatorCompiler(components, options.compileSchemasEagerly === true));

  // Most deployments set no floor; then no request pays for the check.
  if (Object.keys(config.minSdkVersions).length > 0)
    app.addHook("onRequest", sdkFloorHook(config.minSdkVersions));

  app.setNotFoundHandler(async (request) => {
    throw new Failure("NOT_FOUND", `No route ${request.method} ${request.url.split("?")[0]}`);
  });

  const cors = options.cors;
  app.setErrorHandler(async (error, request, reply) => {
    if (cors && request.headers.origin !== undefined && request.routeOptions?.config?.corsGrants)
      await corsForFailure(cors, request, reply);
    return sendFailure(error, request, reply);
  });

  const responseChecker = options.checkResponses ? createResponseChecker(components) : undefined;
  const implemented = new Set<string>();
  const corsMethodsByPath = new Map<string, Set<string>>();
  for (const module of options.routes) {
    for (const spec of module(ctx)) {
      const grants = registerOperation(
        app,
        ctx,
        options.access,
        cors,
        spec as unknown as RegisteredRoute,
        responseChecker,
      );
      if (grants) {
        const methods = corsMethodsByPath.get(grants.path) ?? new Set<string>();
        corsMethodsByPath.set(grants.path, methods.add(grants.method));
      }
      implemented.add(spec.operationId);
    }
  }
  if (cors) registerPreflights(app, cors, corsMethodsByPath);
  const servedDocument = servedOpenApiDocument(implemented);
  app.decorate("implementedOperations", implemented);
  app.decorate("servedDocument", servedDocument);
  registerApiReference(app, servedDocument);
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
  interface FastifyContextConfig {
    /** The route answers CORS for some origins (http/cors.ts). */
    corsGrants?: boolean;
  }
}

/** Registers one operation's route; returns its path and method when browsers may call it (CORS). */
function registerOperation(
  app: FastifyInstance,
  ctx: RouteContext,
  access: AccessPolicy,
  cors: CorsPolicy | undefined,
  spec: RegisteredRoute,
  responseChecker: ReturnType<typeof createResponseChecker> | undefined,
): { path: string; method: string } | undefined {
  const op = contractOperation(spec.operationId);
  const successStatus = Number(Object.keys(op.schema.response).find((s) => s.startsWith("2")) ?? 200);
  assertIdempotencySupported(spec, op);
  const checkAccess = access.checkFor({
    operationId: op.operationId,
    security: op.security,
    ...(spec.roles ? { roles: spec.roles } : {}),
  });
  const corsGrant = cors?.grantFor({
    operationId: op.operationId,
    method: op.method,
    path: op.routePath,
    security: op.security,
  });

  app.route({
    method: op.method,
    url: op.routePath,
    // Access is checked in preValidation, so a caller without a credential gets 401 before any 400
    // and a switched-off route is 404 for any input; Fastify then validates params, query, headers
    // and body with the contract's schemas.
    schema: op.schema,
    config: { operationId: op.operationId, statuses: spec.statuses, corsGrants: corsGrant !== undefined },
    // A callback hook, so that a request the access check answers synchronously (from the
    // instance's caches) passes without a promise. A throw here takes the error path as a
    // rejection does.
    preValidation: corsGrant
      ? corsAfterAccess(checkAccess, corsGrant)
      : (request, reply, done) => {
          stampResponseHeaders(request, reply);
          const answer = checkAccess(request);
          if (answer instanceof Promise) {
            answer.then((credential) => {
              if (credential) request.credential = credential;
              done();
            }, done);
            return;
          }
          if (answer) request.credential = answer;
          done();
        },
    handler: async (request, reply) => {
      const result = await invokeHandler(ctx, spec, successStatus, request, reply);
      if (reply.sent) return reply;
      if (reply.statusCode === 200 && successStatus !== 200) reply.code(successStatus);
      if (result instanceof Readable) return streamed(op, reply, result);
      if (responseChecker)
        responseChecker(op.operationId, String(reply.statusCode), op.schema.response, result);
      return result;
    },
  });
  return corsGrant && { path: op.routePath, method: op.method };
}

/**
 * A streamed answer (a CSV export): only for a status whose contract body is not JSON, so no JSON
 * route can leak a stream and no streamed one skips its schema by accident. Fastify pipes a stream
 * without serialising it; the headers go out with the first chunk, and if the stream fails after
 * that Fastify destroys the socket, so the client sees a truncated download rather than a complete
 * looking one (the route logs why). A client that goes away destroys the stream, which stops it.
 */
function streamed(op: ContractOperation, reply: FastifyReply, body: Readable): Readable {
  const mediaType = op.streamedResponses[String(reply.statusCode)];
  if (!mediaType) {
    body.destroy();
    throw new Error(`${op.operationId} streamed a ${reply.statusCode} answer the contract declares as JSON`);
  }
  if (!reply.hasHeader("content-type")) reply.type(mediaType);
  return body;
}

/**
 * The preValidation hook of a route that may grant CORS: the access check, then the grant
 * (http/cors.ts), which needs the principal's organisation the check found. Routes that never grant
 * keep the plain hook above, so they pay nothing for browser access.
 */
function corsAfterAccess(
  checkAccess: ReturnType<AccessPolicy["checkFor"]>,
  corsGrant: CorsGrant,
): preValidationHookHandler {
  return (request, reply, done) => {
    stampResponseHeaders(request, reply);
    const afterAccess = (): void => {
      let granted: void | Promise<void>;
      try {
        granted = applyCors(corsGrant, request, reply);
      } catch (error) {
        done(error as Error);
        return;
      }
      if (granted instanceof Promise) granted.then(() => done(), done);
      else done();
    };
    let answer: ReturnType<typeof checkAccess>;
    try {
      answer = checkAccess(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (answer instanceof Promise) {
      answer.then((credential) => {
        if (credential) request.credential = credential;
        afterAccess();
      }, done);
      return;
    }
    if (answer) request.credential = answer;
    afterAccess();
  };
}
