// `npm run bench:decision-log` (also part of `npm run bench`): what the Consent Gate's decision log
// costs on disk per decision (issue 27, item 4; target ≤ 40 B per decision at 1 000 decisions/s).
// For each engine it starts a real Guard server (PGlite in a temp data directory, or a throwaway
// durable PostgreSQL), with an organisation holding `--consents` consents (one in ten withdrawn,
// so about one decision in ten is a denial), then drives POST /api/v1/consent/verify, each request
// for a consent picked at random:
//   paced       `--rate` requests/s (default 1 000) for `--paced` seconds (default 60)
//   saturated   `--connections` connections, as fast as the server answers, for `--saturated` seconds
// and measures from outside the gate's code, in the database's catalogue: the on-disk size of every
// table named gate_* (heap, TOAST, free-space and visibility maps, and all their indexes:
// pg_total_relation_size; partitions counted under their root), before and after each phase,
// divided by the decisions the phase logged (rows of the gate_decisions view). WAL written in the
// phase is printed apart (pg_current_wal_lsn), as it is recycled rather than kept.
//
// Each phase is measured twice: right after the load ("at once"), and again after `--settle`
// seconds without load ("settled"), for a layout with background work (compaction) to finish it.
// Prints tables; asserts nothing.
//   node --import tsx bench/decision-log-bytes.mjs [--engines pglite,postgres] [--rate 1000]
//     [--paced 60] [--saturated 20] [--connections 64] [--consents 5000] [--settle 8]
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const SELF = fileURLToPath(import.meta.url);
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    engines: { type: "string", default: "pglite,postgres" },
    rate: { type: "string", default: "1000" },
    paced: { type: "string", default: "60" },
    saturated: { type: "string", default: "20" },
    connections: { type: "string", default: "64" },
    consents: { type: "string", default: "5000" },
    settle: { type: "string", default: "8" },
  },
});

// What the gate's tables hold, from the catalogue: every gate_* table (and each partition of one,
// counted under its root) with its TOAST table and indexes. Sequences and views hold no rows.
const SIZES_SQL = `
  SELECT coalesce(root.relname, c.relname) AS relation,
         sum(pg_total_relation_size(c.oid))::bigint AS bytes
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = current_schema()
    LEFT JOIN pg_class root ON c.relispartition AND root.oid = pg_partition_root(c.oid)
   WHERE c.relkind = 'r' AND coalesce(root.relname, c.relname) LIKE 'gate\\_%'
   GROUP BY 1 ORDER BY 1`;

// ---- the target: a Guard server in its own process, talking on file descriptor 3 -------------

