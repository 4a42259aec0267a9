// The conformance fixture: a real Guard server on an embedded database in a temp dir, plus the
// helpers the scenarios need (a scriptable flaky front, a hanging port, a closed port, a webhook
// receiver and a control API). Prints the fixtures as one JSON line on stdout, then serves until
// SIGTERM/SIGINT. Run with `node --import tsx conformance/fixture-server.mjs`. See README.md.
import { generateKeyPairSync, randomBytes } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import net from "node:net";
import os from "node:os";
import path from "node:path";

const serverSrc = new URL("../server/src/", import.meta.url);
const load = (file) => import(new URL(file, serverSrc).href);

const { testConfig } = await load("config.js");
const { startServer } = await load("server.js");
const { createOrganization } = await load("accounts/organizations.js");
const { createStaffUser } = await load("accounts/staff.js");
const { createApiKey, revokeApiKey } = await load("accounts/api-keys.js");
const { ensurePrincipal } = await load("accounts/principals.js");
const { registerDomain, registerApp } = await load("banner/banner-config.js");
const { parseNoticeDraft, publishNotice } = await load("notices/notices.js");
const { WEBHOOK_EVENT_TYPES } = await load("webhooks/outbox.js");
const { signCaptureArtifact } = await import(
  new URL("../contract/src/canonical/capture-artifact.ts", import.meta.url).href
);

const log = (message) => process.stderr.write(`[fixture] ${message}\n`);
// When the launcher dies its pipes close; a write must not crash us before we clean up.
process.stdout.on("error", () => {});
process.stderr.on("error", () => {});
const notes = [];

const ORG_SLUG = "conformance";
const ADMIN_EMAIL = "admin@conformance.example";
const PURPOSE = "Marketing";
const OTHER_PURPOSE = "Analytics";
const BANNER_DOMAIN = "shop.conformance.example";
const BANNER_APP_ID = "com.example.conformance";

const NOTICE = {
  key: "default",
  itemized: [
    {
      purpose: PURPOSE,
      personalDataDescription: "Email address and phone number, to send offers you asked for.",
    },
    { purpose: OTHER_PURPOSE, personalDataDescription: "Device identifier, to count visits." },
  ],
  content: {
    en: {
      title: "How Conformance Fixture Ltd uses your personal data",
      body: "We process the personal data listed against each purpose only for that purpose, with your consent.",
    },
  },
};

// ----- small HTTP helpers ------------------------------------------------------------------------

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server.address().port));
  });
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => resolve(Buffer.concat(chunks)));
    request.on("error", reject);
  });
}

function sendJson(response, status, value) {
  const body = JSON.stringify(value);
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  response.end(body);
}

/** An HTTP request to the Guard server, for setting things up through its own API. */
async function guardRequest(baseUrl, method, pathname, { body, headers = {} } = {}) {
  const response = await fetch(new URL(pathname, baseUrl), {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

// ----- the Guard server and its seed -------------------------------------------------------------

const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-conformance-"));

// Everything started registers how to stop it, so a stop at any point (even mid-start-up) releases
// what exists and removes the temp dir.
const cleanups = [];
let stopping = false;
async function stop(reason, exitCode = 0) {
  if (stopping) return;
  stopping = true;
  log(`${reason}: stopping`);
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      log(`cleanup: ${error}`);
    }
  }
  fs.rmSync(tempDir, { recursive: true, force: true });
  process.exit(exitCode);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
process.on("unhandledRejection", (error) => void stop(`failed: ${error?.stack ?? error}`, 1));
if (process.argv.includes("--exit-with-parent")) {
  // The launcher holds our stdin open; end-of-file means it is gone, so nobody will stop us.
  process.stdin.on("end", () => void stop("parent gone")).resume();
}

/** Listens on 127.0.0.1 and registers the server's shutdown. */
async function serve(server) {
  const port = await listen(server);
  cleanups.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  );
  return port;
}

const guard = await startServer(
  testConfig({ dataDir: path.join(tempDir, "data"), port: 0, host: "127.0.0.1" }),
);
cleanups.push(() => guard.stop());
const baseUrl = guard.url;
const db = guard.db;

async function seed() {
  const now = Date.now();
  const adminPassword = randomBytes(18).toString("base64url");
  const org = await createOrganization(db, { slug: ORG_SLUG, name: "Conformance Fixture Ltd" }, now);
  const organizationId = org.organizationId;
  await createStaffUser(
    db,
    { organizationId, email: ADMIN_EMAIL, role: "admin", password: adminPassword },
    now,
  );
  await registerDomain(db, organizationId, BANNER_DOMAIN, now);
  await registerApp(db, organizationId, BANNER_APP_ID, now);
  const apiKey = await createApiKey(
    db,
    { organizationId, name: "conformance backend", createdBy: null },
    now,
  );
  const revoked = await createApiKey(db, { organizationId, name: "revoked key", createdBy: null }, now);
  await revokeApiKey(db, { organizationId, apiKeyId: revoked.apiKeyId }, now);
  const notice = await publishNotice(db, organizationId, parseNoticeDraft(NOTICE), now);
  return { organizationId, adminPassword, apiKey: apiKey.key, revokedApiKey: revoked.key, notice };
}

const seeded = await seed();

async function servedOperations() {
  const { json } = await guardRequest(baseUrl, "GET", "/api/v1/openapi.json");
  const operations = [];
  for (const [pathname, item] of Object.entries(json?.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation && typeof operation === "object" && operation.operationId) {
        operations.push({
          operationId: operation.operationId,
          method: method.toUpperCase(),
          path: pathname,
          operation,
        });
      }
    }
  }
  return operations;
}

