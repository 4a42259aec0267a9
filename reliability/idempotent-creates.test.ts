// Concurrent idempotent creates, for every served operation that takes an Idempotency-Key: N
// identical requests with one key, sent at once and split over two instances on one database,
// create exactly what ONE request creates (counted in every table of the organisation), and all N
// get the same status and body, one of them the original and the rest marked as replays. The same
// key with another body is 409 CONFLICT and creates nothing.
//
// A new operation with an Idempotency-Key fails "every operation has a request builder" until
// REQUESTS says how to make a valid request for it.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { servedContract, type Operation } from "./support/contract.js";
import { newDeviceKey } from "./support/fixtures.js";
import type { Answer } from "./support/http.js";
import {
  bearer,
  brokerToken,
  NOTICE_DRAFT,
  publishNotice,
  seedOrg,
  startLiveServer,
  type LiveServer,
  type Org,
} from "./support/live-server.js";

const CONCURRENT = 10;

/** The deployment operator's token: the harness is configured with its digest. */
const OPERATOR_TOKEN = `operator-${randomBytes(16).toString("hex")}`;

/**
 * Slugs of the organisations the operator route creates: their rows are counted with the seeded
 * organisation's, since what that route creates is a whole organisation of its own.
 */
const OPERATOR_SLUG_PREFIX = "idem-op-";

/** The status a successful request answers: 201 for a create, 200 for the guest's withdrawal. */
const successOf = (op: Operation) => (op.operationId === "withdrawConsentAnonymous" ? 200 : 201);

interface Context {
  server: LiveServer;
  org: Org;
  noticeId: string;
}

/** A valid request for the operation; `n` makes it distinct from the request of any other `n`. */
type RequestBuilder = (
  ctx: Context,
  n: string,
) => Promise<{ headers: Record<string, string>; body: Record<string, unknown> }>;

