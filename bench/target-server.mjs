// One benchmark target, run as its own process so the load generator never shares its event loop:
//   node --import tsx bench/target-server.mjs guard CONSENTS [DATABASE_URL] [--log-level LEVEL]
//       a real Guard server (PGlite in a temp dir, or the given PostgreSQL) whose organisation holds
//       CONSENTS anonymous consents, given and withdrawn (one in ten) through the same functions as
//       the API, so each is on the audit chain and in the webhook outbox like any other
//   node --import tsx bench/target-server.mjs writes SIZES [DATABASE_URL] [--log-level LEVEL]
//       a real Guard server with one organisation per size in SIZES (comma-separated consent
//       counts), each with a service key and a published notice, its consents bulk-inserted in SQL
//       (seedConsentsInBulk says what and why); on PostgreSQL it counts the statements it sends
//   node --import tsx bench/target-server.mjs bare
//       a bare Fastify JSON route
//   node --import tsx bench/target-server.mjs floor DATABASE_URL
//       the floor of any HTTP write: a bare Fastify route inserting one row per request (the
//       statement `pgbench` runs in bench/writes.mjs, prepared, through a pool of Guard's size)
// The log level defaults to the shipped default (the server's own when GUARD_LOG_LEVEL is unset):
// the benchmarks measure what a deployment runs unless told otherwise.
// Talks over file descriptor 3 (target-process.mjs starts it): one JSON line {url, ...fixtures}
// when ready, one when it stops on SIGTERM ({gateDecisionsLogged} in `guard` mode); in `writes` mode
// each line "counters" sent to it is answered with a JSON line of statement counters. Its logs go to
// stdout, as a deployment's do.
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import net from "node:net";
import { performance } from "node:perf_hooks";
import readline from "node:readline";
import { parseArgs } from "node:util";
import Fastify from "fastify";
import pg from "pg";
import { createApiKey } from "../server/src/accounts/api-keys.ts";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { loadConfig } from "../server/src/config.ts";
import { giveConsent, withdrawConsent } from "../server/src/consent/consents.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { startServer } from "../server/src/server.ts";

const {
  positionals: [mode, ...rest],
  values: options,
} = parseArgs({ allowPositionals: true, options: { "log-level": { type: "string" } } });

/**
 * The configuration a deployment gets from this environment: only the secrets are set (fixed, so
 * nothing is written to disk and every instance on one PostgreSQL agrees), and the log level when
 * `--log-level` names one; everything else is the shipped default.
 */
function benchConfig(dataDir, databaseUrl) {
  const env = {
    GUARD_TOKEN_SECRET: "bench-token-secret-bench-token-secret-0123456789",
    GUARD_AUDIT_HASH_KEYS: "1:bench-audit-secret-bench-audit-secret-0123456789",
    GUARD_SECRETS_KEY: "bench-secrets-key-bench-secrets-key-0123456789",
    ...(options["log-level"] ? { GUARD_LOG_LEVEL: options["log-level"] } : {}),
  };
  return loadConfig(env, { dataDir, databaseUrl: databaseUrl || undefined, port: 0 });
}

/** The control channel (fd 3, see target-process.mjs), opened on first use. */
let control;
function controlChannel() {
  control ??= new net.Socket({ fd: 3, readable: true, writable: true });
  return control;
}

/** Writes one JSON line to the control channel; resolves once it is handed to the kernel. */
function print(value) {
  return new Promise((resolve, reject) =>
    controlChannel().write(`${JSON.stringify(value)}\n`, (error) => (error ? reject(error) : resolve())),
  );
}

/** Answers each command line on the control channel with the JSON its handler returns. */
function answerCommands(handlers) {
  readline.createInterface({ input: controlChannel() }).on("line", (line) => {
    const handler = handlers[line.trim()];
    void print(handler ? handler() : { error: `unknown command ${line}` });
  });
}