const operations = await servedOperations();

// ----- webhook receiver --------------------------------------------------------------------------

const deliveries = [];
const deliveryWaiters = new Set();

const receiver = http.createServer(async (request, response) => {
  const raw = await readBody(request);
  let body = null;
  try {
    body = JSON.parse(raw.toString("utf8"));
  } catch {
    // Recorded as received; a scenario decides whether a non-JSON delivery is a failure.
  }
  deliveries.push({
    rawBody: raw.toString("utf8"),
    rawBodyBase64: raw.toString("base64"),
    headers: { ...request.headers },
    body,
    receivedAt: Date.now(),
  });
  for (const wake of deliveryWaiters) wake();
  response.writeHead(204);
  response.end();
});
const receiverPort = await serve(receiver);
const webhookReceiverUrl = `http://127.0.0.1:${receiverPort}/webhooks`;

/**
 * Registers the receiver through the server's own staff API (`createWebhookEndpoint`), signed in
 * as the seeded admin, subscribed to every event type. The secret is shown in that answer only.
 */
async function registerWebhookEndpoint() {
  const create = operations.find((op) => op.operationId === "createWebhookEndpoint");
  if (!create) {
    notes.push("webhookSecret: the server serves no createWebhookEndpoint route");
    return null;
  }
  const signIn = await guardRequest(baseUrl, "POST", "/api/v1/staff/session", {
    body: { organizationSlug: ORG_SLUG, email: ADMIN_EMAIL, password: seeded.adminPassword },
  });
  if (signIn.status >= 300) {
    notes.push(`webhookSecret: staff sign-in answered ${signIn.status}`);
    return null;
  }
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0];
  const created = await guardRequest(baseUrl, "POST", create.path, {
    body: { url: webhookReceiverUrl, events: [...WEBHOOK_EVENT_TYPES] },
    headers: { cookie, "x-csrf-token": signIn.json.csrfToken },
  });
  if (created.status >= 300 || typeof created.json?.secret !== "string") {
    notes.push(
      `webhookSecret: createWebhookEndpoint answered ${created.status} ${JSON.stringify(created.json)}`,
    );
    return null;
  }
  return created.json.secret;
}

const webhookSecret = await registerWebhookEndpoint();

// ----- flaky front -------------------------------------------------------------------------------

const upstream = new URL(baseUrl);
let flakyScript = [];
let flakyLog = [];

const DEFAULT_BODIES = {
  429: { code: "RATE_LIMITED", error: "scripted rate limit" },
  500: { code: "INTERNAL_ERROR", error: "scripted fault" },
  503: { code: "UNAVAILABLE", error: "scripted outage" },
};

