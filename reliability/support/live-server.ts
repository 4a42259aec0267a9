// An in-process Guard listening on loopback with the real clock, on a fresh database of the engine
// under test (GUARD_TEST_DB, as server/test does), so the reliability tests speak HTTP exactly as a
// client would. Organisations are seeded straight into the database; everything else goes over HTTP.
import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { createApiKey } from "../../server/src/accounts/api-keys.js";
import { createOrganization, type Organization } from "../../server/src/accounts/organizations.js";
import { createStaffUser } from "../../server/src/accounts/staff.js";
import { createApp } from "../../server/src/app.js";
import { testConfig, type Config } from "../../server/src/config.js";
import { openDatabase, type Database } from "../../server/src/db/database.js";
import { systemClock } from "../../server/src/lib/clock.js";
import { ROUTE_MODULES } from "../../server/src/routes.js";
import { SecretBox } from "../../server/src/lib/secret-box.js";
import { WebhookWorker, type WebhookWorkerOptions } from "../../server/src/webhooks/worker.js";
import { openTestDatabase } from "../../server/test/support/harness.js";
import { call, type Answer, type CallOptions } from "./http.js";

export type WorkerOptions = Omit<WebhookWorkerOptions, "db" | "clock" | "secrets">;

export interface LiveServer {
  url: string;
  app: FastifyInstance;
  db: Database;
  /** The PostgreSQL database under test; undefined on PGlite. */
  databaseUrl: string | undefined;
  config: Config;
  /** Service log lines (JSON), for asserting what was logged. */
  logs: string[];
  call(path: string, options?: CallOptions): Promise<Answer>;
  close(): Promise<void>;
}

/** Starts the server; with `worker`, a webhook delivery worker runs beside it with those options. */
export async function startLiveServer(
  options: { worker?: WorkerOptions; config?: Partial<Config>; sameDatabaseAs?: LiveServer } = {},
): Promise<LiveServer> {
  const { db, url, dispose } = options.sameDatabaseAs
    ? await secondConnection(options.sameDatabaseAs)
    : await openTestDatabase();
  const config = options.sameDatabaseAs?.config ?? testConfig({ logLevel: "info", ...options.config });
  const logs: string[] = [];
  const app = await createApp({
    config,
    db,
    clock: systemClock,
    routes: ROUTE_MODULES,
    logStream: { write: (line: string) => void logs.push(line) },
  });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  const worker = options.worker
    ? new WebhookWorker({
        db,
        clock: systemClock,
        secrets: new SecretBox(config.secretsKey),
        ...options.worker,
      })
    : undefined;
  worker?.start();
  return {
    url: address,
    app,
    db,
    databaseUrl: url,
    config,
    logs,
    call: (path, callOptions) => call(address, path, callOptions),
    close: async () => {
      await worker?.stop();
      await app.close();
      await dispose();
    },
  };
}

/**
 * Another instance's connection to `first`'s database, as a second server process would have: its
 * own pool on PostgreSQL; on PGlite (one process by design) the same database object.
 */
async function secondConnection(
  first: LiveServer,
): Promise<{ db: Database; url: string | undefined; dispose(): Promise<void> }> {
  if (!first.databaseUrl) return { db: first.db, url: undefined, dispose: async () => {} };
  const db = await openDatabase({ databaseUrl: first.databaseUrl });
  return { db, url: first.databaseUrl, dispose: () => db.close() };
}

export interface Org {
  org: Organization;
  apiKey: string;
  apiKeyId: string;
  /** Headers of a signed-in admin (session cookie and CSRF token). */
  staff: Record<string, string>;
  /** A brokered principal of this organisation. */
  principal: { externalId: string; email: string; token: string };
}

/** An organisation with a service key, a signed-in admin and one brokered principal. */
export async function seedOrg(server: LiveServer, label = "org"): Promise<Org> {
  const suffix = randomBytes(4).toString("hex");
  const slug = `${label}-${suffix}`;
  const now = Date.now();
  const org = await createOrganization(server.db, { slug, name: `Org ${slug}` }, now);
  const key = await createApiKey(
    server.db,
    { organizationId: org.organizationId, name: "reliability", createdBy: null },
    now,
  );
  const email = `admin@${slug}.example`;
  const password = `pw-${randomBytes(12).toString("hex")}`;
  await createStaffUser(
    server.db,
    { organizationId: org.organizationId, email, role: "admin", password },
    now,
  );
  const session = await server.call("/api/v1/staff/session", {
    method: "POST",
    body: { organizationSlug: slug, email, password },
  });
  if (session.status !== 201) throw new Error(`sign-in failed: ${session.status} ${session.text}`);
  const cookie = String(session.headers["set-cookie"]?.find((c) => c.startsWith("guard_session=")) ?? "");
  const staff = {
    cookie: cookie.split(";")[0]!,
    "x-csrf-token": session.json<{ csrfToken: string }>().csrfToken,
  };
  const principalEmail = `user-${suffix}@${slug}.example`;
  const token = await brokerToken(server, key.key, `user-${suffix}`, principalEmail);
  return {
    org,
    apiKey: key.key,
    apiKeyId: key.apiKeyId,
    staff,
    principal: { externalId: `user-${suffix}`, email: principalEmail, token },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** A principal access token (the principal is created on first sight, with `email` associated). */
export async function brokerToken(
  server: { call: LiveServer["call"] },
  apiKey: string,
  externalId: string,
  email?: string,
): Promise<string> {
  const res = await server.call("/api/v1/auth/broker-token", {
    method: "POST",
    headers: bearer(apiKey),
    body: email === undefined ? { externalId } : { externalId, email },
  });
  if (res.status !== 201) throw new Error(`broker-token: ${res.status} ${res.text}`);
  return res.json<{ accessToken: string }>().accessToken;
}

/** Asserts the status (throwing with the body) and returns the JSON answer. */
export function expectStatus<T = Record<string, unknown>>(res: Answer, status: number, what: string): T {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status}: ${res.text}`);
  return res.json<T>();
}

/** The published notice every fixture uses: two purposes, one of them marketing. */
export const NOTICE_DRAFT = {
  itemized: [
    { purpose: "Account", personalDataDescription: "Name and email, to run your account." },
    { purpose: "Newsletter", personalDataDescription: "Email, to send the monthly newsletter." },
  ],
  content: {
    en: {
      title: "How we use your data",
      body: "Only for the purposes listed.",
      withdrawal: "Withdraw at any time from Settings > Privacy.",
      rights: "Ask for a summary, correction or erasure, or nominate someone.",
      complaint: "You may complain to the Data Protection Board of India.",
    },
  },
};

/** Creates and publishes a notice through the staff API; returns its id. */
export async function publishNotice(server: LiveServer, org: Org, title?: string): Promise<string> {
  const draft = {
    ...NOTICE_DRAFT,
    content: { en: { ...NOTICE_DRAFT.content.en, title: title ?? NOTICE_DRAFT.content.en.title } },
  };
  const created = await server.call("/api/v1/staff/notices", {
    method: "POST",
    headers: org.staff,
    body: { key: `n-${randomBytes(4).toString("hex")}`, ...draft },
  });
  const { noticeId } = expectStatus<{ noticeId: string }>(created, 201, "create notice");
  expectStatus(
    await server.call(`/api/v1/staff/notices/${noticeId}/publish`, { method: "POST", headers: org.staff }),
    200,
    "publish notice",
  );
  return noticeId;
}