/** Stops the server and removes its data directory, even when stopping fails. */
async function stopAndRemove(server, dataDir) {
  try {
    await server.stop();
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** An organisation with a service key and the demo notice published. */
async function benchOrganization(db, slug, now) {
  const org = await createOrganization(db, { slug, name: slug }, now);
  const key = await createApiKey(
    db,
    { organizationId: org.organizationId, name: "bench", createdBy: null },
    now,
  );
  const notice = await publishNotice(db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
  return { organizationId: org.organizationId, apiKey: key.key, notice };
}

/**
 * Statements this process sends to PostgreSQL, counted in the driver: `statements` (BEGIN, COMMIT
 * and ROLLBACK excluded), `transactions` (each COMMIT, and each statement sent outside a
 * transaction, which PostgreSQL commits on its own) and `writingTransactions`, those of them that
 * insert, update or delete, each of which waits for its WAL flush. Counted here rather than with
 * pg_stat_statements because the throwaway cluster takes no server options.
 */
/** bench/writes.mjs's `pgbench` row, parameterised: its table, columns and constants. */
const FLOOR_INSERT = `INSERT INTO plain_inserts VALUES ($1, 'org_bench', $2, 'ntc_bench', 1, 'Marketing',
  '["email"]', 'anonymous', $3, md5(random()::text))`;

const statementCounters = { statements: 0, transactions: 0, writingTransactions: 0 };
const WRITES = /\bINSERT\s+INTO\b|\bDELETE\s+FROM\b|\bUPDATE\s+[\w."]+(\s+(AS\s+)?\w+)?\s+SET\b/i;
const OPEN_TRANSACTION = Symbol("open transaction");

function countStatements() {
  const send = pg.Client.prototype.query;
  pg.Client.prototype.query = function (statement, ...more) {
    const text = typeof statement === "string" ? statement : statement?.text;
    if (typeof text === "string") count(this, text);
    return send.call(this, statement, ...more);
  };
  function count(client, text) {
    const verb = /^\s*(\w+)/.exec(text)?.[1].toUpperCase();
    if (verb === "BEGIN" || verb === "START") {
      client[OPEN_TRANSACTION] = { writes: false };
    } else if (verb === "COMMIT" || verb === "END") {
      statementCounters.transactions += 1;
      if (client[OPEN_TRANSACTION]?.writes) statementCounters.writingTransactions += 1;
      client[OPEN_TRANSACTION] = undefined;
    } else if (verb === "ROLLBACK") {
      client[OPEN_TRANSACTION] = undefined;
    } else {
      statementCounters.statements += 1;
      const writes = WRITES.test(text);
      if (client[OPEN_TRANSACTION]) {
        client[OPEN_TRANSACTION].writes ||= writes;
      } else {
        statementCounters.transactions += 1;
        if (writes) statementCounters.writingTransactions += 1;
      }
    }
  }
}

/**
 * Puts `count` consents into the organisation in bulk SQL (seconds taken): guest consents, as the
 * banner gives them, to the notice's first purpose, one in ten withdrawn, given over the last
 * `count` seconds, with random-looking ids (as `newId` makes) so the primary key grows as in use.
 * Only `consents` is filled: it is the table the capture path reads (the guest's active consent,
 * the unique indexes it must pass); consent events, audit-chain entries and outbox events are only
 * appended to at their right-hand edge, and the chain head is one row whatever the chain's length,
 * so their sizes do not change the work of a capture. These consents have no evidence rows, so
 * `guard audit verify` would report them: they are benchmark data only.
 */
async function seedConsentsInBulk(db, organization, count, now) {
  const started = performance.now();
  const batch = 100_000;
  for (let from = 1; from <= count; from += batch) {
    await db.query(
      `INSERT INTO consents (organization_id, consent_id, anonymous_id, notice_id, notice_version,
         purpose, data_types, source, given_at, withdrawn_at, withdrawal_reason, audit_hash, audit_key_version)
       SELECT $1::text, 'cns_' || substr(md5($1::text || g::text), 1, 20), 'seed-guest-' || g, $2, $3,
         $4, '["email"]'::jsonb, 'anonymous', $5::bigint - g::bigint * 1000,
         CASE WHEN g % 10 = 0 THEN $5::bigint END, CASE WHEN g % 10 = 0 THEN 'principal_request' END,
         md5(g::text), 1
       FROM generate_series($6::int, $7::int) AS g`,
      [
        organization.organizationId,
        organization.notice.noticeId,
        organization.notice.version,
        DEMO_NOTICE.itemized[0].purpose,
        now,
        from,
        Math.min(from + batch - 1, count),
      ],
    );
  }
  return Math.round((performance.now() - started) / 100) / 10;
}

if (mode === "bare") {
  const app = Fastify({ logger: false });
  app.post("/bare", async (request) => ({
    decision: "allow",
    reason: "consent_active",
    consentId: request.body.consentId,
  }));
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  await print({ url });
  process.once("SIGTERM", async () => {
    await app.close();
    await print({ gateDecisionsLogged: null });
    process.exit(0);
  });
} else if (mode === "floor") {
  // The same driver and pool size as Guard's (db/database.ts), one prepared INSERT per request.
  const pool = new pg.Pool({ connectionString: rest[0], max: 10 });
  const app = Fastify({ logger: false });
  app.post("/floor", async (request) => {
    const consentId = `cns_${randomUUID()}`;
    await pool.query({
      name: "floor_insert",
      text: FLOOR_INSERT,
      values: [consentId, request.body.anonymousId, Date.now()],
    });
    return { consentId };
  });
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  await print({ url });
  process.once("SIGTERM", async () => {
    await app.close();
    await pool.end();
    await print({ stopped: true });
    process.exit(0);
  });
} else if (mode === "guard") {
  const [consentCount, databaseUrl] = [Number(rest[0]), rest[1]];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-"));
  const config = benchConfig(dataDir, databaseUrl);
  const server = await startServer(config);
  const now = Date.now();
  const { organizationId, apiKey, notice } = await benchOrganization(server.db, "bench", now);
  const consentIds = await seedConsents(server.db, config, organizationId, notice, consentCount, now);
  await print({ url: server.url, apiKey, consentIds });
  process.once("SIGTERM", async () => {
    const [row] = await server.db.query("SELECT count(*)::int AS n FROM gate_decisions");
    await stopAndRemove(server, dataDir);
    await print({ gateDecisionsLogged: row.n });
    process.exit(0);
  });
} else if (mode === "writes") {
  const [sizes, databaseUrl] = [rest[0].split(",").map(Number), rest[1]];
  if (databaseUrl) countStatements();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-"));
  const server = await startServer(benchConfig(dataDir, databaseUrl));
  const now = Date.now();
  const organizations = [];
  for (const size of sizes) {
    const organization = await benchOrganization(server.db, `bench-${size}`, now);
    const seconds = await seedConsentsInBulk(server.db, organization, size, now);
    organizations.push({
      size,
      seedSeconds: seconds,
      organizationId: organization.organizationId,
      apiKey: organization.apiKey,
      noticeId: organization.notice.noticeId,
      purpose: DEMO_NOTICE.itemized[0].purpose,
    });
  }
  // What autovacuum would have done after such growth. PGlite has no autovacuum, so there the
  // statistics are whatever the server itself keeps (issue 25, requirement 5).
  if (server.db.kind === "postgres") await server.db.query("ANALYZE");
  await print({ url: server.url, organizations });
  answerCommands({ counters: () => ({ ...statementCounters }) });
  process.once("SIGTERM", async () => {
    await stopAndRemove(server, dataDir);
    await print({ stopped: true });
    process.exit(0);
  });
} else {
  console.error(
    "usage: target-server.mjs guard CONSENTS [DATABASE_URL] | writes SIZES [DATABASE_URL] | bare | floor DATABASE_URL [--log-level L]",
  );
  process.exit(2);
}

/** Gives `count` anonymous consents to the notice's first purpose and withdraws every tenth. */
async function seedConsents(db, config, organizationId, notice, count, now) {
  const consentIds = [];
  const perTransaction = 200;
  for (let start = 0; start < count; start += perTransaction) {
    await db.transaction(async (tx) => {
      for (let i = start; i < Math.min(start + perTransaction, count); i += 1) {
        const consent = await giveConsent(
          tx,
          { auditKeys: config.auditKeys },
          {
            organizationId,
            holder: { kind: "guest", anonymousId: `bench-guest-${i}` },
            notice: { noticeId: notice.noticeId, version: notice.version },
            purpose: DEMO_NOTICE.itemized[0].purpose,
            dataTypes: ["email"],
            source: "anonymous",
          },
          now,
        );
        if (i % 10 === 9) await withdrawConsent(tx, { organizationId, consentId: consent.consentId }, now);
        consentIds.push(consent.consentId);
      }
    });
  }
  return consentIds;
}
