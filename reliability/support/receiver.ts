// A webhook receiver on 127.0.0.1 that can hang: in "hang" mode it reads the request and never
// answers (the sender waits for its own timeout), in "ok" mode it answers 200. Every request is
// recorded with its raw body, headers and arrival time.
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Hit {
  headers: http.IncomingHttpHeaders;
  body: string;
  eventId: string;
  organizationId: string;
  receivedAt: number;
  answered: boolean;
}

export interface HangingReceiver {
  url: string;
  hits: Hit[];
  /** Event ids answered 200. */
  accepted(): Set<string>;
  setMode(mode: "hang" | "ok"): void;
  close(): Promise<void>;
}

export async function startHangingReceiver(mode: "hang" | "ok"): Promise<HangingReceiver> {
  let current = mode;
  const hits: Hit[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      let parsed: { eventId?: string; organizationId?: string } = {};
      try {
        parsed = JSON.parse(body) as typeof parsed;
      } catch {
        // Kept with empty ids: the assertions on ids then fail visibly.
      }
      const hit: Hit = {
        headers: req.headers,
        body,
        eventId: String(parsed.eventId ?? ""),
        organizationId: String(parsed.organizationId ?? ""),
        receivedAt: Date.now(),
        answered: current === "ok",
      };
      hits.push(hit);
      if (hit.answered) res.writeHead(200, { "content-type": "text/plain" }).end("ok");
      // In "hang" mode the response is never written; close() drops the connection.
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    hits,
    accepted: () => new Set(hits.filter((h) => h.answered).map((h) => h.eventId)),
    setMode: (next) => {
      current = next;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