const REQUESTS: Record<string, RequestBuilder> = {
  createStaffNotice: async ({ org }, n) => ({
    headers: org.staff,
    body: { key: `idem-${n}`, ...NOTICE_DRAFT },
  }),
  createDomainGroup: async ({ org }, n) => ({ headers: org.staff, body: { name: `group ${n}` } }),
  giveConsentAnonymous: async ({ org, noticeId }, n) => ({
    headers: {},
    body: {
      organizationId: org.org.organizationId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: `anon-${n}`,
    },
  }),
  // A withdrawal creates no record of its own but an event (and its evidence): the guest consents
  // first, outside the counted window, so each request has a consent to withdraw.
  withdrawConsentAnonymous: async ({ server, org, noticeId }, n) => {
    const consent = {
      organizationId: org.org.organizationId,
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
      anonymousId: `anon-withdraw-${n}`,
    };
    const given = await server.call("/api/v1/consents/anonymous", { method: "POST", body: consent });
    assert.equal(given.status, 201, given.text);
    const { dataTypes: _dataTypes, ...withdrawal } = consent;
    return { headers: {}, body: withdrawal };
  },
  recordIvrConsentArtifact: async ({ org, noticeId }, n) => ({
    headers: bearer(org.apiKey),
    body: {
      noticeId,
      partnerCallId: `idem-call-${n}`,
      audioRecordingUri: `https://recordings.partner.example/${n}.wav`,
      locale: "en",
      dtmfSequence: "1",
      callerNumberHash: `hash-${n}`,
      capturedAt: 1_700_000_000_000,
      partnerSignature: "partner-signature",
      purpose: "Account",
      dataTypes: ["email"],
    },
  }),
  recordConsent: async ({ server, org, noticeId }, n) => {
    const email = `idem-${n}@example.com`;
    await brokerToken(server, org.apiKey, `idem-${n}`, email);
    return {
      headers: bearer(org.apiKey),
      body: { email, noticeId, purpose: "Account", dataTypes: ["email"] },
    };
  },
  receiveCmSignal: async ({ org }, n) => ({
    headers: bearer(org.apiKey),
    body: {
      cmRegistryId: "meity-cm-007",
      cmName: "Sahmati CM",
      principalTokenFromCm: `cm-token-${n}`,
      purposes: ["Account"],
      signalType: "consent_given",
    },
  }),
  createPosConsentRequest: async ({ org, noticeId }, n) => ({
    headers: bearer(org.apiKey),
    body: { noticeId, purpose: "Account", dataTypes: ["email"], phone: `+91 98765 ${n}` },
  }),
  createDsrRequest: async ({ org }, n) => ({
    headers: bearer(org.principal.token),
    body: { organizationId: org.org.organizationId, type: "summary", details: `request ${n}` },
  }),
  createGrievance: async ({ org }, n) => ({
    headers: bearer(org.principal.token),
    body: { organizationId: org.org.organizationId, subject: `subject ${n}`, description: "d" },
  }),
  createOfflineConsentLink: async ({ org, noticeId }, n) => ({
    headers: bearer(org.apiKey),
    body: { noticeId, purpose: "Account", dataTypes: ["email"], label: `counter ${n}` },
  }),
  // A fresh key per request: the same key twice is a duplicate device (409), not a replay.
  enrollDevice: async ({ org }, n) => ({
    headers: org.staff,
    body: { label: `device ${n}`, channel: "agent_app", publicKeySpki: newDeviceKey() },
  }),
  // A new organisation with its first admin and service key (counted: see OPERATOR_SLUG_PREFIX).
  operatorCreateOrganization: async (_ctx, n) => ({
    headers: bearer(OPERATOR_TOKEN),
    body: {
      slug: `${OPERATOR_SLUG_PREFIX}${n}`,
      name: `Operator org ${n}`,
      adminEmail: `dpo@${OPERATOR_SLUG_PREFIX}${n}.example`,
    },
  }),
  createProcessingActivity: async ({ org }, n) => ({
    headers: org.staff,
    body: {
      name: `Order fulfilment ${n}`,
      purpose: "Delivery",
      dataCategories: ["name", "address", "phone"],
      legalBasis: "consent",
      storageLocation: "AWS ap-south-1 (Mumbai)",
      crossesBorder: false,
    },
  }),
  recordBreach: async ({ org }, n) => ({
    headers: org.staff,
    body: {
      description: `Backup bucket ${n} was readable without credentials`,
      discoveredAt: Date.now() - 60_000,
      occurredAt: Date.now() - 120_000,
      affectedPurposes: ["Account"],
      mitigation: "Access revoked and keys rotated.",
    },
  }),
  // Anchored on account closure, which no principal reports here: a policy schedules no erasure.
  createRetentionPolicy: async ({ org }, n) => ({
    headers: org.staff,
    body: { name: `policy ${n}`, purpose: "Account", anchorEvent: "account_closed", durationDays: 180 },
  }),
  // The principals of a hold and an event are made first, outside the counted window.
  placeLegalHold: async ({ server, org }, n) => {
    await brokerToken(server, org.apiKey, `idem-held-${n}`);
    return {
      headers: org.staff,
      body: { userId: `idem-held-${n}`, statute: "Income-tax Act 1961", citation: "s.44AA" },
    };
  },
  // An interaction: one event, and no erasure to cancel or restart (no policy is inactivity-based).
  recordRetentionEvent: async ({ server, org }, n) => {
    await brokerToken(server, org.apiKey, `idem-event-${n}`);
    return { headers: org.staff, body: { userId: `idem-event-${n}`, kind: "interaction" } };
  },
};

/**
 * Tables whose counts move with traffic rather than with what was created, the organisation's
 * audit-chain head (one row, made by the first entry) and the audit queue (entries wait there until
 * the sequencer links them).
 */
const NOT_RECORDS = new Set(["staff_sessions", "audit_chain_heads", "audit_queue"]);

const takesIdempotencyKey = (op: Operation) =>
  op.parameters.some((p) => p.in === "header" && p.name.toLowerCase() === "idempotency-key");

