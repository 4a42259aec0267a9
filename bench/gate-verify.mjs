// `npm run bench`: Consent Gate throughput. Measures POST /api/v1/consent/verify (every decision
// durably logged) against a bare Fastify JSON route, same machine, same run, same load settings,
// on the embedded database and on a throwaway PostgreSQL server running with its default
// durability (fsync and synchronous_commit on: a decision is answered only after its WAL record
// is flushed). Each concurrency level is a separate pair of runs. Prints figures; asserts nothing.
// Target (issue 3): the gate reaches at least half the bare route's requests/s.
//   node --import tsx bench/gate-verify.mjs [--duration 10] [--connections 16,64] [--engines pglite,postgres]
import { spawn } from "node:child_process";
import readline from "node:readline";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "10" },
    connections: { type: "string", default: "16,64" },
    engines: { type: "string", default: "pglite,postgres" },
  },
});
const duration = Number(values.duration);
const concurrencies = values.connections.split(",").map(Number);

/** Starts a target process and resolves with its first JSON line. */
function startTarget(args) {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", new URL("./target-server.mjs", import.meta.url).pathname, ...args],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const lines = readline.createInterface({ input: child.stdout });
  const next = () =>
    new Promise((resolve, reject) => {
      lines.once("line", (line) => resolve(JSON.parse(line)));
      child.once("exit", (code) => reject(new Error(`target exited with ${code}`)));
    });
  return next().then((ready) => ({
    ready,
    stop: async () => {
      const last = next();
      child.kill("SIGTERM");
      return last;
    },
  }));
}

async function http(method, url, { headers = {}, body } = {}) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

function load(url, { headers, body, connections }) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        connections,
        duration,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

const summarise = (name, engine, connections, result) => ({
  target: name,
  engine,
  connections,
  "req/s": Math.round(result.requests.average),
  "p50 ms": result.latency.p50,
  "p99 ms": result.latency.p99,
  requests: result.requests.total,
  non2xx: result.non2xx + result.errors,
});

async function benchGuard(engine, databaseUrl) {
  const target = await startTarget(databaseUrl ? ["guard", databaseUrl] : ["guard"]);
  const rows = [];
  try {
    const { url, apiKey, organizationId, noticeId } = target.ready;
    const auth = { authorization: `Bearer ${apiKey}` };
    const consent = await http("POST", `${url}/api/v1/consents/anonymous`, {
      body: {
        organizationId,
        noticeId,
        purpose: "Marketing",
        dataTypes: ["email"],
        anonymousId: "bench-anon-1",
      },
    });
    const request = { headers: auth, body: { consentId: consent.consentId } };
    for (const connections of concurrencies) {
      // Warm-up, then the measured run.
      await load(`${url}/api/v1/consent/verify`, { ...request, connections });
      const result = await load(`${url}/api/v1/consent/verify`, { ...request, connections });
      rows.push(summarise("gate verify", engine, connections, result));
    }
  } finally {
    const { gateDecisionsLogged } = await target.stop();
    for (const row of rows) row.logged = gateDecisionsLogged;
  }
  return rows;
}

async function benchBare() {
  const target = await startTarget(["bare"]);
  const rows = [];
  try {
    for (const connections of concurrencies) {
      const request = { body: { consentId: "cns_bench" }, connections };
      await load(`${target.ready.url}/bare`, request);
      const result = await load(`${target.ready.url}/bare`, request);
      rows.push({ ...summarise("bare fastify", "-", connections, result), logged: "-" });
    }
  } finally {
    await target.stop();
  }
  return rows;
}

const rows = await benchBare();
const bareAt = new Map(rows.map((row) => [row.connections, row["req/s"]]));
for (const engine of values.engines.split(",")) {
  if (engine === "pglite") rows.push(...(await benchGuard("pglite")));
  if (engine === "postgres") {
    const cluster = await startThrowawayPostgres({ log: () => undefined, durable: true });
    try {
      rows.push(...(await benchGuard("postgres", cluster.url)));
    } finally {
      await cluster.stop();
    }
  }
}
for (const row of rows) row["vs bare"] = (row["req/s"] / bareAt.get(row.connections)).toFixed(2);
console.log(
  `\nConsent Gate benchmark: ${duration} s per run after an equal warm-up, Node ${process.version}, ` +
    `PostgreSQL with fsync and synchronous_commit on`,
);
console.table(rows);
console.log(
  "Target: gate verify >= 0.50 x the bare route at the same concurrency, every decision durably logged " +
    "(logged = rows in gate_decisions for that engine, warm-ups included).",
);
