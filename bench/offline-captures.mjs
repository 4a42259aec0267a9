// `npm run bench:offline`: signed offline capture sync (POST /api/v1/offline/captures, issue 26) on a
// throwaway PostgreSQL server with its default durability (fsync and synchronous_commit on). A device
// key is enrolled through the staff route; every batch holds 200 sessions with valid signatures and
// fresh clientSessionIds, each opting in to one purpose and out of another (so each verified session
// is a consent, its event, its withdrawal token, its chain entries and its stored session row). It
// prints, in one run:
//   - sessions verified and durably stored per second, batches sent one after another and from a
//     few clients at once;
//   - the p50 / p99 latency of one 200-session batch (sent one after another);
//   - the rate at which node:crypto alone verifies the same signatures (key parsed once, as the
//     server's cache does), and the ratio of the two (target: sync >= 0.5 of crypto alone, and a
//     200-session batch in < 250 ms).
// It also prints where the time goes: the statements and transactions sent to PostgreSQL per batch,
// and (on Linux) the CPU the Guard process and PostgreSQL spent per session.
// --statements preloads pg_stat_statements and prints, per client count, the statements that took
// most of PostgreSQL's time per session (the extension costs a little: take rates from runs without).
// Asserts nothing beyond every session being verified.
//   node --import tsx bench/offline-captures.mjs [--batches 40] [--warm-up 5] [--clients 1,4] [--statements]
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { canonicalizeCaptureArtifact, signCaptureArtifact } from "@guard/contract";
import { startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";
import { cpuTimeAvailable, postmasterPid, processCpuSeconds, processTreeCpuSeconds } from "./cpu-time.mjs";
import {
  enableStatementStats,
  resetStatementStats,
  STATEMENT_STATS_SETTINGS,
  statementStats,
} from "./statement-stats.mjs";
import { startTarget } from "./target-process.mjs";

const { values } = parseArgs({
  options: {
    batches: { type: "string", default: "40" },
    "warm-up": { type: "string", default: "5" },
    clients: { type: "string", default: "1,4" },
    statements: { type: "boolean", default: false },
  },
});
const BATCH = 200;
const batches = Number(values.batches);
const warmUp = Number(values["warm-up"]);
const clientCounts = values.clients.split(",").map(Number);
const run = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let serial = 0;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

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

/** A batch of freshly signed sessions (signing is outside every measurement). */
function signedBatch(device, organization) {
  const sessions = [];
  for (let i = 0; i < BATCH; i += 1) {
    const session = {
      clientSessionId: `bench-${run}-${(serial += 1)}`,
      deviceId: device.deviceId,
      noticeId: organization.noticeId,
      noticeVersion: organization.noticeVersion,
      noticeLocale: "en",
      channel: "agent_app",
      capturedAtClient: Date.now() - 60_000,
      dataTypes: ["name", "phone"],
      purposeGrants: [
        {
          purposeKey: organization.purpose,
          purposeLabel: "Account",
          category: "essential",
          status: "opt_in",
        },
        {
          purposeKey: organization.optOut,
          purposeLabel: "Other",
          category: "non_essential",
          status: "opt_out",
        },
      ],
      principalHandle: { kind: "phone_hash", value: `+9198${String(serial).padStart(8, "0")}` },
    };
    const canonical = canonicalizeCaptureArtifact({
      ...session,
      organizationId: organization.organizationId,
    });
    sessions.push({
      body: { ...session, deviceSignature: signCaptureArtifact(device.privateKey, canonical) },
      canonical,
    });
  }
  return sessions;
}

async function syncBatch(url, organization, batch) {
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/offline/captures`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${organization.apiKey}` },
    body: JSON.stringify({ sessions: batch.map((s) => s.body) }),
  });
  const text = await response.text();
  const elapsed = performance.now() - started;
  if (response.status !== 200) throw new Error(`sync answered ${response.status} ${text.slice(0, 300)}`);
  const { results } = JSON.parse(text);
  const notVerified = results.filter((r) => r.status !== "verified");
  if (notVerified.length) throw new Error(`not verified: ${JSON.stringify(notVerified.slice(0, 3))}`);
  return elapsed;
}

/** Verifications per second by node:crypto alone over the same canonical strings and signatures. */
function cryptoRate(device, batch, minimumMs = 2_000) {
  const key = createPublicKey({
    key: Buffer.from(device.publicKeySpki, "base64"),
    format: "der",
    type: "spki",
  });
  const prepared = batch.map((s) => ({
    data: Buffer.from(s.canonical, "utf8"),
    signature: Buffer.from(s.body.deviceSignature, "base64"),
  }));
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < minimumMs) {
    for (const { data, signature } of prepared) {
      if (!verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, signature))
        throw new Error("bad signature");
      count += 1;
    }
  }
  return count / ((performance.now() - started) / 1000);
}