describe("concurrent idempotent creates (every operation with an Idempotency-Key)", () => {
  let server: LiveServer;
  let second: LiveServer;
  let ctx: Context;
  let operations: Operation[];

  before(async () => {
    server = await startLiveServer({
      config: { operatorTokenDigest: createHash("sha256").update(OPERATOR_TOKEN).digest() },
    });
    second = await startLiveServer({ sameDatabaseAs: server });
    const org = await seedOrg(server, "idem");
    ctx = { server, org, noticeId: await publishNotice(server, org) };
    operations = (await servedContract(server)).operations.filter(takesIdempotencyKey);
  });
  after(async () => {
    await second?.close();
    await server?.close();
  });

  /**
   * Row counts of the organisation in every table with an organization_id column, with the rows of
   * the organisations the operator route created.
   */
  async function counts(): Promise<Record<string, number>> {
    const tables = await server.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns
        WHERE column_name = 'organization_id' AND table_schema = current_schema() ORDER BY table_name`,
    );
    const out: Record<string, number> = {};
    for (const { table_name: table } of tables) {
      if (NOT_RECORDS.has(table)) continue;
      const [row] = await server.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE organization_id IN (
           SELECT organization_id FROM organizations WHERE organization_id = $1 OR slug LIKE $2)`,
        [ctx.org.org.organizationId, `${OPERATOR_SLUG_PREFIX}%`],
      );
      out[table] = row!.n;
    }
    return out;
  }

  const delta = (before: Record<string, number>, after: Record<string, number>) =>
    Object.fromEntries(
      Object.keys(after)
        .filter((t) => after[t] !== before[t])
        .map((t) => [t, after[t]! - (before[t] ?? 0)]),
    );

  test("every operation with an Idempotency-Key has a request builder", () => {
    assert.ok(operations.length >= 5, `${operations.length} operations take an Idempotency-Key`);
    assert.deepEqual(
      operations.map((op) => op.operationId).filter((id) => !REQUESTS[id]),
      [],
      "add a REQUESTS entry for each",
    );
  });

  test(`${CONCURRENT} concurrent identical requests with one key create what one request creates`, async () => {
    const failures: string[] = [];
    for (const op of operations) {
      const build = REQUESTS[op.operationId]!;
      const send = (target: LiveServer, req: Awaited<ReturnType<RequestBuilder>>, key: string) =>
        target.call(op.path, {
          method: op.method,
          headers: { ...req.headers, "idempotency-key": key },
          body: req.body,
        });

      // What one request creates, with a key and body of its own.
      const single = await build(ctx, randomBytes(4).toString("hex"));
      const beforeSingle = await counts();
      const one = await send(server, single, `single-${randomBytes(6).toString("hex")}`);
      const created = delta(beforeSingle, await counts());
      if (one.status !== successOf(op)) {
        failures.push(`${op.operationId}: a single request answered ${one.status} ${one.text}`);
        continue;
      }
      if (!Object.keys(created).length) {
        failures.push(`${op.operationId}: a single request created nothing to compare with`);
        continue;
      }

      const req = await build(ctx, randomBytes(4).toString("hex"));
      const key = `burst-${randomBytes(6).toString("hex")}`;
      const beforeBurst = await counts();
      const answers: Answer[] = await Promise.all(
        Array.from({ length: CONCURRENT }, (_, i) => send(i % 2 === 0 ? server : second, req, key)),
      );
      const burst = delta(beforeBurst, await counts());
      const statuses = [...new Set(answers.map((a) => a.status))];
      if (statuses.length !== 1 || statuses[0] !== successOf(op)) {
        failures.push(
          `${op.operationId}: statuses ${answers.map((a) => `${a.status} ${a.text}`).join(" | ")}`,
        );
        continue;
      }
      if (new Set(answers.map((a) => a.text)).size !== 1) failures.push(`${op.operationId}: bodies differ`);
      const originals = answers.filter((a) => a.headers["idempotent-replayed"] !== "true").length;
      if (originals !== 1)
        failures.push(`${op.operationId}: ${originals} answers were not marked as replays`);
      if (JSON.stringify(burst) !== JSON.stringify(created)) {
        failures.push(
          `${op.operationId}: ${CONCURRENT} requests with one key created ${JSON.stringify(burst)}, one request ${JSON.stringify(created)}`,
        );
      }

      // The same key with another body: refused, and nothing created.
      const other = await build(ctx, randomBytes(4).toString("hex"));
      const beforeConflict = await counts();
      const conflict = await send(second, other, key);
      const code = (JSON.parse(conflict.text || "{}") as { code?: string }).code;
      if (conflict.status !== 409 || code !== "CONFLICT") {
        failures.push(
          `${op.operationId}: another body with the key answered ${conflict.status} ${conflict.text}`,
        );
      }
      const afterConflict = delta(beforeConflict, await counts());
      if (Object.keys(afterConflict).length) {
        failures.push(`${op.operationId}: the refused request created ${JSON.stringify(afterConflict)}`);
      }
    }
    assert.deepEqual(failures, []);
  });
});
