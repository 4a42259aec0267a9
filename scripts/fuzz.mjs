#!/usr/bin/env node
// Contract fuzzing: a bounded, seeded schemathesis run against a real Guard server, once per database
// engine. See scripts/README.md.
//
//   node scripts/fuzz.mjs
//
// 1. Makes sure .venv (repo root) has the versions pinned in scripts/fuzz-requirements.txt.
// 2. For each engine (the embedded database, then PostgreSQL on a throwaway cluster): starts Guard
//    in-process on 127.0.0.1 and a free port on a fresh database, and seeds two organisations (see
//    seed()). Over HTTP it signs the staff admin in twice (one session for the run, one for the
//    sign-out route) and brokers a principal token with the service key.
// 3. Runs schemathesis against the served /api/v1/openapi.json (it lists the implemented operations
//    only), with the credential each operation's `security` declares, every phase included; the
//    stateful phase follows the contract's `links`.
// 4. Prints schemathesis' output, the responses the server gave per operation, the requests sent per
//    phase and the link transitions followed; then, after both engines, one line
//    `fuzz: N passed, M failed` counting operations (and the stateful phase as one more) per engine,
//    plus one failure per engine that sent fewer than MIN_REQUESTS requests or followed no link.
// Exit code 0 only when M is 0. Servers, the cluster and temp dirs are removed in every case.
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";
import { startThrowawayPostgres } from "./lib/postgres-cluster.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const VENV = path.join(ROOT, ".venv");
const PYTHON = path.join(VENV, "bin", "python");
const REQUIREMENTS = path.join(ROOT, "scripts", "fuzz-requirements.txt");
const HOOKS = path.join(ROOT, "scripts", "fuzz_hooks.py");

/** A positive integer from the environment (for a deeper local run), else the default. */
function envInt(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^[1-9]\d*$/.test(raw)) {
    console.error(`${name} must be a positive integer (got ${JSON.stringify(raw)})`);
    console.log("fuzz: 0 passed, 1 failed");
    process.exit(2);
  }
  return Number(raw);
}

// Bounds: test cases per operation and phase, scenarios and steps of the stateful phase, and the seed
// that makes the inputs repeatable. The coverage phase adds its own cases (every boundary and
// negative case the schema defines), independent of these bounds. STATEFUL_SCENARIOS is an upper
// bound: Hypothesis ends the stateful phase on its own before it (about 100 scenarios here).
const MAX_EXAMPLES = envInt("GUARD_FUZZ_MAX_EXAMPLES", 40);
const STATEFUL_SCENARIOS = envInt("GUARD_FUZZ_STATEFUL_SCENARIOS", 400);
const STATEFUL_STEPS = envInt("GUARD_FUZZ_STATEFUL_STEPS", 10);
const SEED = envInt("GUARD_FUZZ_SEED", 20250101);
// The issue's floor: each engine must answer at least this many generated requests, or the run fails
// (a narrowed schema or a broken credential would otherwise shrink the run without anyone noticing).
const MIN_REQUESTS = 5_000;
// A hung run fails here instead of holding `npm test` until the suite's 20-minute limit.
const RUN_TIMEOUT_MS = 8 * 60_000;
const ENGINES = (process.env.GUARD_FUZZ_ENGINES || "pglite,postgres").split(",").map((e) => e.trim());
for (const engine of ENGINES) {
  if (engine !== "pglite" && engine !== "postgres") {
    console.error(`GUARD_FUZZ_ENGINES lists pglite and/or postgres (got ${JSON.stringify(engine)})`);
    console.log("fuzz: 0 passed, 1 failed");
    process.exit(2);
  }
}
// What a response must satisfy. Each holds for a server that keeps the contract, so none is noise:
//   not_a_server_error            no 5xx, whatever the input
//   status_code_conformance       the status is one the operation declares
//   content_type_conformance      the media type is one declared for that status
//   response_headers_conformance  declared headers are present and valid (x-request-id, Retry-After)
//   response_schema_conformance   the body validates against the declared schema
const CHECKS = [
  "not_a_server_error",
  "status_code_conformance",
  "content_type_conformance",
  "response_headers_conformance",
  "response_schema_conformance",
];