function forward(request, body) {
  return new Promise((resolve, reject) => {
    const headers = { ...request.headers, host: upstream.host };
    const outgoing = http.request(
      { host: upstream.hostname, port: upstream.port, method: request.method, path: request.url, headers },
      async (incoming) =>
        resolve({ status: incoming.statusCode, headers: incoming.headers, body: await readBody(incoming) }),
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const flaky = http.createServer(async (request, response) => {
  const body = await readBody(request);
  const entry = { method: request.method, path: request.url, status: 0, headers: { ...request.headers } };
  flakyLog.push(entry);
  const scripted = flakyScript.shift();
  try {
    if (scripted) {
      if (scripted.forward) await forward(request, body);
      const text =
        scripted.body !== undefined
          ? scripted.body
          : JSON.stringify(DEFAULT_BODIES[scripted.status] ?? { code: "UNAVAILABLE", error: "scripted" });
      const headers = {
        "content-type": scripted.contentType ?? "application/json",
        "content-length": Buffer.byteLength(text),
        "x-request-id": `req_flaky${flakyLog.length}`,
      };
      if (scripted.retryAfter !== undefined) headers["retry-after"] = String(scripted.retryAfter);
      entry.status = scripted.status;
      response.writeHead(scripted.status, headers);
      response.end(text);
      return;
    }
    const answer = await forward(request, body);
    entry.status = answer.status;
    const headers = { ...answer.headers };
    delete headers["transfer-encoding"];
    headers["content-length"] = answer.body.length;
    response.writeHead(answer.status, headers);
    response.end(answer.body);
  } catch (error) {
    entry.status = 599;
    log(`flaky front: ${error}`);
    response.destroy();
  }
});
const flakyPort = await serve(flaky);

// ----- hanging and closed ports ------------------------------------------------------------------

const hangingSockets = new Set();
const hanging = net.createServer((socket) => {
  // Accept and never answer: the client's own timeout must end the attempt.
  hangingSockets.add(socket);
  socket.on("close", () => hangingSockets.delete(socket));
  socket.on("error", () => {});
});
const hangingPort = await serve(hanging);
// Runs before the server's close (cleanups run in reverse), which would otherwise wait on them.
cleanups.push(() => hangingSockets.forEach((socket) => socket.destroy()));

const closer = net.createServer();
const closedPort = await listen(closer);
await new Promise((resolve) => closer.close(resolve));

// ----- control API -------------------------------------------------------------------------------

class ControlError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** `payload` matches when every key of `wanted` is present with a deeply equal value. */
function payloadMatches(actual, wanted) {
  if (wanted === null || typeof wanted !== "object" || Array.isArray(wanted)) {
    return JSON.stringify(actual) === JSON.stringify(wanted);
  }
  if (actual === null || typeof actual !== "object") return false;
  return Object.entries(wanted).every(([key, value]) => key in actual && payloadMatches(actual[key], value));
}

async function awaitWebhook({ eventType, payload = {}, timeoutMs = 15_000 }) {
  if (typeof eventType !== "string") throw new ControlError(400, "awaitWebhook needs eventType");
  if (!webhookSecret) throw new ControlError(503, `no webhook endpoint is registered: ${notes.join("; ")}`);
  const find = () =>
    deliveries.find((d) => d.body?.eventType === eventType && payloadMatches(d.body?.payload, payload));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found) return found;
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new ControlError(
        504,
        `no ${eventType} delivery with payload ${JSON.stringify(payload)} within ${timeoutMs} ms (${deliveries.length} deliveries received)`,
      );
    }
    await new Promise((resolve) => {
      const wake = () => {
        deliveryWaiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(wake, left);
      deliveryWaiters.add(wake);
    });
  }
}

/**
 * A data principal with an email, for `/cm/v1/consent` (which finds the principal by email). Uses
 * the server's principal store; the email goes wherever the schema keeps it, so this answers 501
 * until the server has one.
 */
async function createPrincipal({ externalId, email }) {
  if (typeof externalId !== "string" || typeof email !== "string") {
    throw new ControlError(400, "createPrincipal needs externalId and email");
  }
  const columns = await db.query(
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'principals' AND column_name = 'email'",
  );
  if (columns.length === 0)
    throw new ControlError(501, "the server stores no email for a data principal yet");
  const { principalId } = await ensurePrincipal(
    db,
    { organizationId: seeded.organizationId, externalId },
    Date.now(),
  );
  await db.query("UPDATE principals SET email = $3 WHERE organization_id = $1 AND principal_id = $2", [
    seeded.organizationId,
    principalId,
    email,
  ]);
  return { principalId };
}

/** The seeded admin's session headers (cookie and CSRF token) for the server's staff routes. */
async function staffHeaders() {
  const signIn = await guardRequest(baseUrl, "POST", "/api/v1/staff/session", {
    body: { organizationSlug: ORG_SLUG, email: ADMIN_EMAIL, password: seeded.adminPassword },
  });
  if (signIn.status >= 300) throw new ControlError(502, `staff sign-in answered ${signIn.status}`);
  return {
    cookie: (signIn.headers.get("set-cookie") ?? "").split(";")[0],
    "x-csrf-token": signIn.json.csrfToken,
  };
}

/** Private keys of the devices enrolled by enrollDevice, by deviceId; they never leave the fixture. */
const deviceKeys = new Map();

/**
 * A fresh P-256 device key, its public half enrolled through the server's own staff route, as an
 * administrator enrols a hospital tablet. The served route is looked up in the OpenAPI document, so
 * this answers 501 (not a confusing 404 mid-scenario) until the server has it.
 */
async function enrollDevice({ label, channel }) {
  if (typeof label !== "string" || typeof channel !== "string") {
    throw new ControlError(400, "enrollDevice needs label and channel");
  }
  const served = (await servedOperations()).find(
    (op) => op.method === "POST" && op.path === "/api/v1/staff/devices",
  );
  if (!served) throw new ControlError(501, "the server serves no POST /api/v1/staff/devices");
  const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const publicKeySpki = publicKey.export({ format: "der", type: "spki" }).toString("base64");
  const created = await guardRequest(baseUrl, "POST", served.path, {
    body: { label, channel, publicKeySpki },
    headers: await staffHeaders(),
  });
  const deviceId = created.json?.deviceId ?? created.json?.device?.deviceId;
  if (created.status >= 300 || typeof deviceId !== "string") {
    throw new ControlError(502, `enrolment answered ${created.status} ${JSON.stringify(created.json)}`);
  }
  deviceKeys.set(deviceId, privateKey);
  return { deviceId, publicKeySpki };
}

/** Signs a canonical string with an enrolled device's key, as the device would (base64 raw r||s). */
async function signCapture({ deviceId, canonical }) {
  const key = deviceKeys.get(deviceId);
  if (!key) throw new ControlError(404, `no device ${deviceId} was enrolled by this fixture`);
  if (typeof canonical !== "string") throw new ControlError(400, "signCapture needs canonical");
  return { signature: signCaptureArtifact(key, canonical) };
}

/**
 * Calls one of the server's staff routes as the seeded admin, looked up in the served OpenAPI
 * document by method and path template, so a helper answers 501 (not a confusing 404 mid-scenario)
 * until the server serves it. `{name}` segments of the template are filled from `params`.
 */
async function staffCall(method, template, { params = {}, query = {}, body } = {}) {
  const served = (await servedOperations()).find((op) => op.method === method && op.path === template);
  if (!served) throw new ControlError(501, `the server serves no ${method} ${template}`);
  let pathname = template.replace(/\{(\w+)\}/g, (_, name) => {
    if (typeof params[name] !== "string") throw new ControlError(400, `${template} needs ${name}`);
    return encodeURIComponent(params[name]);
  });
  const search = Object.entries(query)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join("&");
  if (search) pathname += `?${search}`;
  const answer = await guardRequest(baseUrl, method, pathname, { body, headers: await staffHeaders() });
  if (answer.status >= 300) {
    throw new ControlError(
      502,
      `${method} ${pathname} answered ${answer.status} ${JSON.stringify(answer.json)}`,
    );
  }
  return answer.json;
}

/** A processing activity (RoPA entry), created as a DPO would in the dashboard; the body is the route's. */
const createProcessingActivity = (body) => staffCall("POST", "/api/v1/staff/ropa/activities", { body });

/** Archives a processing activity: it stays in the register but leaves the cross-border list. */
const archiveProcessingActivity = ({ activityId }) =>
  staffCall("POST", "/api/v1/staff/ropa/activities/{activityId}/archive", { params: { activityId } });

/** A breach (or, with `drill: true`, a rehearsal) recorded in the breach register; the body is the route's. */
const recordBreach = (body) => staffCall("POST", "/api/v1/staff/breaches", { body });

/** An event Guard cannot observe (`account_closed`, `purpose_served`, `interaction`), as the backend reports it. */
const recordRetentionEvent = (body) => staffCall("POST", "/api/v1/staff/retention/events", { body });

const HOUR_MS = 3_600_000;

/**
 * A scheduled erasure of the principal `userId` (an externalId the scenario brokered a token for)
 * under a policy of its own for `purpose`: anchored on `purpose_served`, 1 day, 48 hours' notice.
 * The purpose is reported served 5 days ago and the policy created through the staff routes; then
 * one retention sweep (retention/sweep.ts, with the server's own notifier) runs as of
 * `noticeSentHoursAgo` hours ago (default 49). That sweep schedules the erasure and sends its notice
 * then, so the erasure is due now when the notice is at least 48 hours old and not due yet when it
 * is younger: the 48 hours a principal is given cannot be waited for in a test, and the server's
 * clock is the host's (moving it would move every other scenario's clock too).
 */
async function scheduleErasure({ userId, purpose, noticeSentHoursAgo = 49 }) {
  if (typeof userId !== "string" || typeof purpose !== "string") {
    throw new ControlError(400, "scheduleErasure needs userId and purpose");
  }
  if (!Number.isInteger(noticeSentHoursAgo) || noticeSentHoursAgo < 0) {
    throw new ControlError(400, "noticeSentHoursAgo must be a non-negative integer");
  }
  const now = Date.now();
  await recordRetentionEvent({ userId, kind: "purpose_served", purpose, occurredAt: now - 120 * HOUR_MS });
  const policy = await staffCall("POST", "/api/v1/staff/retention/policies", {
    body: {
      name: `Conformance: ${purpose}`.slice(0, 200),
      purpose,
      anchorEvent: "purpose_served",
      durationDays: 1,
      noticeHours: 48,
    },
  });
  const { sweepRetention } = await load("retention/sweep.js");
  const { WebhookRelayNotifier } = await load("notifications/notifier.js");
  await sweepRetention(db, new WebhookRelayNotifier(), now - noticeSentHoursAgo * HOUR_MS);
  const listed = await staffCall("GET", "/api/v1/staff/retention/erasures", {
    query: { policyId: policy.policyId, userId },
  });
  const erasure = listed?.erasures?.[0];
  if (listed?.erasures?.length !== 1 || typeof erasure?.scheduledErasureId !== "string") {
    throw new ControlError(502, `the sweep scheduled no single erasure: ${JSON.stringify(listed)}`);
  }
  return {
    policyId: policy.policyId,
    scheduledErasureId: erasure.scheduledErasureId,
    status: erasure.status,
    scheduledFor: erasure.scheduledFor,
    preNotificationSentAt: erasure.preNotificationSentAt,
    dueAt: erasure.dueAt,
  };
}

const ACTIONS = {
  armFlaky: async ({ responses }) => {
    if (!Array.isArray(responses)) throw new ControlError(400, "armFlaky needs responses: []");
    for (const r of responses) {
      if (!Number.isInteger(r?.status)) throw new ControlError(400, "each response needs an integer status");
    }
    flakyScript = responses.map((r) => ({ ...r }));
    flakyLog = [];
    return { armed: flakyScript.length };
  },
  flakyLog: async () => ({ requests: flakyLog }),
  awaitWebhook,
  createPrincipal,
  enrollDevice,
  signCapture,
  createProcessingActivity,
  archiveProcessingActivity,
  recordBreach,
  recordRetentionEvent,
  scheduleErasure,
  // The server's clock (same host): for a capturedAtClient inside the 7-day skew window.
  now: async () => ({ epochMs: Date.now() }),
};

const control = http.createServer(async (request, response) => {
  try {
    const action = ACTIONS[new URL(request.url, "http://control").pathname.slice(1)];
    if (request.method !== "POST" || !action) throw new ControlError(404, `no control action ${request.url}`);
    const raw = (await readBody(request)).toString("utf8");
    sendJson(response, 200, await action(raw ? JSON.parse(raw) : {}));
  } catch (error) {
    sendJson(response, error instanceof ControlError ? error.status : 500, {
      error: String(error.message ?? error),
    });
  }
});
const controlPort = await serve(control);

// ----- fixtures out, then serve until told to stop -----------------------------------------------

const invalidApiKey = `gk_live_${randomBytes(30).toString("base64url").replace(/[-_]/g, "x").slice(0, 40)}`;
const fixtures = {
  baseUrl,
  flakyBaseUrl: `http://127.0.0.1:${flakyPort}`,
  hangingBaseUrl: `http://127.0.0.1:${hangingPort}`,
  closedBaseUrl: `http://127.0.0.1:${closedPort}`,
  controlUrl: `http://127.0.0.1:${controlPort}`,
  apiKey: seeded.apiKey,
  revokedApiKey: seeded.revokedApiKey,
  invalidApiKey,
  organizationId: seeded.organizationId,
  organizationSlug: ORG_SLUG,
  noticeId: seeded.notice.noticeId,
  noticeVersion: seeded.notice.version,
  purpose: PURPOSE,
  otherPurpose: OTHER_PURPOSE,
  bannerDomain: BANNER_DOMAIN,
  bannerAppId: BANNER_APP_ID,
  webhookReceiverUrl,
  webhookSecret,
  operations: operations.map((op) => op.operationId),
  notes,
};
for (const note of notes) log(note);
process.stdout.write(`${JSON.stringify(fixtures)}\n`);
