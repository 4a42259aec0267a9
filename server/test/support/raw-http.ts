// Requests over a bare TCP socket, for what inject() and HTTP clients cannot send: malformed request
// lines, oversized headers, a body that never finishes. Loopback only.
import net from "node:net";
import type { FastifyInstance } from "fastify";

export interface RawResponse {
  /** 0 when nothing (or no status line) came back. */
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** The server closed the connection (false: it was still open when we stopped waiting). */
  closed: boolean;
  /** From connecting to the close (or to giving up). */
  elapsedMs: number;
}

/** Listens on a free loopback port (once) and returns it. */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  if (!app.server.listening) await app.listen({ host: "127.0.0.1", port: 0 });
  return (app.server.address() as net.AddressInfo).port;
}

/**
 * The first final response in `bytes` (an interim `100 Continue` is skipped); the body is cut to its
 * Content-Length when one is given.
 */
export function parseResponse(bytes: Buffer): Pick<RawResponse, "status" | "headers" | "body"> {
  const text = bytes.toString("latin1");
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) return { status: 0, headers: {}, body: "" };
  if (/^HTTP\/1\.[01] 1\d\d /.test(text)) return parseResponse(bytes.subarray(end + 4));
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  // Latin-1 has one character per byte, so text offsets are byte offsets.
  const rest = bytes.subarray(end + 4);
  const length = headers["content-length"] === undefined ? rest.length : Number(headers["content-length"]);
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0),
    headers,
    body: rest.subarray(0, length).toString("utf8"),
  };
}

/**
 * Connects, lets `send` write what it likes (it may keep writing for a while), and waits until the
 * server closes the connection or `waitMs` passes.
 */
export function rawExchange(
  port: number,
  send: (socket: net.Socket) => void,
  waitMs = 5000,
): Promise<RawResponse> {
  return new Promise((resolve) => {
    const started = Date.now();
    const chunks: Buffer[] = [];
    const socket = net.connect(port, "127.0.0.1");
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks)), closed, elapsedMs: Date.now() - started });
    };
    const timer = setTimeout(() => settle(false), waitMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", () => settle(true));
    // A reset after the server answered and closed: the close event follows.
    socket.on("error", () => undefined);
    socket.on("connect", () => send(socket));
  });
}

/** Sends `bytes` at once and waits for the server to answer and close. */
export function rawRequest(port: number, bytes: string | Buffer, waitMs = 5000): Promise<RawResponse> {
  return rawExchange(port, (socket) => socket.write(bytes), waitMs);
}
