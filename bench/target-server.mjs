// One benchmark target, run as its own process so the load generator never shares its event loop:
//   node --import tsx bench/target-server.mjs guard CONSENTS [DATABASE_URL]
//       a real Guard server (PGlite in a temp dir, or the given PostgreSQL) whose organisation holds
//       CONSENTS anonymous consents, given and withdrawn (one in ten) through the same functions as
//       the API, so each is on the audit chain and in the webhook outbox like any other
//   node --import tsx bench/target-server.mjs bare
//       a bare Fastify JSON route
// Prints one JSON line {url, ...fixtures} when ready; on SIGTERM prints {gateDecisionsLogged} and exits.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { createApiKey } from "../server/src/accounts/api-keys.ts";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { testConfig } from "../server/src/config.ts";
import { giveConsent, withdrawConsent } from "../server/src/consent/consents.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { startServer } from "../server/src/server.ts";

const [mode, ...rest] = process.argv.slice(2);
const print = (value) => process.stdout.write(`${JSON.stringify(value)}\n`);

if (mode === "bare") {
  const app = Fastify({ logger: false });
  app.post("/bare", async (request) => ({
    decision: "allow",
    reason: "consent_active",
    consentId: request.body.consentId,
  }));
  const url = await app.listen({ host: "127.0.0.1", port: 0 });
  print({ url });
  process.once("SIGTERM", async () => {
    await app.close();
    print({ gateDecisionsLogged: null });
    process.exit(0);
  });
} else if (mode === "guard") {
  const [consentCount, databaseUrl] = [Number(rest[0]), rest[1]];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bench-"));
  const config = testConfig({ dataDir, databaseUrl: databaseUrl || undefined, logLevel: "warn", port: 0 });
  const server = await startServer(config);
  const now = Date.now();
  const org = await createOrganization(server.db, { slug: "bench", name: "Bench" }, now);
  const key = await createApiKey(
    server.db,
    { organizationId: org.organizationId, name: "bench", createdBy: null },
    now,
  );
  const notice = await publishNotice(server.db, org.organizationId, parseNoticeDraft(DEMO_NOTICE), now);
  const consentIds = await seedConsents(server.db, config, org.organizationId, notice, consentCount, now);
  print({ url: server.url, apiKey: key.key, consentIds });
  process.once("SIGTERM", async () => {
    const [row] = await server.db.query("SELECT count(*)::int AS n FROM gate_decisions");
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    print({ gateDecisionsLogged: row.n });
    process.exit(0);
  });
} else {
  console.error("usage: target-server.mjs guard CONSENTS [DATABASE_URL] | bare");
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
