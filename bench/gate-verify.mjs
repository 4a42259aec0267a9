// `npm run bench`: Consent Gate throughput. Measures POST /api/v1/consent/verify (every decision
// durably logged) against a bare Fastify JSON route, same machine, same run, same load settings,
// on the embedded database and on a throwaway PostgreSQL server running with its default
// durability (fsync and synchronous_commit on: a decision is answered only after its WAL record
// is flushed). PGlite answers after writing the commit to its data directory; it cannot fsync.
// Prints figures; asserts nothing.
//
// The organisation holds `--consents` consents (one in ten withdrawn), so the group statement
// reads a consents table of a realistic size. Every request verifies the same one: a body varied
// per request costs autocannon more per request than a fixed one, and on a small machine the load
// generator's cost weighs on the figures (bench/README.md).
//
// A shared machine drifts by tens of percent within minutes, so the targets are measured in
// alternating rounds (bare, gate on PGlite, gate on PostgreSQL, bare, ...) at each concurrency and
// each figure is the median of its rounds; the ratio compares medians taken in the same rounds.
// Target: at 64 connections the gate reaches at least half the bare route's requests/s.
//   node --import tsx bench/gate-verify.mjs [--duration 6] [--rounds 3] [--connections 16,64]
//                                           [--engines pglite,postgres] [--consents 5000]
//                                           [--log-level info]
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";
import { cpuTimeAvailable, postmasterPid, processCpuSeconds, processTreeCpuSeconds } from "./cpu-time.mjs";
import { startTarget } from "./target-process.mjs";

const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "6" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "16,64" },
    engines: { type: "string", default: "pglite,postgres" },
    consents: { type: "string", default: "5000" },
    // Unset: the shipped default, what a deployment logs at (target-server.mjs).
    "log-level": { type: "string" },
  },
});
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const concurrencies = values.connections.split(",").map(Number);
const engines = values.engines.split(",").filter(Boolean);
const consentCount = Number(values.consents);
const logLevelArgs = values["log-level"] ? ["--log-level", values["log-level"]] : [];

/** CPU seconds so far: the target's server process, its PostgreSQL (if any), and this process. */
function cpuReading(t) {
  const own = process.cpuUsage();
  return {
    server: processCpuSeconds(t.target.pid),
    database: t.databasePid === undefined ? undefined : processTreeCpuSeconds(t.databasePid),
    loadGenerator: (own.user + own.system) / 1e6,
  };
}

/** One measured round: autocannon's result plus CPU microseconds per request where known. */
async function measure(t, connections, seconds) {
  const before = cpuReading(t);
  const result = await load(t.request, connections, seconds);
  const after = cpuReading(t);
  const perRequest = (key) =>
    before[key] === undefined || after[key] === undefined
      ? undefined
      : ((after[key] - before[key]) * 1e6) / result.requests.total;
  result.cpuMicros = {
    server: perRequest("server"),
    database: perRequest("database"),
    loadGenerator: perRequest("loadGenerator"),
  };
  return result;
}

/** Load at `connections` for `seconds`: autocannon, every request the same (built once). */
function load({ url, headers, body }, connections, seconds) {
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
        connections,
        duration: seconds,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
}

