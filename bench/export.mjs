// `npm run bench:export`: the consent evidence export (GET /api/v1/staff/exports/consent-evidence)
// against the database's own fastest way out, `COPY (select) TO STDOUT`, on PGlite and on a
// throwaway PostgreSQL server. Each engine gets one organisation holding `--consents` consents
// (one principal each, every tenth withdrawn), seeded by one INSERT ... SELECT generate_series with
// well-formed audit columns; the export is downloaded whole through a real listening server and its
// rows/s compared with COPY of the same rows and columns on the same engine. The server runs in
// this process, so the memory sampled during the download is the server's cost of the export (plus
// the small cost of counting the bytes received): peak RSS, and with --expose-gc (as `npm run
// bench:export` runs it) the peak live heap of an extra round. Prints figures; asserts nothing.
//   node --expose-gc --import tsx bench/export.mjs [--consents 100000] [--engines pglite,postgres] [--rounds 3]
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { createStaffUser } from "../server/src/accounts/staff.ts";
import { testConfig } from "../server/src/config.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";
import { startServer } from "../server/src/server.ts";
import { findPostgresBinDir, startThrowawayPostgres } from "../scripts/lib/postgres-cluster.mjs";

const { values } = parseArgs({
  options: {
    consents: { type: "string", default: "100000" },
    engines: { type: "string", default: "pglite,postgres" },
    rounds: { type: "string", default: "3" },
  },
});
const consentCount = Number(values.consents);
const engines = values.engines.split(",").filter(Boolean);
const rounds = Number(values.rounds);
const FROM = 1_700_000_000_000;
const TO = FROM + consentCount + 1;

// The export's rows as one SELECT, for COPY: the same columns and formatting, without the
// formula guard and RFC 4180 quoting that COPY's CSV mode does its own way.
const copySelect = (organizationId) => `
  SELECT c.consent_id, c.principal_id, p.external_id, c.anonymous_id, c.notice_id, c.notice_version,
         c.purpose, (SELECT string_agg(x, ';') FROM jsonb_array_elements_text(c.data_types) AS x) AS data_types,
         c.source,
         to_char(to_timestamp(c.given_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         to_char(to_timestamp(c.withdrawn_at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
         c.withdrawal_reason, c.audit_hash, c.audit_key_version
    FROM consents c
    LEFT JOIN principals p ON p.organization_id = c.organization_id AND p.principal_id = c.principal_id
   WHERE c.organization_id = '${organizationId}' AND c.given_at >= ${FROM} AND c.given_at < ${TO}
   ORDER BY c.given_at, c.consent_id`;

/** One organisation with a notice, a viewer and `consentCount` consents. */
async function seed(db, now) {
  const org = await createOrganization(db, { slug: "bench", name: "Bench" }, now);
  const notice = await publishNotice(db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
  const password = "bench-viewer-password";
  await createStaffUser(
    db,
    { organizationId: org.organizationId, email: "viewer@bench.example", role: "viewer", password },
    now,
  );
  await db.query(
    `INSERT INTO principals (organization_id, principal_id, external_id, email, created_at)
     SELECT $1, 'prn_' || i, 'user-' || i, 'user' || i || '@bench.example', $3
       FROM generate_series(1, $2::int) AS i`,
    [org.organizationId, consentCount, now],
  );
  // Every tenth withdrawn by the principal; audit_hash is 64 hex characters like the real one.
  await db.query(
    `INSERT INTO consents (organization_id, consent_id, principal_id, anonymous_id, notice_id, notice_version,
       purpose, data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash, audit_key_version)
     SELECT $1, 'cns_' || lpad(i::text, 8, '0'), 'prn_' || i, NULL, $3, $4, $5, '["email","name"]'::jsonb,
       'direct', $6::bigint + i,
       CASE WHEN i % 10 = 0 THEN $6::bigint + i + 1000 END,
       CASE WHEN i % 10 = 0 THEN 'principal_request' END,
       encode(sha256(convert_to('cns_' || i, 'UTF8')), 'hex'), 1
       FROM generate_series(1, $2::int) AS i`,
    [
      org.organizationId,
      consentCount,
      notice.noticeId,
      notice.version,
      DEMO_NOTICE.itemized[0].purpose,
      FROM,
    ],
  );
  await db.query("ANALYZE consents");
  await db.query("ANALYZE principals");
  return { org, password };
}

/** A GET read to the end; resolves with bytes, rows (CRLF count minus the header) and headers. */
function download(url, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`export answered ${res.statusCode}`));
      let bytes = 0;
      let lines = 0;
      res.on("data", (chunk) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
      });
      res.on("end", () =>
        res.complete
          ? resolve({ bytes, rows: lines - 1, headers: res.headers })
          : reject(new Error("truncated")),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
  });
}

