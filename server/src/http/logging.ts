// How the app logs: one set of pino options (redaction, a path-only request serializer), and who
// owns the logger. Fastify logs each request ("incoming request", "request completed") at info. A
// Fastify that has a logger times every request and listens for the end of its response to write
// the second line, whatever the level, a cost every request pays. So those access lines are off
// unless asked for (GUARD_ACCESS_LOG=on, and a level of info or below): then Fastify gets no logger
// of its own; each request's logger (`request.log`, for errors and warnings, bound to the request
// id) and the service logger come from Guard's own pino, made with the same options.
import {
  LogController,
  type FastifyBaseLogger,
  type FastifyRequest,
  type FastifyServerOptions,
} from "fastify";
import { createRequire } from "node:module";
import pino from "pino";
import type PinoPretty from "pino-pretty";
import type { Config } from "../config.js";
import { lazyRequestLogger } from "./lazy-request-logger.js";

type LogStream = { write(line: string): void };

function loggerOptions(level: Config["logLevel"]) {
  return {
    level,
    // Credentials never reach the logs: headers are not logged at all, and these paths are
    // redacted in case a serializer or a handler logs them.
    redact: {
      paths: [
        "req.headers.authorization",
        "req.headers.cookie",
        'req.headers["x-csrf-token"]',
        'res.headers["set-cookie"]',
        "*.password",
        "*.key",
        "*.accessToken",
      ],
      censor: "[redacted]",
    },
    serializers: {
      // Path only: query strings can hold personal data (`consent-status?email=`).
      req: (request: FastifyRequest) => ({
        method: request.method,
        path: redactedPath(request.url.split("?")[0] ?? ""),
        requestId: request.id,
      }),
    },
  };
}

/**
 * The principal pages whose path carries a bearer token (a QR link, a receipt's link, a withdrawal
 * slip): whoever reads the token can act on the consent, so the access log keeps the page's name only.
 */
const TOKEN_PATH = /^(\/(?:withdraw|offline-consent|consent)\/)[^/]+/;

/** `path` with the token segment of a tokened principal page replaced by `[redacted]`. */
export function redactedPath(path: string): string {
  return path.replace(TOKEN_PATH, "$1[redacted]");
}

/**
 * Where log lines go when the app is not handed a stream: stdout as JSON, or as readable lines
 * (pino-pretty, written synchronously like pino's own destination) when the format asks for them
 * or, with `auto`, when stdout is a terminal. Undefined means pino's JSON on stdout.
 */
function readableStream(format: Config["logFormat"]): LogStream | undefined {
  const terminal = process.stdout.isTTY === true;
  if (format === "json" || (format === "auto" && !terminal)) return undefined;
  return prettyLogStream({ colorize: terminal });
}

/** pino-pretty as Guard shows it: one line of time of day, level, message, then the fields; no pid or host. */
export function prettyLogStream(options: { colorize: boolean; destination?: LogStream }): LogStream {
  // Loaded only when readable lines are wanted, so a JSON-logging start does not load it.
  const pinoPretty = createRequire(import.meta.url)("pino-pretty") as typeof PinoPretty;
  return pinoPretty({
    sync: true,
    colorize: options.colorize,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
    singleLine: true,
    ...(options.destination ? { destination: options.destination as NodeJS.WritableStream } : {}),
  });
}

/** Whether requests are logged as they come and go (Fastify writes those lines at info). */
function requestLogging(level: Config["logLevel"], accessLog: boolean): boolean {
  return accessLog && (level === "info" || level === "debug" || level === "trace");
}

export interface AppLogging {
  /** Fastify's `logger` option. */
  fastifyLogger: FastifyServerOptions["logger"];
  /** Fastify's `childLoggerFactory` option: each request's logger, made only when written to. */
  childLoggerFactory: NonNullable<FastifyServerOptions["childLoggerFactory"]>;
  /** Guard's own logger when Fastify has none; undefined when Fastify's logger is the one. */
  serviceLogger: FastifyBaseLogger | undefined;
  /**
   * Fastify's `logController`: one that writes no per-request lines when the access log is off
   * (without a logger of its own Fastify would still write "incoming request" through the
   * request's logger); undefined keeps Fastify's own lines.
   */
  logController: LogController | undefined;
}

/**
 * The logging options of an app logging at `level` to `stream` (default stdout), with a line per
 * request as it comes and goes when `accessLog` is on.
 */
export function appLogging(
  level: Config["logLevel"],
  accessLog: boolean,
  given: LogStream | undefined,
  format: Config["logFormat"] = "json",
): AppLogging {
  const options = loggerOptions(level);
  const stream = given ?? readableStream(format);
  if (requestLogging(level, accessLog)) {
    return {
      fastifyLogger: { ...options, ...(stream ? { stream } : {}) },
      childLoggerFactory: lazyRequestLogger,
      serviceLogger: undefined,
      logController: undefined,
    };
  }
  const own = stream ? pino(options, stream) : pino(options);
  return {
    fastifyLogger: false,
    childLoggerFactory: (_noLogger, bindings, childOptions) => lazyRequestLogger(own, bindings, childOptions),
    serviceLogger: own,
    logController: new LogController({ disableRequestLogging: true }),
  };
}