/** A running Guard server whose organisation holds `consentCount` consents, as a load request. */
async function startGuard(databaseUrl) {
  const target = await startTarget([
    "guard",
    String(consentCount),
    ...(databaseUrl ? [databaseUrl] : []),
    ...logLevelArgs,
  ]);
  const { url, apiKey, consentIds } = target.ready;
  return {
    target,
    request: {
      url: `${url}/api/v1/consent/verify`,
      headers: { authorization: `Bearer ${apiKey}` },
      body: { consentId: consentIds[0] },
    },
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median CPU µs per request of each process, over the rounds ("-" where not measured). */
function cpuColumns(results) {
  const column = (key) => {
    const values = results.map((r) => r.cpuMicros[key]).filter((v) => v !== undefined);
    return values.length > 0 ? Math.round(median(values)) : "-";
  };
  return {
    "server µs": column("server"),
    "db µs": column("database"),
    "loadgen µs": column("loadGenerator"),
  };
}

const targets = [];
let cluster;
try {
  const bare = await startTarget(["bare"]);
  targets.push({
    name: "bare fastify",
    engine: "-",
    target: bare,
    request: { url: `${bare.ready.url}/bare`, headers: {}, body: { consentId: "cns_bench" } },
  });
  if (engines.includes("pglite"))
    targets.push({ name: "gate verify", engine: "pglite", ...(await startGuard()) });
  if (engines.includes("postgres")) {
    cluster = await startThrowawayPostgres({ log: () => undefined, durable: true });
    targets.push({
      name: "gate verify",
      engine: "postgres",
      databasePid: postmasterPid(cluster.dataDir),
      ...(await startGuard(cluster.url)),
    });
  }
  // The bare route gets byte-for-byte the request the gate gets (it ignores the Authorization header),
  // so both pay the same to receive and parse it.
  const gateRequest = targets[1]?.request;
  if (gateRequest)
    Object.assign(targets[0].request, { headers: gateRequest.headers, body: gateRequest.body });

  const rows = [];
  for (const connections of concurrencies) {
    // Warm every target up at this concurrency (JIT, connection pools, caches) before measuring.
    for (const t of targets) await load(t.request, connections, duration);
    const measured = new Map(targets.map((t) => [t, []]));
    for (let round = 0; round < rounds; round += 1) {
      for (const t of targets) measured.get(t).push(await measure(t, connections, duration));
    }
    const bareRps = median(measured.get(targets[0]).map((r) => r.requests.average));
    for (const t of targets) {
      const results = measured.get(t);
      const rps = median(results.map((r) => r.requests.average));
      rows.push({
        target: t.name,
        engine: t.engine,
        connections,
        "req/s": Math.round(rps),
        "rounds req/s": results.map((r) => Math.round(r.requests.average)).join(" "),
        "p50 ms": median(results.map((r) => r.latency.p50)),
        "p99 ms": median(results.map((r) => r.latency.p99)),
        non2xx: results.reduce((n, r) => n + r.non2xx + r.errors, 0),
        "vs bare": (rps / bareRps).toFixed(2),
        ...(cpuTimeAvailable ? cpuColumns(results) : {}),
      });
    }
  }
  const logged = [];
  for (const t of targets.slice(1)) {
    const { gateDecisionsLogged } = await t.target.stop();
    t.stopped = true;
    logged.push(`${t.engine} ${gateDecisionsLogged}`);
  }
  console.log(
    `\nConsent Gate benchmark: ${rounds} alternating rounds of ${duration} s per target and concurrency ` +
      `(after a warm-up), medians shown; the organisation holds ${consentCount} consents; ` +
      `Node ${process.version}; log level ${values["log-level"] ?? "the shipped default"}; ` +
      "PostgreSQL with fsync and synchronous_commit on; " +
      "PGlite writes each commit to its data directory but does not fsync (see README)",
  );
  console.table(rows);
  if (cpuTimeAvailable)
    console.log(
      "CPU µs per request (median of rounds, from /proc): server = the target's Node process (PGlite runs " +
        "inside it); db = the PostgreSQL server and its backends; loadgen = this process (autocannon). " +
        "Their sum over the machine's cores bounds requests/s.",
    );
  console.log(`Decisions logged (rows in gate_decisions, warm-ups included): ${logged.join(", ")}`);
  // Throughput is what a target sustains at its best. Each gate request waits for a durable commit,
  // so at low concurrency the gate is bounded by that wait (requests/s = connections / latency)
  // with CPU to spare; it needs more connections than the bare route to be kept busy.
  const best = targets.map((t) =>
    Math.max(...rows.filter((r) => r.target === t.name && r.engine === t.engine).map((r) => r["req/s"])),
  );
  const described = targets.map((t, index) =>
    index === 0
      ? `${t.name} ${best[0]}`
      : `${t.name} on ${t.engine} ${best[index]} (${(best[index] / best[0]).toFixed(2)} of bare)`,
  );
  console.log(
    `Throughput (best median req/s over ${concurrencies.join(" and ")} connections): ${described.join("; ")}`,
  );
  console.log("Target: gate verify >= 0.50 x the bare route's throughput, every decision durably logged.");
} finally {
  for (const t of targets) if (!t.stopped) await t.target.stop().catch(() => undefined);
  await cluster?.stop();
}