const cluster = await startThrowawayPostgres({
  durable: true,
  log: () => {},
  ...(values.statements ? { settings: STATEMENT_STATS_SETTINGS } : {}),
});
if (values.statements) await enableStatementStats(cluster.url);
let target;
try {
  target = await startTarget(["writes", "1000", cluster.adminUrl]);
  const { url, organizations } = target.ready;
  const organization = { ...organizations[0] };
  const notice = await call(url, "GET", `/api/v1/notices/${organization.noticeId}`);
  organization.noticeVersion = notice.version;
  const purposes = notice.itemized.map((p) => p.purpose);
  organization.optOut = purposes.find((p) => p !== organization.purpose) ?? organization.purpose;
  if (organization.optOut === organization.purpose) throw new Error("the bench notice needs two purposes");

  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const publicKeySpki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  const enrolled = await call(url, "POST", "/api/v1/staff/devices", {
    token: organization.apiKey,
    body: { label: "bench tablet", channel: "agent_app", publicKeySpki },
  });
  const device = { deviceId: enrolled.deviceId, privateKey, publicKeySpki };

  for (let i = 0; i < warmUp; i += 1) await syncBatch(url, organization, signedBatch(device, organization));
  const databasePid = postmasterPid(cluster.dataDir);
  const cpu = () => ({
    server: processCpuSeconds(target.pid),
    database: databasePid === undefined ? undefined : processTreeCpuSeconds(databasePid),
  });
  const perSessionMicros = (before, after) =>
    before === undefined || after === undefined
      ? undefined
      : Math.round(((after - before) * 1e6) / (batches * BATCH));

  console.log(`offline capture sync, batches of ${BATCH}, PostgreSQL (durable), ${batches} batches per row`);
  const rows = [];
  const statementTables = [];
  let sequentialLatencies = [];
  for (const clients of clientCounts) {
    const prepared = Array.from({ length: batches }, () => signedBatch(device, organization));
    const latencies = [];
    const countersBefore = await target.ask("counters");
    const cpuBefore = cpu();
    if (values.statements) await resetStatementStats(cluster.url);
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (next < prepared.length) {
          const batch = prepared[next];
          next += 1;
          latencies.push(await syncBatch(url, organization, batch));
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const cpuAfter = cpu();
    const countersAfter = await target.ask("counters");
    if (values.statements) {
      const stats = await statementStats(cluster.url, batches * BATCH, "session");
      statementTables.push({
        title: `${clients} client(s): ${stats.totalMicrosPerUnit.toFixed(0)} µs of statement time per session`,
        top: stats.top,
      });
    }
    latencies.sort((a, b) => a - b);
    if (clients === 1) sequentialLatencies = latencies;
    rows.push({
      clients,
      "sessions/s": Math.round((batches * BATCH) / seconds),
      "batch p50 ms": Math.round(quantile(latencies, 0.5)),
      "batch p99 ms": Math.round(quantile(latencies, 0.99)),
      // Where the time goes: statements sent to PostgreSQL per 200-session batch.
      "statements/batch": Math.round((countersAfter.statements - countersBefore.statements) / batches),
      "transactions/batch": Math.round((countersAfter.transactions - countersBefore.transactions) / batches),
      ...(cpuTimeAvailable
        ? {
            "server µs/session": perSessionMicros(cpuBefore.server, cpuAfter.server),
            "db µs/session": perSessionMicros(cpuBefore.database, cpuAfter.database),
          }
        : {}),
    });
  }
  const rate = cryptoRate(device, signedBatch(device, organization));
  console.table(rows);
  for (const { title, top } of statementTables) {
    console.log(title);
    console.table(top);
  }
  const best = Math.max(...rows.map((r) => r["sessions/s"]));
  console.log(`node:crypto alone: ${Math.round(rate)} verifications/s (one thread)`);
  console.log(
    `ratio sync / crypto: ${(best / rate).toFixed(2)} (best row; target >= 0.5)` +
      (sequentialLatencies.length
        ? `; one batch after another: p50 ${Math.round(quantile(sequentialLatencies, 0.5))} ms, p99 ${Math.round(
            quantile(sequentialLatencies, 0.99),
          )} ms (target < 250 ms)`
        : ""),
  );
} finally {
  await target?.stop();
  await cluster.stop();
}
