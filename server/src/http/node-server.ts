// The Node HTTP server under Fastify: its deadlines, and the answers it gives before a request
// reaches Fastify (a request the HTTP parser refuses, one that arrives too slowly, an HTTP/1.1
// request without Host, an `Expect` other than 100-continue, CONNECT). Those answers are made as
// every other error is: the catalog body, with the status the catalog gives its code, so a client
// never meets a status and code pair the catalog does not define. Node's own statuses for some of
// them (408, 417, 431) become 400 and 413; the message says what happened, and the connection is
// closed after each.
import http from "node:http";
import type { Duplex } from "node:stream";
import { statusForCode, type ApiErrorCode } from "@guard/contract";
import type { FastifyInstance, FastifyServerFactory } from "fastify";
import type { Config } from "../config.js";
import type { ErrorBody } from "./errors.js";
import { newRequestId, requestIdFor } from "./request-id.js";

type Deadlines = Pick<
  Config,
  "headersTimeoutMs" | "requestTimeoutMs" | "keepAliveTimeoutMs" | "connectionTimeoutMs"
>;

interface Refusal {
  code: ApiErrorCode;
  message: string;
  field?: string;
}

function errorBody(refusal: Refusal, requestId: string): string {
  const body: ErrorBody = { code: refusal.code, error: refusal.message, requestId };
  if (refusal.field !== undefined) body.field = refusal.field;
  return JSON.stringify(body);
}

function refusalHeaders(body: string, requestId: string): Record<string, string> {
  return {
    "content-type": "application/json; charset=utf-8",
    "content-length": String(Buffer.byteLength(body)),
    "x-request-id": requestId,
    "x-content-type-options": "nosniff",
    connection: "close",
  };
}

/** Answers on a bare socket (no request object exists) and closes it, as Node's own handler does. */
function refuseOnSocket(socket: Duplex, refusal: Refusal): void {
  const requestId = newRequestId();
  const body = errorBody(refusal, requestId);
  const head = Object.entries(refusalHeaders(body, requestId))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  const status = statusForCode(refusal.code);
  socket.write(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n${head}\r\n${body}`);
  socket.destroy();
}

function refuseRequest(request: http.IncomingMessage, response: http.ServerResponse, refusal: Refusal): void {
  const requestId = requestIdFor(request);
  const body = errorBody(refusal, requestId);
  response.writeHead(statusForCode(refusal.code), refusalHeaders(body, requestId)).end(body);
}

/** What the HTTP parser's (or the deadline check's) error is answered with. */
function refusalFor(error: Error & { code?: string; reason?: string }, deadlines: Deadlines): Refusal {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        code: "PAYLOAD_TOO_LARGE",
        message: `The request line and headers exceed ${http.maxHeaderSize} bytes (a long query string or Authorization header counts)`,
      };
    case "HPE_CHUNK_EXTENSIONS_OVERFLOW":
      return { code: "PAYLOAD_TOO_LARGE", message: "The chunk extensions are too large" };
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return {
        code: "VALIDATION_ERROR",
        message: `The request did not arrive in time: send the headers within ${deadlines.headersTimeoutMs} ms and the whole request within ${deadlines.requestTimeoutMs} ms`,
      };
    default:
      // llhttp's reasons are fixed texts ("Invalid method encountered"); nothing of the request.
      return {
        code: "VALIDATION_ERROR",
        message: error.reason ? `Malformed HTTP request: ${error.reason}` : "Malformed HTTP request",
      };
  }
}

/**
 * Fastify's `clientErrorHandler`: Node's parser refused the bytes, or a deadline passed before the
 * request was complete. Answered only while no response has started on the socket (a response
 * already under way would be corrupted), then the socket is closed.
 */
export function clientErrorHandler(deadlines: Deadlines) {
  return function handleClientError(
    this: FastifyInstance,
    error: Error & { code?: string },
    socket: Duplex,
  ): void {
    // A reset connection has no one to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    this.log.debug({ err: error }, "client error");
    // `_httpMessage` is the response in progress on the socket, as Node's own handler checks it.
    const inFlight = (socket as { _httpMessage?: http.ServerResponse })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) refuseOnSocket(socket, refusalFor(error, deadlines));
    else socket.destroy();
  };
}

/**
 * How often Node checks the header and request deadlines: each is enforced up to one interval late,
 * so a quarter of the shorter one (Node's default is a fixed 30 s).
 */
function checkingIntervalMs(deadlines: Deadlines): number {
  const shorter = Math.min(deadlines.headersTimeoutMs, deadlines.requestTimeoutMs);
  return Math.min(30_000, Math.max(50, Math.floor(shorter / 4)));
}

/** Fastify's `serverFactory`: the HTTP server with Guard's deadlines and catalog-shaped refusals. */
export function httpServerFactory(deadlines: Deadlines): FastifyServerFactory {
  return (handler) => {
    const server = http.createServer(
      {
        headersTimeout: deadlines.headersTimeoutMs,
        requestTimeout: deadlines.requestTimeoutMs,
        keepAliveTimeout: deadlines.keepAliveTimeoutMs,
        connectionsCheckingInterval: checkingIntervalMs(deadlines),
        // Node would answer a missing Host with an empty 400; refused below with a catalog body.
        requireHostHeader: false,
      },
      (request, response) => {
        if (request.headers.host === undefined && request.httpVersion === "1.1") {
          refuseRequest(request, response, {
            code: "VALIDATION_ERROR",
            message: "An HTTP/1.1 request must send a Host header",
            field: "host",
          });
          return;
        }
        handler(request, response);
      },
    );
    // A connection with no traffic either way for this long is closed. The deadlines above cover
    // only receiving a request; this covers a handler that never answers and a client that stopped
    // reading its response.
    server.setTimeout(deadlines.connectionTimeoutMs);
    // Node would answer an unknown expectation with an empty 417.
    server.on("checkExpectation", (request: http.IncomingMessage, response: http.ServerResponse) =>
      refuseRequest(request, response, {
        code: "VALIDATION_ERROR",
        message: "Expect supports only 100-continue",
        field: "expect",
      }),
    );
    // Guard is no proxy; Node would close the connection without a word.
    server.on("connect", (request: http.IncomingMessage, socket: Duplex) =>
      refuseOnSocket(socket, {
        code: "NOT_FOUND",
        message: `No route CONNECT ${request.url ?? ""}`.trimEnd(),
      }),
    );
    return server;
  };
}
