// One benchmark target, run as its own process so the load generator never shares its event loop:
//   node --import tsx bench/target-server.mjs guard [DATABASE_URL]   a real Guard server (PGlite in a
//                                                                   temp dir, or the given PostgreSQL)
//   node --import tsx bench/target-server.mjs bare                  a bare Fastify JSON route
// Prints one JSON line {url, ...fixtures} when ready; on SIGTERM prints {gateDecisionsLogged} and exits.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Fastify from "fastify";
import { createApiKey } from "../server/src/accounts/api-keys.ts";
import { createOrganization } from "../server/src/accounts/organizations.ts";
import { testConfig } from "../server/src/config.ts";
import { parseNoticeDraft, publishNotice } from "../server/src/notices/notices.ts";
import { DEMO_NOTICE } from "../server/src/demo/seed.ts";
import { startServer } from "../server/src/server.ts";

const [mode, databaseUrl] = process.argv.slice(2);
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
  print({ url: server.url, apiKey: key.key, organizationId: org.organizationId, noticeId: notice.noticeId });
  process.once("SIGTERM", async () => {
    const [row] = await server.db.query("SELECT count(*)::int AS n FROM gate_decisions");
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    print({ gateDecisionsLogged: row.n });
    process.exit(0);
  });
} else {
  console.error("usage: target-server.mjs guard [DATABASE_URL] | bare");
  process.exit(2);
}
