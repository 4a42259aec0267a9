// `npm run bench:writes`: the write path against a plain PostgreSQL insert (issue 25). In one run,
// on a throwaway PostgreSQL server with its default durability (fsync and synchronous_commit on)
// and on the embedded database (PGlite), at each concurrency, it measures:
//   anon-key    POST /api/v1/consents/anonymous with an Idempotency-Key (fresh key and guest each)
//   anon        the same without a key
//   cm-pair     POST /cm/v1/consent then DELETE /cm/v1/consent/{id}; each HTTP request counts,
//               so a pair is two requests
//   dsr         POST /api/v1/dsr with an Idempotency-Key
//   grievance   POST /api/v1/grievances with an Idempotency-Key
//   pgbench     pgbench inserting one row per transaction into a table shaped like `consents`
//               (a text primary key, two more indexes, ten columns), same cluster, same clients
//   floor       the floor of any HTTP write on this machine: a bare Fastify route (its own
//               process, no Guard) inserting pgbench's row per request through node-postgres,
//               pool of Guard's size, prepared statement; what an HTTP write costs before any of
//               Guard's work (PostgreSQL only)
//   flat        anon-key against an organisation of each further size in --sizes
// Each Guard target runs the shipped defaults (log level included; --log-level to compare). The
// benchmark organisations' anonymous-capture rate limit is raised through the organisation
// settings route, so the limit does not turn the load into 429s.
//
// As bench/gate-verify.mjs does, targets are measured in alternating rounds after a warm-up and
// each figure is the median of its rounds. Prints tables; asserts nothing.
//   node --import tsx bench/writes.mjs [--duration 4] [--rounds 3] [--connections 16,64]
//     [--engines pglite,postgres] [--sizes 10000,1000000] [--pglite-sizes 10000]
//     [--writes anon-key,anon,cm-pair,dsr,grievance,pgbench,floor,flat] [--log-level info]
//     [--statements]
// --statements preloads pg_stat_statements in the PostgreSQL cluster and prints, per Guard write,
// where the database's time went in the first round (the extension costs a little itself, so
// compare rates from runs without it).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { findPostgresBinDir, startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";
import { cpuTimeAvailable, postmasterPid, processCpuSeconds, processTreeCpuSeconds } from "./cpu-time.mjs";
import {
  enableStatementStats,
  resetStatementStats,
  STATEMENT_STATS_SETTINGS,
  statementStats,
  withClient,
} from "./statement-stats.mjs";
import { startTarget } from "./target-process.mjs";