async function runTarget(databaseUrl) {
  const [
    { loadConfig },
    { startServer },
    { createOrganization },
    { createApiKey },
    notices,
    { DEMO_NOTICE },
  ] = await Promise.all([
    import("../server/src/config.ts"),
    import("../server/src/server.ts"),
    import("../server/src/accounts/organizations.ts"),
    import("../server/src/accounts/api-keys.ts"),
    import("../server/src/notices/notices.ts"),
    import("../server/src/demo/seed.ts"),
  ]);
  const control = new net.Socket({ fd: 3, readable: true, writable: true });
  const print = (value) => control.write(`${JSON.stringify(value)}\n`);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-dlog-"));
  const config = loadConfig(
    {
      GUARD_TOKEN_SECRET: "bench-token-secret-bench-token-secret-0123456789",
      GUARD_AUDIT_HASH_KEYS: "1:bench-audit-secret-bench-audit-secret-0123456789",
      GUARD_SECRETS_KEY: "bench-secrets-key-bench-secrets-key-0123456789",
    },
    { dataDir, databaseUrl: databaseUrl || undefined, port: 0 },
  );
  const server = await startServer(config);
  const db = server.db;
  const now = Date.now();
  const org = await createOrganization(db, { slug: "bench", name: "bench" }, now);
  const key = await createApiKey(
    db,
    { organizationId: org.organizationId, name: "bench", createdBy: null },
    now,
  );
  const notice = await notices.publishNotice(
    db,
    org.organizationId,
    notices.parseNoticeDraft(DEMO_NOTICE),
    now,
  );
  // Guest consents in bulk SQL, random-looking ids as newId makes, one in ten withdrawn (as
  // bench/target-server.mjs seeds its large organisations): only the verify path reads them.
  const consents = await db.query(
    `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version,
       purpose, data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash, audit_key_version)
     SELECT $1::text, 'cns_' || substr(md5($1::text || g::text), 1, 20), 'seed-guest-' || g, $2, $3,
       $4, '["email"]'::jsonb, 'anonymous', $5::bigint - g::bigint * 1000,
       CASE WHEN g % 10 = 0 THEN $5::bigint END, CASE WHEN g % 10 = 0 THEN 'principal_request' END,
       md5(g::text), 1
     FROM generate_series(1, $6::int) AS g
     RETURNING consent_id`,
    [
      org.organizationId,
      notice.noticeId,
      notice.version,
      DEMO_NOTICE.itemized[0].purpose,
      now,
      Number(values.consents),
    ],
  );
  if (db.kind === "postgres") await db.query("ANALYZE consents");
  const measure = async () => {
    const relations = await db.query(SIZES_SQL);
    const [count] = await db.query("SELECT count(*)::bigint AS n FROM gate_decisions");
    const [wal] = await db.query("SELECT pg_current_wal_lsn()::text AS lsn").catch(() => [{ lsn: null }]);
    return {
      relations: Object.fromEntries(relations.map((r) => [r.relation, Number(r.bytes)])),
      decisions: Number(count.n),
      walLsn: wal.lsn,
    };
  };
  print({ url: server.url, apiKey: key.key, consentIds: consents.map((c) => c.consent_id) });
  readline.createInterface({ input: control }).on("line", (line) => {
    if (line.trim() === "measure") void measure().then(print, (error) => print({ error: String(error) }));
  });
  process.once("SIGTERM", async () => {
    try {
      await server.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
    print({ stopped: true });
    process.exit(0);
  });
}

// ---- the driver ------------------------------------------------------------------------------

/** Starts this file as a target; resolves with `{ ready, ask(command), stop() }`. */
async function startTarget(databaseUrl) {
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-dlog-log-"));
  const logFile = path.join(logDir, "target.log");
  const log = fs.openSync(logFile, "a");
  const child = spawn(
    process.execPath,
    ["--import", "tsx", SELF, "target", ...(databaseUrl ? [databaseUrl] : [])],
    {
      stdio: ["ignore", log, log, "pipe"],
    },
  );
  fs.closeSync(log);
  const lines = readline.createInterface({ input: child.stdio[3] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const next = () =>
    new Promise((resolve, reject) => {
      const onExit = (code) =>
        reject(new Error(`target exited with ${code}:\n${fs.readFileSync(logFile, "utf8").slice(-4000)}`));
      child.once("exit", onExit);
      lines.once("line", (line) => {
        child.off("exit", onExit);
        resolve(JSON.parse(line));
      });
    });
  const ready = await next();
  return {
    ready,
    ask: (command) => {
      const answer = next();
      child.stdio[3].write(`${command}\n`);
      return answer;
    },
    stop: async () => {
      const last = next().catch(() => undefined);
      child.kill("SIGTERM");
      await last;
      await exited;
      fs.rmSync(logDir, { recursive: true, force: true });
    },
  };
}

/** Verify requests for random consents: paced at `rate`/s over `connections`, or unpaced. */
async function load(target, { seconds, connections, rate }) {
  const { default: autocannon } = await import("autocannon");
  const { url, apiKey, consentIds } = target.ready;
  const bodies = consentIds.map((id) => `{"consentId":"${id}"}`);
  const result = await new Promise((resolve, reject) => {
    autocannon(
      {
        url: `${url}/api/v1/consent/verify`,
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${apiKey}` },
        connections,
        duration: seconds,
        ...(rate ? { overallRate: rate } : {}),
        requests: [
          {
            setupRequest: (request) => {
              request.body = bodies[Math.floor(Math.random() * bodies.length)];
              return request;
            },
          },
        ],
      },
      (error, value) => (error ? reject(error) : resolve(value)),
    );
  });
  return {
    requests: result.requests.total,
    failed: result.non2xx + result.errors + result.timeouts,
    rps: result.requests.average,
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const total = (m) => Object.values(m.relations).reduce((a, b) => a + b, 0);

/** WAL bytes between two LSNs ('X/Y' hex), or null where the engine gave none. */
function walBytes(from, to) {
  if (!from || !to) return null;
  const value = (lsn) => {
    const [high, low] = lsn.split("/");
    return BigInt(`0x${high}`) * 2n ** 32n + BigInt(`0x${low}`);
  };
  return Number(value(to) - value(from));
}

function describe(label, before, after, extra) {
  const decisions = after.decisions - before.decisions;
  const bytes = total(after) - total(before);
  const wal = walBytes(before.walLsn, after.walLsn);
  const perRelation = Object.keys({ ...before.relations, ...after.relations })
    .map(
      (name) =>
        `${name} ${(((after.relations[name] ?? 0) - (before.relations[name] ?? 0)) / Math.max(decisions, 1)).toFixed(1)}`,
    )
    .join(", ");
  return {
    phase: label,
    decisions,
    "B/decision": decisions > 0 ? (bytes / decisions).toFixed(1) : "-",
    "table bytes Δ": bytes,
    "WAL B/decision": wal === null || decisions === 0 ? "-" : (wal / decisions).toFixed(0),
    ...extra,
    "per relation (B/decision)": perRelation,
  };
}

async function runEngine(engine) {
  let cluster;
  if (engine === "postgres") {
    const { startThrowawayPostgres } = await import("../scripts/lib/postgres-cluster.mjs");
    cluster = await startThrowawayPostgres({ durable: true });
  }
  const target = await startTarget(cluster?.url);
  const settleMs = Number(values.settle) * 1000;
  const rows = [];
  try {
    const start = await target.ask("measure");
    const paced = await load(target, {
      seconds: Number(values.paced),
      connections: 64,
      rate: Number(values.rate),
    });
    const pacedAtOnce = await target.ask("measure");
    await sleep(settleMs);
    const pacedSettled = await target.ask("measure");
    const pacedLoad = { "req/s": paced.rps.toFixed(0), failed: paced.failed };
    rows.push(describe("paced, at once", start, pacedAtOnce, pacedLoad));
    rows.push(describe("paced, settled", start, pacedSettled, pacedLoad));
    const saturated = await load(target, {
      seconds: Number(values.saturated),
      connections: Number(values.connections),
    });
    const saturatedAtOnce = await target.ask("measure");
    await sleep(settleMs);
    const saturatedSettled = await target.ask("measure");
    const saturatedLoad = { "req/s": saturated.rps.toFixed(0), failed: saturated.failed };
    rows.push(describe("saturated, at once", pacedSettled, saturatedAtOnce, saturatedLoad));
    rows.push(describe("saturated, settled", pacedSettled, saturatedSettled, saturatedLoad));
    console.log(
      `\n${engine}: the decision log's tables at the end: ${JSON.stringify(saturatedSettled.relations)}`,
    );
  } finally {
    await target.stop();
    await cluster?.stop();
  }
  return rows;
}

async function main() {
  console.log(
    `Decision log bytes per decision: ${values.consents} consents, paced ${values.rate}/s for ${values.paced} s, ` +
      `saturated at ${values.connections} connections for ${values.saturated} s, settle ${values.settle} s`,
  );
  for (const engine of values.engines.split(",").filter(Boolean)) {
    const rows = await runEngine(engine);
    console.log(`\n${engine}`);
    console.table(rows);
  }
}

if (positionals[0] === "target") await runTarget(positionals[1]);
else await main();