// The server is TypeScript run through tsx (as in server/bin/guard.js), so this script runs the same
// with or without `node --import tsx`.
register();
const { testConfig } = await import("../server/src/config.ts");
const { startServer } = await import("../server/src/server.ts");
const { createOrganization } = await import("../server/src/accounts/organizations.ts");
const { createApiKey } = await import("../server/src/accounts/api-keys.ts");
const { createStaffUser } = await import("../server/src/accounts/staff.ts");
const { parseNoticeDraft, publishNotice } = await import("../server/src/notices/notices.ts");
const { registerApp, registerDomain, saveBannerSettings } =
  await import("../server/src/banner/banner-config.ts");
const { canonicalizeCaptureArtifact, signCaptureArtifact } = await import("../contract/src/index.ts");
const { POS_REQUEST_TTL_MS } = await import("../server/src/offline/pos/requests.ts");

class SetupError extends Error {}

const children = new Set();

/** Runs a command with inherited output; resolves its exit code (127 when it cannot start). */
function run(cmd, args, { timeoutMs, ...opts } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "inherit", "inherit"], ...opts });
    children.add(child);
    let failedToStart = false;
    const timer =
      timeoutMs &&
      setTimeout(() => {
        console.error(`\n${path.basename(cmd)} ran for more than ${timeoutMs / 1000} s; stopping it`);
        child.kill("SIGTERM");
      }, timeoutMs);
    child.on("error", (err) => {
      failedToStart = true;
      console.error(`cannot run ${cmd}: ${err.message}`);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      children.delete(child);
      resolve(failedToStart ? 127 : (code ?? 128));
    });
  });
}

/** Runs a command; resolves its stdout, or null when it fails. */
function capture(cmd, args) {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "ignore"] });
    child.stdout.on("data", (chunk) => (out += chunk));
    child.on("error", () => resolve(null));
    child.on("close", (code) => resolve(code === 0 ? out : null));
  });
}

// ---- 1. the virtualenv ---------------------------------------------------------------------------------