const ALL_WRITES = ["anon-key", "anon", "cm-pair", "dsr", "grievance", "pgbench", "floor", "flat"];
const { values } = parseArgs({
  options: {
    duration: { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    connections: { type: "string", default: "16,64" },
    engines: { type: "string", default: "pglite,postgres" },
    sizes: { type: "string", default: "10000,1000000" },
    // Seeding a million consents into PGlite takes minutes; ask for it explicitly.
    "pglite-sizes": { type: "string", default: "10000" },
    writes: { type: "string", default: ALL_WRITES.join(",") },
    "log-level": { type: "string" },
    statements: { type: "boolean", default: false },
  },
});
const duration = Number(values.duration);
const warmUpSeconds = Math.min(duration, 3);
const rounds = Number(values.rounds);
const concurrencies = values.connections.split(",").map(Number);
const engines = values.engines.split(",").filter(Boolean);
const sizesOf = { postgres: values.sizes, pglite: values["pglite-sizes"] };
const writes = values.writes.split(",").filter(Boolean);
for (const write of writes) if (!ALL_WRITES.includes(write)) throw new Error(`unknown write ${write}`);
const logLevelArgs = values["log-level"] ? ["--log-level", values["log-level"]] : [];
const RATE_LIMIT = { perAddress: 1_000_000, perOrganization: 100_000_000, windowMs: 1_000 };

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let serial = 0;

/** A JSON request to a Guard server, outside the measurement (fixtures); throws on a non-2xx. */
async function call(url, method, pathname, { token, body } = {}) {
  const response = await fetch(`${url}${pathname}`, {
    method,
    headers: {
      ...(body ? { "content-type": "application/json" } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${pathname}: ${response.status} ${text}`);
  return JSON.parse(text);
}

/** `count` new principals of the organisation, with an email each and a brokered token each. */
async function newPrincipals(server, organization, count) {
  const principals = [];
  for (let i = 0; i < count; i += 1) {
    const externalId = `bench-${run}-${(serial += 1)}`;
    const email = `${externalId}@bench.example`;
    const { accessToken } = await call(server.url, "POST", "/api/v1/auth/broker-token", {
      token: organization.apiKey,
      body: { externalId, email },
    });
    principals.push({ email, token: accessToken });
  }
  return principals;
}

// ---- the writes, as autocannon request lists ---------------------------------------------------
// Each request that must differ from the last is built in `setupRequest` by concatenating a fixed
// prefix, a counter and a fixed suffix: no JSON.stringify and no object copies per request, so the
// load generator spends as little as it can per request on the two cores it shares (bench/README.md,
// "The load generator"; the loadgen µs column shows what it spent).

/** Anonymous capture, with or without an Idempotency-Key; a fresh guest every request. */
function anonymousCapture(organization, withKey) {
  const prefix = `{"organizationId":"${organization.organizationId}","noticeId":"${organization.noticeId}","purpose":"${organization.purpose}","dataTypes":["email"],"anonymousId":"g-${run}-`;
  return async () => ({
    requests: [
      {
        method: "POST",
        path: "/api/v1/consents/anonymous",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => {
          const n = (serial += 1);
          request.body = `${prefix}${n}"}`;
          if (withKey) request.headers["idempotency-key"] = `k-${run}-${n}`;
          return request;
        },
      },
    ],
  });
}

/**
 * /cm/v1 consent then its withdrawal, by principals taken from a pool (one per connection at a
 * time, so no two pairs race for one principal's consent) and put back once withdrawn.
 */
function cmConsentAndWithdrawal(server, organization) {
  return async (connections) => {
    const pool = (await newPrincipals(server, organization, connections + 8)).map((p) => p.email);
    const body = (email) =>
      `{"email":"${email}","noticeId":"${organization.noticeId}","purpose":"${organization.purpose}","dataTypes":["email"]}`;
    return {
      headers: { authorization: `Bearer ${organization.apiKey}` },
      requests: [
        {
          method: "POST",
          path: "/cm/v1/consent",
          headers: { authorization: `Bearer ${organization.apiKey}`, "content-type": "application/json" },
          setupRequest: (request, context) => {
            context.email = pool.pop() ?? "nobody@bench.example";
            request.body = body(context.email);
            return request;
          },
          onResponse: (status, responseBody, context) => {
            context.consentId = status === 201 ? JSON.parse(responseBody).consentId : "cns_none";
          },
        },
        {
          method: "DELETE",
          setupRequest: (request, context) => {
            request.path = `/cm/v1/consent/${context.consentId}`;
            return request;
          },
          // A principal whose withdrawal failed may still hold an active consent: not reused.
          onResponse: (status, _body, context) => {
            if (status === 200) pool.push(context.email);
          },
        },
      ],
    };
  };
}

/** A principal's create (DSR or grievance) with an Idempotency-Key, by a principal of this run. */
function principalCreate(server, organization, pathname, fields) {
  return async () => {
    const [principal] = await newPrincipals(server, organization, 1);
    const body = JSON.stringify({ organizationId: organization.organizationId, ...fields });
    return {
      requests: [
        {
          method: "POST",
          path: pathname,
          headers: { authorization: `Bearer ${principal.token}`, "content-type": "application/json" },
          body,
          setupRequest: (request) => {
            request.headers["idempotency-key"] = `k-${run}-${(serial += 1)}`;
            return request;
          },
        },
      ],
    };
  };
}

/** The floor target's request: a fresh guest id every request, as anonymous capture sends. */
function floorInsert() {
  return async () => ({
    requests: [
      {
        method: "POST",
        path: "/floor",
        headers: { "content-type": "application/json" },
        setupRequest: (request) => {
          request.body = `{"anonymousId":"g-${run}-${(serial += 1)}"}`;
          return request;
        },
      },
    ],
  });
}

/** Load at `connections` for `seconds` with the requests `prepare` builds for this run. */
async function autocannonLoad(url, prepare, connections, seconds) {
  const options = await prepare(connections);
  const result = await new Promise((resolve, reject) => {
    autocannon({ url, connections, duration: seconds, ...options }, (error, value) =>
      error ? reject(error) : resolve(value),
    );
  });
  return {
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts,
    statuses: Object.fromEntries(
      Object.entries(result.statusCodeStats ?? {})
        .filter(([status]) => !status.startsWith("2"))
        .map(([status, { count }]) => [status, count]),
    ),
  };
}

// ---- pgbench -----------------------------------------------------------------------------------

const PGBENCH_TABLE = `
  CREATE TABLE plain_inserts (
    consent_id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, anonymous_id TEXT NOT NULL,
    notice_id TEXT NOT NULL, notice_version INTEGER NOT NULL, purpose TEXT NOT NULL,
    data_types JSONB NOT NULL, source TEXT NOT NULL, given_at BIGINT NOT NULL, audit_hash TEXT NOT NULL);
  CREATE INDEX plain_inserts_by_guest ON plain_inserts (organization_id, anonymous_id);
  CREATE INDEX plain_inserts_by_given_at ON plain_inserts (organization_id, given_at);`;
// A random text key, as Guard's ids are, so primary-key entries land all over the index.
const PGBENCH_SCRIPT = `INSERT INTO plain_inserts VALUES (md5(random()::text), 'org_bench', 'g-' || :client_id || '-' || random(), 'ntc_bench', 1, 'Marketing', '["email"]', 'anonymous', (extract(epoch FROM clock_timestamp()) * 1000)::bigint, md5(random()::text));\n`;

/** A database of its own on the cluster (so Guard's statistics stay apart) with the table. */
async function preparePgbench(cluster) {
  await withClient(cluster.adminUrl, (admin) => admin.query("CREATE DATABASE plain_inserts"));
  const url = cluster.adminUrl.replace(/\/postgres$/, "/plain_inserts");
  await withClient(url, (client) => client.query(PGBENCH_TABLE));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-pgbench-"));
  fs.writeFileSync(path.join(dir, "insert.sql"), PGBENCH_SCRIPT);
  return { url, dir, binary: path.join(findPostgresBinDir(), "pgbench") };
}

/**
 * pgbench at `connections` clients on 2 threads for `seconds`, prepared statements, every
 * transaction logged so p50 and p99 come from the same kind of histogram as autocannon's.
 */
async function pgbenchLoad(bench, connections, seconds) {
  for (const file of fs.readdirSync(bench.dir))
    if (file.startsWith("log")) fs.rmSync(path.join(bench.dir, file));
  const args = [
    ...["-n", "-M", "prepared", "-c", String(connections), "-j", "2", "-T", String(seconds)],
    ...["-f", path.join(bench.dir, "insert.sql"), "-l", "--log-prefix", path.join(bench.dir, "log")],
    bench.url,
  ];
  const output = await new Promise((resolve, reject) => {
    const child = spawn(bench.binary, args, { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (chunk) => (text += chunk));
    child.stderr.on("data", (chunk) => (text += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench: ${text}`))));
  });
  const latencies = [];
  for (const file of fs.readdirSync(bench.dir)) {
    if (!file.startsWith("log")) continue;
    for (const line of fs.readFileSync(path.join(bench.dir, file), "utf8").split("\n")) {
      const fields = line.split(" ");
      if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
    }
  }
  latencies.sort((a, b) => a - b);
  const percentile = (p) => Math.round(latencies[Math.floor((latencies.length - 1) * p)] * 10) / 10;
  const failed = Number(/number of failed transactions: (\d+)/.exec(output)?.[1] ?? 0);
  return {
    requests: latencies.length,
    rps: Number(/tps = ([\d.]+)/.exec(output)[1]),
    p50: percentile(0.5),
    p99: percentile(0.99),
    failed,
    statuses: failed ? { failed } : {},
  };
}

// ---- targets -----------------------------------------------------------------------------------

/** Statement counters of a Guard target on PostgreSQL, undefined elsewhere. */
async function countersOf(t) {
  return t.countsStatements ? await t.guard.target.ask("counters") : undefined;
}

/** One measured round: the load's figures plus, per request, CPU µs and statements where known. */
async function measure(t, connections, seconds, { statementsUrl } = {}) {
  const own = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  };
  const before = {
    server: t.serverPid === undefined ? undefined : processCpuSeconds(t.serverPid),
    database: t.databasePid === undefined ? undefined : processTreeCpuSeconds(t.databasePid),
    loadGenerator: t.loadGeneratorIsThis ? own() : undefined,
    counters: await countersOf(t),
    logBytes: t.guard?.target.logBytes(),
  };
  if (statementsUrl) await resetStatementStats(statementsUrl);
  const result = await t.load(connections, seconds);
  if (statementsUrl && result.requests > 0)
    result.statementStats = await statementStats(statementsUrl, result.requests);
  const after = {
    server: t.serverPid === undefined ? undefined : processCpuSeconds(t.serverPid),
    database: t.databasePid === undefined ? undefined : processTreeCpuSeconds(t.databasePid),
    loadGenerator: t.loadGeneratorIsThis ? own() : undefined,
    counters: await countersOf(t),
    logBytes: t.guard?.target.logBytes(),
  };
  const perRequest = (a, b, scale) =>
    a === undefined || b === undefined || result.requests === 0
      ? undefined
      : ((b - a) * scale) / result.requests;
  result.perRequest = {
    serverMicros: perRequest(before.server, after.server, 1e6),
    databaseMicros: perRequest(before.database, after.database, 1e6),
    loadGeneratorMicros: perRequest(before.loadGenerator, after.loadGenerator, 1e6),
    logBytes: perRequest(before.logBytes, after.logBytes, 1),
  };
  if (before.counters)
    for (const key of ["statements", "transactions", "writingTransactions"])
      result.perRequest[key] = perRequest(before.counters[key], after.counters[key], 1);
  return result;
}

/** Starts a Guard target for `engine` with one organisation per size, rate limits raised. */
async function startGuard(engine, sizes, databaseUrl) {
  const target = await startTarget(["writes", sizes, ...(databaseUrl ? [databaseUrl] : []), ...logLevelArgs]);
  const { url, organizations } = target.ready;
  for (const organization of organizations) {
    await call(url, "PATCH", "/api/v1/staff/organization/settings", {
      token: organization.apiKey,
      body: { anonymousConsentRateLimit: RATE_LIMIT },
    });
  }
  const seeded = organizations.map((o) => `${o.size} in ${o.seedSeconds} s`).join(", ");
  console.log(`${engine}: Guard target ready, consents seeded ${seeded}`);
  return { engine, target, url, organizations };
}

/** The Guard targets of one engine, in the order they are measured. */
function guardTargets(engine, guard, extra) {
  const [main, ...larger] = guard.organizations;
  const server = { url: guard.url };
  const load = (prepare) => (connections, seconds) =>
    autocannonLoad(guard.url, prepare, connections, seconds);
  const base = { engine, guard, serverPid: guard.target.pid, loadGeneratorIsThis: true, ...extra };
  const targets = [];
  const add = (write, name, prepare, size = main.size) =>
    writes.includes(write) && targets.push({ ...base, write, name, size, load: load(prepare) });
  add("anon-key", "anonymous capture, key", anonymousCapture(main, true));
  add("anon", "anonymous capture, no key", anonymousCapture(main, false));
  add("cm-pair", "/cm/v1 consent + withdrawal", cmConsentAndWithdrawal(server, main));
  add("dsr", "DSR create, key", principalCreate(server, main, "/api/v1/dsr", { type: "summary" }));
  add(
    "grievance",
    "grievance create, key",
    principalCreate(server, main, "/api/v1/grievances", {
      subject: "Benchmark grievance",
      description: "Written by bench/writes.mjs.",
    }),
  );
  for (const organization of larger)
    add("flat", "anonymous capture, key", anonymousCapture(organization, true), organization.size);
  return targets;
}

const targets = [];
const guards = [];
let cluster;
let pgbench;
let floor;
try {
  if (engines.includes("postgres")) {
    cluster = await startThrowawayPostgres({
      log: () => undefined,
      durable: true,
      ...(values.statements ? { settings: STATEMENT_STATS_SETTINGS } : {}),
    });
    const guard = await startGuard("postgres", sizesOf.postgres, cluster.url);
    guards.push(guard);
    if (values.statements) await enableStatementStats(cluster.url);
    const databasePid = postmasterPid(cluster.dataDir);
    targets.push(...guardTargets("postgres", guard, { databasePid, countsStatements: true }));
    if (writes.includes("pgbench") || writes.includes("floor")) pgbench = await preparePgbench(cluster);
    if (writes.includes("pgbench")) {
      targets.push({
        engine: "postgres",
        write: "pgbench",
        name: "pgbench one-row INSERT (-M prepared)",
        size: "-",
        databasePid,
        load: (connections, seconds) => pgbenchLoad(pgbench, connections, seconds),
      });
    }
    if (writes.includes("floor")) {
      floor = await startTarget(["floor", pgbench.url]);
      targets.push({
        engine: "postgres",
        write: "floor",
        name: "floor: bare route, one INSERT",
        size: "-",
        databasePid,
        serverPid: floor.pid,
        loadGeneratorIsThis: true,
        load: (connections, seconds) => autocannonLoad(floor.ready.url, floorInsert(), connections, seconds),
      });
    }
  }
  if (engines.includes("pglite")) {
    const guard = await startGuard("pglite", sizesOf.pglite);
    guards.push(guard);
    targets.push(...guardTargets("pglite", guard, {}));
  }

  const rows = [];
  const statementTables = [];
  const flatPoints = [];
  const failures = [];
  for (const connections of concurrencies) {
    // Warm every target up at this concurrency (JIT, pools, caches, plans) before measuring.
    for (const t of targets) await t.load(connections, warmUpSeconds);
    const measured = new Map(targets.map((t) => [t, []]));
    for (let round = 0; round < rounds; round += 1)
      for (const t of targets) {
        const statementsUrl =
          values.statements && round === 0 && t.engine === "postgres" && t.guard ? cluster.url : undefined;
        measured.get(t).push(await measure(t, connections, duration, { statementsUrl }));
      }
    const pgbenchResults = [...measured].find(([t]) => t.write === "pgbench")?.[1];
    const pgbenchRps = pgbenchResults ? median(pgbenchResults.map((r) => r.rps)) : undefined;
    const floorResults = [...measured].find(([t]) => t.write === "floor")?.[1];
    const floorRps = floorResults ? median(floorResults.map((r) => r.rps)) : undefined;
    for (const t of targets) {
      const results = measured.get(t);
      const rps = median(results.map((r) => r.rps));
      const column = (key, digits = 0) => {
        const known = results.map((r) => r.perRequest[key]).filter((v) => v !== undefined);
        return known.length > 0 ? Number(median(known).toFixed(digits)) : "-";
      };
      const failed = results.reduce((n, r) => n + r.failed, 0);
      if (failed > 0) {
        const statuses = {};
        for (const r of results)
          for (const [status, count] of Object.entries(r.statuses))
            statuses[status] = (statuses[status] ?? 0) + count;
        failures.push(
          `${t.name} on ${t.engine} at ${connections} connections: ${failed} (${JSON.stringify(statuses)})`,
        );
      }
      const row = {
        write: t.name,
        engine: t.engine,
        consents: t.size,
        conns: connections,
        "req/s": Math.round(rps),
        "rounds req/s": results.map((r) => Math.round(r.rps)).join(" "),
        "p50 ms": median(results.map((r) => r.p50)),
        "p99 ms": median(results.map((r) => r.p99)),
        "vs pgbench": pgbenchRps ? (rps / pgbenchRps).toFixed(2) : "-",
        "vs floor": floorRps ? (rps / floorRps).toFixed(2) : "-",
        failed,
        "stmts/req": column("statements", 1),
        "tx/req": column("transactions", 1),
        "DML tx/req": column("writingTransactions", 1),
        "log B/req": column("logBytes"),
        ...(cpuTimeAvailable
          ? {
              "db µs/req": column("databaseMicros"),
              "server µs/req": column("serverMicros"),
              "loadgen µs/req": column("loadGeneratorMicros"),
            }
          : {}),
      };
      if (t.write !== "flat") rows.push(row);
      const stats = results[0].statementStats;
      if (stats)
        statementTables.push({
          title:
            `${t.name} (${t.engine}, ${connections} connections, first round): ` +
            `${stats.totalMicrosPerUnit.toFixed(0)} µs of statement time per request`,
          top: stats.top,
        });
      if (t.write === "flat" || t.write === "anon-key") flatPoints.push(row);
    }
  }

  console.log(
    `\nWrite path benchmark: ${rounds} alternating rounds of ${duration} s per target and concurrency ` +
      `(after a ${warmUpSeconds} s warm-up), medians shown; Node ${process.version}; ` +
      `log level ${values["log-level"] ?? "the shipped default"}; PostgreSQL with fsync and ` +
      "synchronous_commit on; PGlite writes each commit to its data directory but does not fsync",
  );
  console.table(rows);
  console.log(
    "req/s counts HTTP requests (a /cm/v1 pair is two); vs pgbench divides by pgbench's median at the " +
      "same connections on the same PostgreSQL (the PGlite rows too); vs floor divides by the floor row's (a bare " +
      "Fastify route inserting that row: what any HTTP write costs on this machine). stmts/req, tx/req (COMMITs and " +
      "statements sent outside a transaction) and DML tx/req (those with an INSERT, UPDATE or DELETE: " +
      "a WAL flush each when it changes a row) are counted in the Guard process's PostgreSQL driver, " +
      "background work during the round (webhook worker, rights clocks) included. db µs = the PostgreSQL " +
      "server and its backends; server µs = the Guard process (PGlite runs inside it); loadgen µs = " +
      "this process (autocannon; pgbench's own CPU is not counted). log B = what the Guard process logged.",
  );

  for (const { title, top } of statementTables) {
    console.log(`\n${title}`);
    console.table(top);
  }

  const flatTable = [];
  for (const engine of engines)
    for (const connections of concurrencies) {
      const bySize = flatPoints.filter((r) => r.engine === engine && r.conns === connections);
      if (bySize.length < 2) continue;
      for (const r of bySize)
        flatTable.push({
          engine,
          conns: connections,
          consents: r.consents,
          "req/s": r["req/s"],
          "p50 ms": r["p50 ms"],
          "p99 ms": r["p99 ms"],
          "vs smallest": (r["req/s"] / bySize[0]["req/s"]).toFixed(2),
          "db µs/req": r["db µs/req"],
        });
    }
  if (flatTable.length > 0) {
    console.log("\nFlatness: anonymous capture with a key, by the organisation's consents");
    console.table(flatTable);
  }
  for (const guard of guards)
    console.log(
      `Log written by the ${guard.engine} target (warm-ups included): ${guard.target.logBytes()} bytes`,
    );
  console.log(
    "Targets (issue 25): every write >= 0.50 x pgbench at 64 connections on PostgreSQL, p99 <= 20 ms, " +
      "and capture within 10% between the smallest and the largest organisation.",
  );
  if (failures.length > 0) {
    console.log("\n!!! NOT EVERY REQUEST SUCCEEDED: the figures above include failed requests !!!");
    for (const failure of failures) console.log(`!!! ${failure}`);
  }
} finally {
  for (const guard of guards) await guard.target.stop().catch(() => undefined);
  await floor?.stop().catch(() => undefined);
  if (pgbench) fs.rmSync(pgbench.dir, { recursive: true, force: true });
  await cluster?.stop();
}
