// A small HTTP client for the reliability suite: node:http over loopback, so a test controls exactly
// what goes on the wire (header sizes, undecodable query bytes, lone surrogates escaped in JSON) and
// a refused connection or reset is an answer of its own, not an exception to unwind.
import http from "node:http";
import net from "node:net";

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface CallOptions {
  method?: string;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string as it is (with content-type application/json). */
  body?: unknown;
  /** Give up after this long (the answer is then a transport error). */
  timeoutMs?: number;
}

/** Why no HTTP answer came back (connection refused, reset, timeout). */
export class TransportError extends Error {
  override name = "TransportError";
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves with any HTTP answer, rejects with TransportError when none came back. */
export function call(baseUrl: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = { ...options.headers };
  let payload: Buffer | undefined;
  if (options.body !== undefined) {
    payload = Buffer.from(typeof options.body === "string" ? options.body : JSON.stringify(options.body));
    headers["content-type"] ??= "application/json";
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: options.method ?? "GET",
        path,
        headers,
        timeout: options.timeoutMs ?? 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("error", (error) => reject(new TransportError(error.message)));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text,
            json: <T>() => JSON.parse(text) as T,
          });
        });
      },
    );
    req.on("timeout", () => req.destroy(new TransportError(`no answer within ${options.timeoutMs}ms`)));
    req.on("error", (error) =>
      reject(error instanceof TransportError ? error : new TransportError(error.message)),
    );
    req.end(payload);
  });
}

/** Writes `raw` on a fresh connection and returns whatever comes back until the server closes it. */
export function rawExchange(baseUrl: string, raw: string | Buffer, timeoutMs = 10_000): Promise<string> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new TransportError(`connection still open after ${timeoutMs}ms`));
    }, timeoutMs);
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("error", () => undefined); // a reset after the answer is the server closing; keep what came
    socket.on("close", () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString("utf8"));
    });
    socket.write(raw);
  });
}

/** Status line and JSON body of a raw HTTP/1.1 answer (the body is undefined when it is not JSON). */
export function parseRawAnswer(raw: string): { status: number; body: unknown } {
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(raw)?.[1] ?? 0);
  const split = raw.indexOf("\r\n\r\n");
  let bodyText = split === -1 ? "" : raw.slice(split + 4);
  if (/\r\ntransfer-encoding: *chunked/i.test(raw.slice(0, split))) {
    // One chunk is all an error answer needs; drop the size lines.
    bodyText = bodyText
      .split("\r\n")
      .filter((_, i) => i % 2 === 1)
      .join("");
  }
  try {
    return { status, body: JSON.parse(bodyText) };
  } catch {
    return { status, body: undefined };
  }
}