/** `{ name: version }` from the exact pins of scripts/fuzz-requirements.txt. */
function pinnedRequirements() {
  const pins = {};
  for (const line of fs.readFileSync(REQUIREMENTS, "utf8").split("\n")) {
    const spec = line.replace(/#.*/, "").trim();
    if (!spec) continue;
    const m = /^([A-Za-z0-9._-]+)==([A-Za-z0-9.+!-]+)$/.exec(spec);
    if (!m) throw new SetupError(`scripts/fuzz-requirements.txt: pin exact versions (got ${spec})`);
    pins[m[1].toLowerCase()] = m[2];
  }
  if (!pins.schemathesis) throw new SetupError("scripts/fuzz-requirements.txt does not pin schemathesis");
  return pins;
}

/** Creates .venv when missing and installs the pins unless every one is already there. */
async function ensureSchemathesis() {
  const pins = pinnedRequirements();
  if (!fs.existsSync(PYTHON)) {
    console.log("creating .venv");
    if ((await run("python3", ["-m", "venv", VENV])) !== 0)
      throw new SetupError("python3 -m venv .venv failed");
  }
  const probe = [
    "import importlib.metadata as m, json, sys",
    "def version(name):",
    "    try: return m.version(name)",
    "    except m.PackageNotFoundError: return None",
    "print(json.dumps({name: version(name) for name in sys.argv[1:]}))",
  ].join("\n");
  const installed = JSON.parse((await capture(PYTHON, ["-c", probe, ...Object.keys(pins)])) ?? "{}");
  const missing = Object.entries(pins).filter(([name, version]) => installed[name] !== version);
  if (missing.length === 0) {
    console.log(`schemathesis ${pins.schemathesis} is installed in .venv`);
    return pins.schemathesis;
  }
  console.log(`installing ${missing.map(([name, version]) => `${name}==${version}`).join(" ")} into .venv`);
  const pip = ["-m", "pip", "install", "-q", "--disable-pip-version-check", "-r", REQUIREMENTS];
  if ((await run(PYTHON, pip)) !== 0) throw new SetupError("pip install failed (is PyPI reachable?)");
  return pins.schemathesis;
}

// ---- 2. the server and its data --------------------------------------------------------------------

const STAFF_ORG = "fuzz-staff";
const STAFF_EMAIL = "admin@fuzz.example";
const STAFF_PASSWORD = "fuzz-admin-password-0123456789";
// The principal behind the principal token, with an address so `/cm/v1/consent` can find them.
const PRINCIPAL = { externalId: "fuzz-principal", email: "principal@fuzz.example" };
const NOTICE = {
  itemized: [
    { purpose: "orders", personalDataDescription: "Name, address and phone number to deliver orders" },
    { purpose: "marketing", personalDataDescription: "Email address for offers" },
  ],
  content: {
    en: { title: "How we use your data", body: "We use your data to deliver your orders." },
    hi: { title: "हम आपके डेटा का उपयोग कैसे करते हैं", body: "हम आपका डेटा आपके ऑर्डर पहुँचाने के लिए उपयोग करते हैं।" },
  },
};

/** A published bilingual notice, two registered domains (one with its own banner settings) and an app. */
async function seedPublicData(db, organizationId, now) {
  const notice = await publishNotice(db, organizationId, parseNoticeDraft(NOTICE), now);
  const domains = [
    await registerDomain(db, organizationId, "shop.fuzz.example", now),
    await registerDomain(db, organizationId, "blog.fuzz.example", now),
  ];
  await saveBannerSettings(
    db,
    organizationId,
    { kind: "domain", domain: domains[0] },
    { position: "bottom" },
    now,
  );
  const appId = await registerApp(db, organizationId, "com.example.fuzz", now);
  return { noticeId: notice.noticeId, domains, appId };
}

/**
 * Two organisations, so that what the run destroys cannot take the rest of it down:
 * - `fuzz-org` holds the service key and the principal behind the principal token, and has no staff.
 *   Nothing in the run can archive its notice, unregister its domains or revoke its key, so the
 *   public, service-key and principal-token operations find its data from start to end.
 * - `fuzz-staff` is the staff session's organisation, with data of its own that the staff operations
 *   may change, archive, unregister and revoke as they like.
 * Ids of both go into the dictionaries: the other organisation's ids are 404 for each credential.
 */
async function seed(db) {
  const now = Date.now();
  const org = await createOrganization(db, { slug: "fuzz-org", name: "Fuzz Org" }, now);
  const serviceKey = await createApiKey(
    db,
    { organizationId: org.organizationId, name: "fuzz", createdBy: null },
    now,
  );
  const orgData = await seedPublicData(db, org.organizationId, now);

  const staffOrg = await createOrganization(db, { slug: STAFF_ORG, name: "Fuzz Staff Org" }, now);
  const staff = await createStaffUser(
    db,
    { organizationId: staffOrg.organizationId, email: STAFF_EMAIL, role: "admin", password: STAFF_PASSWORD },
    now,
  );
  const staffKey = await createApiKey(
    db,
    { organizationId: staffOrg.organizationId, name: "revocable", createdBy: staff.staffId },
    now,
  );
  const staffData = await seedPublicData(db, staffOrg.organizationId, now);

  return {
    slugs: [org.slug, staffOrg.slug],
    orgIds: [org.organizationId, staffOrg.organizationId],
    noticeIds: [orgData.noticeId, staffData.noticeId],
    apiKeyIds: [staffKey.apiKeyId, serviceKey.apiKeyId],
    domains: orgData.domains,
    appId: orgData.appId,
    serviceKey: serviceKey.key,
    staffOrg: {
      organizationId: staffOrg.organizationId,
      serviceKey: staffKey.key,
      noticeId: staffData.noticeId,
    },
  };
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  return { res, body: await res.json() };
}

/** Signs the seeded admin in over HTTP; returns the session cookie value and its CSRF token. */
async function signIn(baseUrl) {
  const { res, body } = await post(`${baseUrl}/api/v1/staff/session`, {
    organizationSlug: STAFF_ORG,
    email: STAFF_EMAIL,
    password: STAFF_PASSWORD,
  });
  const cookie = res.headers
    .getSetCookie()
    .map((c) => /^guard_session=([^;]+)/.exec(c)?.[1])
    .find(Boolean);
  if (res.status !== 201 || !cookie || !body.csrfToken) {
    throw new SetupError(`staff sign-in failed: ${res.status} ${JSON.stringify(body)}`);
  }
  return { cookie, csrfToken: body.csrfToken };
}

/**
 * Records that only exist once made through the API, so the operations on them (revoke, release,
 * reject, disable, update, archive) get past their lookups and reach their handlers. Made over HTTP
 * as an operator would, each in the organisation its operations act for: the operations a staff
 * session *or* the service key may call run with `fuzz-org`'s key (`serviceKeyOperations`), so its
 * device, QR link and retention policy are `fuzz-org`'s; the capture review is for staff only, so the
 * two sessions to review are `fuzz-staff`'s, signed by a device enrolled there with its clock ten
 * days off (quarantined for `clock_skew`, the reason staff may release). Returns the ids for the
 * dictionaries.
 */
async function seedRecordsToActOn(baseUrl, session, seeded) {
  const staffHeaders = { cookie: `guard_session=${session.cookie}`, "x-csrf-token": session.csrfToken };
  const orgKeyHeaders = { authorization: `Bearer ${seeded.serviceKey}` };
  const staffKeyHeaders = { authorization: `Bearer ${seeded.staffOrg.serviceKey}` };
  const made = async (what, route, body, headers) => {
    const { res, body: answer } = await post(`${baseUrl}${route}`, body, headers);
    if (res.status !== 200 && res.status !== 201)
      throw new SetupError(`${what} failed: ${res.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const enrol = async (headers) => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const body = {
      label: "fuzz tablet",
      channel: "agent_app",
      publicKeySpki: publicKey.export({ type: "spki", format: "der" }).toString("base64"),
    };
    const device = await made("enrolling a device", "/api/v1/staff/devices", body, headers);
    return { deviceId: device.deviceId, privateKey };
  };

  const orgDevice = await enrol(orgKeyHeaders);
  const link = await made(
    "minting a QR link",
    "/api/v1/offline-consent/links",
    { noticeId: seeded.noticeIds[0], purpose: "marketing", dataTypes: ["email"], label: "fuzz counter" },
    orgKeyHeaders,
  );
  const policy = await made(
    "creating a retention policy",
    "/api/v1/staff/retention/policies",
    { preset: "ecommerce", purpose: "marketing" },
    orgKeyHeaders,
  );

  // Two sessions the org's device signed now: verified, each with a withdrawal token to withdraw by.
  const verified = await made(
    "syncing verified captures",
    "/api/v1/offline/captures",
    {
      sessions: ["fuzz-verified-1", "fuzz-verified-2"].map((clientSessionId) =>
        signedSession(orgDevice, seeded.orgIds[0], {
          clientSessionId,
          noticeId: seeded.noticeIds[0],
          capturedAtClient: Date.now(),
        }),
      ),
    },
    orgKeyHeaders,
  );
  const consentIds = verified.results.flatMap((result) => result.consentIds ?? []);
  const withdrawalTokens = verified.results.map((result) => result.withdrawalToken).filter(Boolean);
  if (withdrawalTokens.length !== 2)
    throw new SetupError(`the captures were not verified: ${JSON.stringify(verified)}`);

  const staffDevice = await enrol(staffHeaders);
  const tenDaysAgo = Date.now() - 10 * 24 * 3_600_000;
  const sessions = Array.from({ length: 6 }, (_, i) =>
    signedSession(staffDevice, seeded.staffOrg.organizationId, {
      clientSessionId: `fuzz-session-${i + 1}`,
      noticeId: seeded.staffOrg.noticeId,
      capturedAtClient: tenDaysAgo,
    }),
  );
  const synced = await made("syncing captures", "/api/v1/offline/captures", { sessions }, staffKeyHeaders);
  if (!synced.results.every((result) => result.reason === "clock_skew"))
    throw new SetupError(`the captures were not quarantined for clock_skew: ${JSON.stringify(synced)}`);
  const listed = await fetch(`${baseUrl}/api/v1/staff/offline/captures?status=quarantined`, {
    headers: staffHeaders,
  }).then((res) => res.json());

  return {
    deviceIds: [orgDevice.deviceId],
    sessionIds: listed.captures.map((capture) => capture.sessionId),
    linkIds: [link.linkId],
    policyIds: [policy.policyId],
    withdrawalTokens,
    consentIds,
  };
}

/** A `dpdpcca/2` session for `marketing` by `device`, signed over its canonical string. */
function signedSession(device, organizationId, { clientSessionId, noticeId, capturedAtClient }) {
  const session = {
    clientSessionId,
    deviceId: device.deviceId,
    noticeId,
    noticeVersion: 1,
    noticeLocale: "en",
    channel: "agent_app",
    capturedAtClient,
    dataTypes: ["email"],
    purposeGrants: [
      { purposeKey: "marketing", purposeLabel: "Offers", category: "non_essential", status: "opt_in" },
    ],
  };
  const canonical = canonicalizeCaptureArtifact({ ...session, organizationId });
  return { ...session, deviceSignature: signCaptureArtifact(device.privateKey, canonical) };
}

/**
 * A point-of-sale request `fuzz-staff`'s till made more than 72 hours ago (the server's clock is
 * set back while it is made), so it is expired when the run starts and the staff queue's close
 * operation reaches its handler. Returns its id.
 */
async function seedExpiredPosRequest(baseUrl, clock, seeded) {
  clock.offsetMs = -(POS_REQUEST_TTL_MS + 3_600_000);
  try {
    const { res, body } = await post(
      `${baseUrl}/api/v1/offline/pos`,
      {
        noticeId: seeded.staffOrg.noticeId,
        purpose: "marketing",
        dataTypes: ["email"],
        phone: "+91 98765 43210",
      },
      { authorization: `Bearer ${seeded.staffOrg.serviceKey}` },
    );
    if (res.status !== 201)
      throw new SetupError(`making a point-of-sale request failed: ${res.status} ${JSON.stringify(body)}`);
    return body.requestId;
  } finally {
    clock.offsetMs = 0;
  }
}

/** A principal access token for `fuzz-org`, brokered over HTTP with the service key. */
async function brokerToken(baseUrl, serviceKey) {
  const { res, body } = await post(`${baseUrl}/api/v1/auth/broker-token`, PRINCIPAL, {
    authorization: `Bearer ${serviceKey}`,
  });
  if (res.status !== 201 || !body.accessToken) {
    throw new SetupError(`broker-token failed: ${res.status} ${JSON.stringify(body)}`);
  }
  return body.accessToken;
}

/**
 * Counts the server's responses per operation of the served document (status → count), so the log
 * shows which paths the run reached: an operation that only ever answered 401 was not really tested.
 */
function recordResponses(httpServer, document) {
  const routes = [];
  for (const [template, item] of Object.entries(document.paths)) {
    const pattern = template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+");
    for (const [method, op] of Object.entries(item)) {
      if (op?.operationId)
        routes.push({ method: method.toUpperCase(), regex: new RegExp(`^${pattern}$`), template });
    }
  }
  const counts = new Map();
  let total = 0;
  httpServer.on("request", (req, res) => {
    res.on("finish", () => {
      total += 1;
      const urlPath = req.url.split("?")[0];
      const route = routes.find((r) => r.method === req.method && r.regex.test(urlPath));
      const key = route ? `${route.method} ${route.template}` : "(undeclared method or path)";
      const byStatus = counts.get(key) ?? new Map();
      byStatus.set(res.statusCode, (byStatus.get(res.statusCode) ?? 0) + 1);
      counts.set(key, byStatus);
    });
  });
  const render = () => {
    const keys = [...routes.map((r) => `${r.method} ${r.template}`), "(undeclared method or path)"];
    const width = Math.max(...keys.map((k) => k.length)) + 2;
    const lines = keys
      .filter((key) => counts.has(key))
      .map((key) => {
        const statuses = [...counts.get(key)].sort(([a], [b]) => a - b);
        return `  ${key.padEnd(width)}${statuses.map(([status, n]) => `${status}×${n}`).join(" ")}`;
      });
    const silent = keys.filter((key) => !counts.has(key) && !key.startsWith("("));
    return [...lines, ...silent.map((key) => `  ${key.padEnd(width)}(not called)`)].join("\n");
  };
  return { render, total: () => total };
}

// ---- 3. schemathesis ----------------------------------------------------------------------------------

const toml = (value) => JSON.stringify(value); // JSON strings and string arrays are valid TOML

/**
 * Operations a staff session or the service key may call (the rights queues). The session's
 * organisation has no principals, so the requests and grievances the principal files (and the
 * stateful phase links to) are `fuzz-org`'s: these operations are called with its service key.
 * The server tries a session cookie first, so they get a cookie without a session in it.
 */
function serviceKeyOperations(document) {
  const ids = [];
  for (const item of Object.values(document.paths)) {
    for (const op of Object.values(item)) {
      const schemes = (op?.security ?? []).flatMap((requirement) => Object.keys(requirement));
      if (schemes.includes("staffSession") && schemes.includes("serviceKey")) ids.push(op.operationId);
    }
  }
  return ids.sort();
}

function schemathesisConfig({
  document,
  seeded,
  recordIds,
  session,
  signOutSession,
  principalToken,
  junitPath,
}) {
  const dictionaries = {
    slugs: seeded.slugs,
    orgIds: seeded.orgIds,
    noticeIds: seeded.noticeIds,
    apiKeyIds: seeded.apiKeyIds,
    staffSlugs: [STAFF_ORG],
    emails: [STAFF_EMAIL, PRINCIPAL.email],
    purposes: NOTICE.itemized.map((item) => item.purpose),
    passwords: [STAFF_PASSWORD],
    domains: [...seeded.domains, "SHOP.Fuzz.Example."], // hostnames match case-insensitively
    appIds: [seeded.appId],
    locales: ["en", "hi", "hi-IN"], // the seeded notices' languages (an IVR call's `locale`)
    ...recordIds,
  };
  return [
    `seed = ${SEED}`,
    // One worker: hypothesis on Python 3.11 can fail with "AST constructor recursion depth mismatch"
    // when several threads build strategies at once, and one worker keeps the run order repeatable.
    "workers = 1",
    "request-timeout = 10",
    `hooks = ${toml(HOOKS)}`, // works around a schemathesis bug, see the file
    // The session's CSRF token on every request (only cookie-authenticated writes read it). Configured
    // headers win over generated ones: with a generated token, staff writes would mostly stop at 403.
    `headers = { "X-CSRF-Token" = ${toml(session.csrfToken)} }`,
    "",
    "[generation]",
    `max-examples = ${MAX_EXAMPLES}`,
    'database = "none"', // nothing carried over between runs
    "",
    "[checks]",
    "enabled = false",
    ...CHECKS.map((check) => `${check}.enabled = true`),
    "",
    // The stateful phase: scenarios of up to STATEFUL_STEPS calls, each call after the first taking ids
    // from an earlier response through the contract's `links` (and the links schemathesis infers).
    "[phases.stateful]",
    `max-steps = ${STATEFUL_STEPS}`,
    "[phases.stateful.generation]",
    `max-examples = ${STATEFUL_SCENARIOS}`,
    "",
    "[reports.junit]",
    "enabled = true",
    `path = ${toml(junitPath)}`,
    "",
    // Credentials by security scheme: schemathesis sends each only to the operations that declare it.
    "[auth.openapi.serviceKey]",
    `bearer = ${toml(seeded.serviceKey)}`,
    "[auth.openapi.principalToken]",
    `bearer = ${toml(principalToken)}`,
    "[auth.openapi.staffSession]",
    `api_key = ${toml(session.cookie)}`,
    "",
    // Known values mixed into the generated ones, so requests also get past lookups and sign-in.
    "[dictionaries]",
    ...Object.entries(dictionaries).map(([name, values]) => `${name} = { values = ${toml(values)} }`),
    "",
    "[parameters]",
    '"path.slug" = { dictionary = "slugs", probability = 0.5 }',
    '"path.orgId" = { dictionary = "orgIds", probability = 0.5 }',
    '"query.organizationId" = { dictionary = "orgIds", probability = 0.5 }',
    '"path.noticeId" = { dictionary = "noticeIds", probability = 0.5 }',
    '"body.noticeId" = { dictionary = "noticeIds", probability = 0.5 }',
    '"body.organizationId" = { dictionary = "orgIds", probability = 0.5 }',
    '"body.purpose" = { dictionary = "purposes", probability = 0.5 }',
    '"query.email" = { dictionary = "emails", probability = 0.5 }',
    '"path.apiKeyId" = { dictionary = "apiKeyIds", probability = 0.5 }',
    '"body.organizationSlug" = { dictionary = "staffSlugs", probability = 0.5 }',
    '"body.email" = { dictionary = "emails", probability = 0.5 }',
    '"body.password" = { dictionary = "passwords", probability = 0.5 }',
    '"query.domain" = { dictionary = "domains", probability = 0.5 }',
    '"query.appId" = { dictionary = "appIds", probability = 0.5 }',
    '"path.deviceId" = { dictionary = "deviceIds", probability = 0.5 }',
    '"path.sessionId" = { dictionary = "sessionIds", probability = 0.5 }',
    '"path.linkId" = { dictionary = "linkIds", probability = 0.5 }',
    '"path.policyId" = { dictionary = "policyIds", probability = 0.5 }',
    '"body.withdrawalToken" = { dictionary = "withdrawalTokens", probability = 0.5 }',
    '"body.locale" = { dictionary = "locales", probability = 0.5 }',
    '"body.consentId" = { dictionary = "consentIds", probability = 0.5 }',
    "",
    // Signing out ends the session it is sent with, so that operation gets a session of its own
    // (signed out by its first valid call; 401 after that). Configured headers win over generated ones.
    "[[operations]]",
    'include-operation-id = "deleteStaffSession"',
    `headers = { Cookie = ${toml(`guard_session=${signOutSession.cookie}`)}, "X-CSRF-Token" = ${toml(signOutSession.csrfToken)} }`,
    "",
    // Bound for this operation only: the DSR operations take the same name, and would mostly meet
    // the point-of-sale request's id there as a 404.
    "[[operations]]",
    'include-operation-id = "closePosConsentRequest"',
    'parameters = { "path.requestId" = { dictionary = "posRequestIds", probability = 0.5 } }',
    "",
    "[[operations]]",
    `include-operation-id = ${toml(serviceKeyOperations(document))}`,
    `headers = { Cookie = "guard_fuzz=1", Authorization = ${toml(`Bearer ${seeded.serviceKey}`)} }`,
    "",
  ].join("\n");
}

/** Passed/failed test cases of schemathesis' JUnit report: one per operation, plus "Stateful tests". */
function countJunit(xml) {
  let passed = 0;
  let failed = 0;
  for (const m of xml.matchAll(/<testcase\b[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = m[1] ?? "";
    if (/<(failure|error)\b/.test(body)) failed += 1;
    else if (!/<skipped\b/.test(body)) passed += 1;
  }
  return passed + failed > 0 ? { passed, failed } : null;
}

// ---- main -------------------------------------------------------------------------------------------

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * One engine's run: Guard on a fresh database (`databaseUrl` for PostgreSQL, else the embedded
 * database in `dir`), seeded, then schemathesis against it. Resolves the counts for the final line.
 */
async function fuzzEngine({ engine, version, dir, databaseUrl }) {
  console.log(`\n━━ fuzz: ${engine} ${"━".repeat(80)}`);
  const started = Date.now();
  let server;
  try {
    // The real clock, which the seeding may set back for a moment (seedExpiredPosRequest).
    const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
    // logLevel error: a 5xx prints its stack trace here, next to schemathesis' report of it.
    server = await startServer(
      testConfig({
        dataDir: path.join(dir, "data"),
        databaseUrl,
        port: 0,
        logLevel: "error",
        tokenTtlMinutes: 60, // the principal token outlives any run
      }),
      { clock },
    );
    const seeded = await seed(server.db);
    const session = await signIn(server.url);
    const signOutSession = await signIn(server.url);
    const principalToken = await brokerToken(server.url, seeded.serviceKey);
    const recordIds = {
      ...(await seedRecordsToActOn(server.url, session, seeded)),
      posRequestIds: [await seedExpiredPosRequest(server.url, clock, seeded)],
    };
    const document = server.app.servedDocument;
    const junitPath = path.join(dir, "junit.xml");
    const statsPath = path.join(dir, "stats.json");
    const configPath = path.join(dir, "schemathesis.toml");
    fs.writeFileSync(
      configPath,
      schemathesisConfig({
        document,
        seeded,
        recordIds,
        session,
        signOutSession,
        principalToken,
        junitPath,
      }),
    );
    const responses = recordResponses(server.app.server, document);
    console.log(
      `Guard (${engine}) on ${server.url}, seeded in ${seconds(Date.now() - started)}. ` +
        `schemathesis ${version}: seed ${SEED}, at most ${MAX_EXAMPLES} examples per operation and phase, ` +
        `${STATEFUL_SCENARIOS} stateful scenarios of at most ${STATEFUL_STEPS} steps.`,
    );
    const exitCode = await run(
      path.join(VENV, "bin", "schemathesis"),
      ["--config-file", configPath, "run", "--no-color", `${server.url}/api/v1/openapi.json`],
      // Run in the engine's dir: schemathesis and hypothesis keep state in the working directory.
      { cwd: dir, timeoutMs: RUN_TIMEOUT_MS, env: { ...process.env, GUARD_FUZZ_STATS: statsPath } },
    );
    console.log(`\nresponses by operation (as the server saw them):\n${responses.render()}\n`);
    const counts = fs.existsSync(junitPath) ? countJunit(fs.readFileSync(junitPath, "utf8")) : null;
    if (!counts)
      throw new SetupError(`${engine}: schemathesis exited with ${exitCode} and reported no results`);
    const fail = (message) => {
      console.error(`${engine}: ${message}`);
      counts.failed += 1;
    };
    if (exitCode !== 0 && counts.failed === 0)
      fail(`schemathesis exited with ${exitCode} but reported no failure`);

    const stats = fs.existsSync(statsPath) ? JSON.parse(fs.readFileSync(statsPath, "utf8")) : null;
    const ms = Date.now() - started;
    if (!stats) {
      fail("schemathesis wrote no statistics (scripts/fuzz_hooks.py's RunStatistics did not run)");
      return { ...counts, requests: 0, transitions: 0, ms };
    }
    const requests = Object.values(stats.requests).reduce((a, b) => a + b, 0);
    const byPhase = Object.entries(stats.requests).map(([phase, n]) => `${phase} ${n}`);
    const links = Object.entries(stats.links).sort(([, a], [, b]) => b - a);
    console.log(
      `${engine}: ${requests} generated requests answered (${byPhase.join(", ")}; the server counted ` +
        `${responses.total()} in all, schema loading and probes included), in ${seconds(ms)}.`,
    );
    console.log(
      `${engine}: stateful phase: ${stats.scenarios} scenarios, ${stats.transitions} link transitions ` +
        `over ${links.length} distinct links:`,
    );
    for (const [link, n] of links) console.log(`  ${String(n).padStart(5)}  ${link}`);
    if (requests < MIN_REQUESTS)
      fail(`only ${requests} generated requests were answered (at least ${MIN_REQUESTS})`);
    if (stats.transitions === 0) fail("the stateful phase followed no link");
    return { ...counts, requests, transitions: stats.transitions, ms };
  } finally {
    await server?.stop().catch((err) => console.error(`stopping the server: ${err.message}`));
  }
}

async function main() {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "guard-fuzz-"));
  let cluster;
  let cleaned;
  const cleanup = () =>
    (cleaned ??= (async () => {
      for (const child of children) child.kill("SIGTERM");
      await cluster?.stop().catch((err) => console.error(`stopping PostgreSQL: ${err.message}`));
      fs.rmSync(tmp, { recursive: true, force: true });
    })());
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      console.error(`\n${signal}: stopping`);
      void cleanup().finally(() => process.exit(128 + os.constants.signals[signal]));
    });
  }

  const total = { passed: 0, failed: 0 };
  const summary = [];
  try {
    const version = await ensureSchemathesis();
    for (const engine of ENGINES) {
      const dir = path.join(tmp, engine);
      fs.mkdirSync(dir);
      let result;
      try {
        let databaseUrl;
        if (engine === "postgres") {
          cluster = await startThrowawayPostgres();
          databaseUrl = cluster.url; // the cluster's fresh, empty `guard` database
        }
        result = await fuzzEngine({ engine, version, dir, databaseUrl });
      } catch (err) {
        console.error(err instanceof SetupError ? err.message : err);
        result = { passed: 0, failed: 1, requests: 0, transitions: 0, ms: 0 };
      } finally {
        await cluster?.stop().catch((err) => console.error(`stopping PostgreSQL: ${err.message}`));
        cluster = undefined;
      }
      total.passed += result.passed;
      total.failed += result.failed;
      summary.push(
        `  ${engine.padEnd(9)} ${String(result.requests).padStart(6)} requests  ` +
          `${String(result.transitions).padStart(5)} link transitions  ${seconds(result.ms).padStart(8)}  ` +
          `${result.passed} passed, ${result.failed} failed`,
      );
    }
  } finally {
    await cleanup();
  }
  console.log(`\nfuzz by engine:\n${summary.join("\n")}`);
  return total;
}

let result;
try {
  result = await main();
} catch (err) {
  console.error(err instanceof SetupError ? err.message : err);
  result = { passed: 0, failed: 1 };
}
console.log(`fuzz: ${result.passed} passed, ${result.failed} failed`);
process.exit(result.failed > 0 ? 1 : 0);