async function signIn(baseUrl, password) {
  const res = await fetch(`${baseUrl}/api/v1/staff/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organizationSlug: "bench", email: "viewer@bench.example", password }),
  });
  if (res.status !== 201) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith("guard_session="));
  return { cookie: cookie.split(";")[0] };
}

/**
 * The HTTP export, downloaded whole: rows/s and the peak RSS above the level before it began. RSS
 * counts garbage V8 has not collected yet (a page's strings are large objects, freed at the next
 * major GC), so a `live` round instead forces a full GC every 100 ms and records the peak heap
 * still in use: what the export actually holds. That round's rows/s is not reported.
 */
async function measureExport(baseUrl, headers, { live = false } = {}) {
  globalThis.gc?.();
  const baseline = process.memoryUsage();
  let peakRss = baseline.rss;
  let peakLiveHeap = baseline.heapUsed;
  const sample = () => {
    if (live) {
      globalThis.gc();
      peakLiveHeap = Math.max(peakLiveHeap, process.memoryUsage().heapUsed);
    } else peakRss = Math.max(peakRss, process.memoryUsage.rss());
  };
  const sampler = setInterval(sample, live ? 100 : 5);
  const started = performance.now();
  const result = await download(
    `${baseUrl}/api/v1/staff/exports/consent-evidence?from=${FROM}&to=${TO}`,
    headers,
  );
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  sample();
  if (result.rows !== consentCount || Number(result.headers["x-guard-export-rows"]) !== consentCount)
    throw new Error(`exported ${result.rows} rows, header says ${result.headers["x-guard-export-rows"]}`);
  return {
    rowsPerSecond: result.rows / seconds,
    bytes: result.bytes,
    rssDeltaMb: (peakRss - baseline.rss) / 2 ** 20,
    liveHeapDeltaMb: (peakLiveHeap - baseline.heapUsed) / 2 ** 20,
  };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchEngine(engine) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-export-"));
  const cluster = engine === "postgres" ? await startThrowawayPostgres() : undefined;
  try {
    const config = testConfig({ dataDir, databaseUrl: cluster?.url, logLevel: "warn", port: 0 });
    const server = await startServer(config);
    const now = Date.now();
    const seedStarted = performance.now();
    const { org, password } = await seed(server.db, now);
    const seedSeconds = (performance.now() - seedStarted) / 1000;
    const headers = await signIn(server.url, password);
    const exports = [];
    for (let r = 0; r < rounds; r++) exports.push(await measureExport(server.url, headers));
    const live = globalThis.gc ? await measureExport(server.url, headers, { live: true }) : undefined;
    await server.stop();

    // COPY of the same rows on the same engine, after the server let go of the database.
    const copies = [];
    if (engine === "pglite") {
      const db = new PGlite(path.join(dataDir, "pgdata"));
      try {
        for (let r = 0; r < rounds; r++) {
          const started = performance.now();
          const result = await db.query(
            `COPY (${copySelect(org.organizationId)}) TO '/dev/blob' WITH (FORMAT csv, HEADER)`,
          );
          const seconds = (performance.now() - started) / 1000;
          copies.push({ rowsPerSecond: consentCount / seconds, bytes: result.blob.size });
        }
      } finally {
        await db.close();
      }
    } else {
      const psql = path.join(findPostgresBinDir(), "psql");
      for (let r = 0; r < rounds; r++) {
        const started = performance.now();
        const run = spawnSync(
          fs.existsSync(psql) ? psql : "psql",
          [
            cluster.url,
            "-X",
            "-q",
            "-c",
            `COPY (${copySelect(org.organizationId)}) TO STDOUT WITH (FORMAT csv, HEADER)`,
          ],
          { maxBuffer: 1 << 30 },
        );
        const seconds = (performance.now() - started) / 1000;
        if (run.status !== 0) throw new Error(`psql failed: ${run.stderr}`);
        copies.push({ rowsPerSecond: consentCount / seconds, bytes: run.stdout.length });
      }
    }
    return {
      engine,
      seedSeconds,
      exportRowsPerSecond: median(exports.map((e) => e.rowsPerSecond)),
      exportMb: exports[0].bytes / 2 ** 20,
      rssDeltaMb: Math.max(...exports.map((e) => e.rssDeltaMb)),
      liveHeapDeltaMb: live?.liveHeapDeltaMb,
      copyRowsPerSecond: median(copies.map((c) => c.rowsPerSecond)),
      copyMb: copies[0].bytes / 2 ** 20,
    };
  } finally {
    await cluster?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const results = [];
for (const engine of engines) results.push(await benchEngine(engine));

const fmt = (n, digits = 0) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(
  `\nconsent evidence export, ${consentCount.toLocaleString("en-US")} consents, median of ${rounds} rounds\n`,
);
console.log(
  "| engine | export rows/s | COPY rows/s | export / COPY | export MB | COPY MB | peak RSS delta (MB) | peak live heap delta (MB) | seed s |",
);
console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  const liveHeap = r.liveHeapDeltaMb === undefined ? "(needs --expose-gc)" : fmt(r.liveHeapDeltaMb, 1);
  console.log(
    `| ${r.engine} | ${fmt(r.exportRowsPerSecond)} | ${fmt(r.copyRowsPerSecond)} | ${fmt(r.exportRowsPerSecond / r.copyRowsPerSecond, 2)} | ` +
      `${fmt(r.exportMb, 1)} | ${fmt(r.copyMb, 1)} | ${fmt(r.rssDeltaMb, 1)} | ${liveHeap} | ${fmt(r.seedSeconds, 1)} |`,
  );
}
