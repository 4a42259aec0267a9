// A real webhook receiver for tests: node:http on 127.0.0.1, answering with a status the test
// chooses, recording every request's raw body and headers. It can go down (connection refused),
// come back on the same port, answer late, or hang (hold requests without answering), and it counts
// the requests it holds at once.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ReceivedRequest {
  /** Path and query the request was sent to. */
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body as received, before any JSON parsing. */
  body: string;
  eventId: string;
  /** The status this receiver answered with (0 while held unanswered). */
  status: number;
  /** Date.now() when the whole body had arrived. */
  receivedAt: number;
}

export interface Receiver {
  url: string;
  /** Every request, answered or not by a 2xx. */
  hits: ReceivedRequest[];
  /** Requests answered with a 2xx: what the receiver actually accepted. */
  accepted(): ReceivedRequest[];
  /** How many times each eventId was accepted. */
  acceptedCounts(): Map<string, number>;
  respondWith(status: number | ((request: ReceivedRequest) => number)): void;
  /** Answers each request only after `ms` (0: at once). */
  respondAfter(ms: number): void;
  /** Holds every request from now on without answering, until `stopHanging()`, goDown() or close(). */
  hang(): void;
  /** Answers new requests again; requests still held are dropped (their sockets destroyed). */
  stopHanging(): void;
  /** Requests received and not yet answered, now. */
  inFlight(): number;
  /** The most requests held unanswered at once since the last `resetStats()`. */
  maxInFlight(): number;
  resetStats(): void;
  /** Stops listening: senders get ECONNREFUSED. */
  goDown(): Promise<void>;
  /** Listens again on the same port. */
  comeBack(): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  let decide: (request: ReceivedRequest) => number = () => 200;
  let delayMs = 0;
  let hanging = false;
  const held = new Set<http.ServerResponse>();
  let open = 0;
  let maxOpen = 0;
  const hits: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    // Counted until answered or until the sender gives up (a timeout or abort closes the socket).
    let counted = true;
    const done = () => {
      if (counted) open--;
      counted = false;
    };
    res.on("close", done);
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let eventId = "";
      try {
        eventId = String((JSON.parse(body) as { eventId?: unknown }).eventId ?? "");
      } catch {
        // Recorded with an empty eventId; the test's assertions then fail visibly.
      }
      const hit: ReceivedRequest = {
        path: req.url ?? "",
        headers: req.headers,
        body,
        eventId,
        status: 0,
        receivedAt: Date.now(),
      };
      hits.push(hit);
      if (hanging) {
        held.add(res);
        res.on("close", () => held.delete(res));
        return;
      }
      const answer = () => {
        hit.status = decide(hit);
        res.writeHead(hit.status, { "content-type": "text/plain" }).end("ok");
      };
      if (delayMs > 0) setTimeout(answer, delayMs);
      else answer();
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  let up = true;
  const goDown = async () => {
    if (!up) return;
    up = false;
    hanging = false;
    held.clear();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    accepted: () => hits.filter((h) => h.status >= 200 && h.status <= 299),
    acceptedCounts: () => {
      const counts = new Map<string, number>();
      for (const hit of hits) {
        if (hit.status >= 200 && hit.status <= 299)
          counts.set(hit.eventId, (counts.get(hit.eventId) ?? 0) + 1);
      }
      return counts;
    },
    respondWith: (status) => {
      decide = typeof status === "number" ? () => status : status;
    },
    respondAfter: (ms) => {
      delayMs = ms;
    },
    hang: () => {
      hanging = true;
    },
    stopHanging: () => {
      hanging = false;
      for (const res of held) res.destroy();
      held.clear();
    },
    inFlight: () => open,
    maxInFlight: () => maxOpen,
    resetStats: () => {
      maxOpen = open;
    },
    goDown,
    comeBack: async () => {
      if (up) return;
      await listen(port);
      up = true;
    },
    close: goDown,
  };
}
