// Tamper detection for every table the audit chain covers (COVERED_TABLES of server/src/audit/verify.ts,
// so a table added there is covered here unchanged). An organisation's history is made over HTTP
// (consents given and withdrawn, a parental verification, DSRs through their states, a grievance
// answered, a nomination, changed response periods and settings, offline captures, the breach,
// RoPA and retention registers, the retention sweep and a log-retention purge); then, one edit at a
// time inside a transaction that is rolled back, every column of a row of each covered table is
// changed in SQL, the row deleted, and a copy inserted under a new key. `verifyAuditChain` must report each edit
// except for the columns NOT_COMMITTED names with a reason.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../server/src/audit/sequencer.js";
import { COVERED_TABLES, verifyLinkedChain, type AuditVerification } from "../server/src/audit/verify.js";
import { mintSignedTestToken, signedTestTokenKey } from "../server/src/consent/parental-verification.js";
import type { Queryable } from "../server/src/db/database.js";
import { purgeOrganizationLogs } from "../server/src/log-retention/purge.js";
import { WebhookRelayNotifier } from "../server/src/notifications/notifier.js";
import { THIRD_SCHEDULE_DAYS } from "../server/src/retention/policies.js";
import { sweepRetention } from "../server/src/retention/sweep.js";
import { sessionFor, sign, type TestDevice } from "../server/test/offline/captures/support.js";
import {
  bearer,
  brokerToken,
  expectStatus,
  publishNotice,
  seedOrg,
  startLiveServer,
  type LiveServer,
  type Org,
} from "./support/live-server.js";

/**
 * Columns the chain does not commit to, per table, and why an edit there is not tampering with
 * evidence. Everything else must be detected.
 */
const FREE_TEXT =
  "free text never goes on the chain (erasure redacts it): server/src/audit/evidence/rights.ts";
const BOOKKEEPING = "bookkeeping of when the row last changed; the changes themselves are on the chain";
const SWEEP =
  "when the clock sweep raised its due-soon/overdue event: the sweep's own progress, not evidence";
const ERASURE = "set by erasure, which redacts free text and is not a move on the chain";
const NOT_COMMITTED: Record<string, Record<string, string>> = {
  audit_chain_heads: { updated_at: BOOKKEEPING },
  rights_transitions: { reason: FREE_TEXT },
  dsr_requests: {
    details: FREE_TEXT,
    response_payload: FREE_TEXT,
    updated_at: BOOKKEEPING,
    due_soon_raised_at: SWEEP,
    overdue_raised_at: SWEEP,
    redacted_at: ERASURE,
  },
  grievances: {
    subject: FREE_TEXT,
    description: FREE_TEXT,
    response: FREE_TEXT,
    updated_at: BOOKKEEPING,
    due_soon_raised_at: SWEEP,
    overdue_raised_at: SWEEP,
    redacted_at: ERASURE,
  },
  breaches: {
    updated_at: BOOKKEEPING,
    principal_due_soon_raised_at: SWEEP,
    principal_overdue_raised_at: SWEEP,
    board_due_soon_raised_at: SWEEP,
    board_overdue_raised_at: SWEEP,
  },
  nominations: {
    nominee_name: FREE_TEXT,
    nominee_contact: FREE_TEXT,
    updated_at: BOOKKEEPING,
    erased_at: ERASURE,
  },
  organizations: {
    slug: "only `settings` of an organisation is evidence; slug, name and switches change without an entry",
    name: "only `settings` of an organisation is evidence; slug, name and switches change without an entry",
    capabilities:
      "only `settings` of an organisation is evidence; slug, name and switches change without an entry",
    created_at:
      "only `settings` of an organisation is evidence; slug, name and switches change without an entry",
  },
  ivr_consent_artifacts: {
    notice_version:
      "the version published at receipt; the IVR entry commits to the submission, not to it (an acceptance's consent commits to the version it was given to)",
    received_by: "the API key that submitted the artefact: who called, not what the partner reported",
    withdrawal_token_sealed:
      "the acceptance's withdrawal token, sealed so a resubmission can answer it again; the token itself is a hash in withdrawal_tokens",
  },
  pos_consent_requests: {
    phone_hash:
      "the customer's keyed phone hash: no personal data goes on the chain, even hashed (offline/pos/README.md)",
    token_hash:
      "the receipt token's SHA-256: a bearer secret's fingerprint, kept off the chain like the token",
    withdrawal_token_sealed:
      "the confirmation's withdrawal token, sealed so the page can show it again; the token itself is a hash in withdrawal_tokens",
  },
  offline_link_responses: {
    withdrawal_token_sealed:
      "the accepted answer's withdrawal token, sealed so a repeated post can show it again; the token itself is a hash in withdrawal_tokens, and the answer's evidence (decision, consent, what was shown) is on the chain",
  },
  offline_capture_sessions: {
    withdrawal_token_sealed:
      "the verified or released session's withdrawal token, sealed so a re-sync can hand the device the same token again; the token itself is a hash in withdrawal_tokens, and the consents it withdraws are on the chain (consent_ids)",
  },
};

/** Rows of each table edited, one at a time (rows in different states catch different gaps). */
const ROWS_PER_TABLE = 2;
/**
 * Tables whose every row is edited: their ids are random, so the first rows by key are in no
 * particular state, and the history gives each row a state of its own.
 */
const EVERY_ROW = new Set(["offline_capture_sessions"]);

/** Raised to roll a tampering transaction back once verify has judged it. */
class RollBack extends Error {}

interface Column {
  name: string;
  type: string;
}

describe("tamper detection for every table the audit chain covers", () => {
  let server: LiveServer;
  let org: Org;

  before(async () => {
    server = await startLiveServer();
    org = await seedOrg(server, "tamper");
    await makeHistory(server, org);
    // Tampering and verifying share a rolled-back transaction, where nothing can be linked.
    await linkQueuedOf(server.db, org.org.organizationId, Date.now());
  });
  after(() => server?.close());

  const verify = (db: Queryable): Promise<AuditVerification> =>
    verifyLinkedChain(db, org.org.organizationId, server.config.auditKeys);

  /** Runs `tamper` and verify in one transaction, then rolls it back; null when the edit was refused. */
  async function judged(tamper: (tx: Queryable) => Promise<unknown>): Promise<AuditVerification | null> {
    let report: AuditVerification | null = null;
    try {
      await server.db.transaction(async (tx) => {
        try {
          await tamper(tx);
        } catch {
          throw new RollBack(); // a constraint refused the edit: nothing to detect
        }
        report = await verify(tx);
        throw new RollBack();
      });
    } catch (error) {
      if (!(error instanceof RollBack)) throw error;
    }
    return report;
  }

  async function columnsOf(table: string): Promise<{ columns: Column[]; key: string[] }> {
    const columns = await server.db.query<{ column_name: string; data_type: string }>(
      `SELECT column_name, data_type FROM information_schema.columns
        WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
      [table],
    );
    const key = await server.db.query<{ column_name: string }>(
      `SELECT k.column_name FROM information_schema.table_constraints c
         JOIN information_schema.key_column_usage k
           ON k.constraint_name = c.constraint_name AND k.table_schema = c.table_schema AND k.table_name = c.table_name
        WHERE c.table_schema = current_schema() AND c.table_name = $1 AND c.constraint_type = 'PRIMARY KEY'
        ORDER BY k.ordinal_position`,
      [table],
    );
    return {
      columns: columns.map((c) => ({ name: c.column_name, type: c.data_type })),
      key: key.map((k) => k.column_name),
    };
  }

  /**
   * Other values to try for a column, real ones first: the column's other values in any table that
   * has a column of that name (another principal, another status), then a made-up one.
   */
  async function replacements(column: Column, value: unknown): Promise<unknown[]> {
    const same = (v: unknown) => JSON.stringify(v) === JSON.stringify(value);
    const tables = await server.db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() AND column_name = $1`,
      [column.name],
    );
    const real: unknown[] = [];
    for (const { table_name: other } of tables) {
      const rows = await server.db.query<{ v: unknown }>(
        `SELECT DISTINCT ${column.name} AS v FROM ${other} WHERE ${column.name} IS NOT NULL LIMIT 10`,
      );
      for (const { v } of rows)
        if (!same(v) && !real.some((r) => JSON.stringify(r) === JSON.stringify(v))) real.push(v);
    }
    const made: unknown[] = [];
    if (value === null) made.push(column.type.includes("int") ? 1 : column.type === "boolean" ? true : "x");
    else if (typeof value === "number") made.push(value + 1);
    else if (typeof value === "boolean") made.push(!value);
    else if (typeof value === "string") made.push(`${value}x`);
    else made.push({ tampered: true });
    return [...real.slice(0, 4), ...made].map((v) =>
      column.type.startsWith("json") && v !== null ? JSON.stringify(v) : v,
    );
  }

  // Against an intact baseline, any problem after one edit is that edit found (deleting the last
  // entry, for instance, is reported as the head no longer matching it).
  const detected = (report: AuditVerification) => !report.intact;

  test("the untouched history verifies intact, and the chain covers tables", async () => {
    const report = await verify(server.db);
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    assert.ok(COVERED_TABLES.length >= 5, `covered: ${COVERED_TABLES.join(", ")}`);
  });

  test("every edit of a covered table (column update, delete, insert) is reported", async () => {
    const undetected: string[] = [];
    const untestable: string[] = [];
    /** Columns whose every edit a database constraint refused: SQL cannot forge them there. */
    const guarded = new Set<string>();
    let edits = 0;
    for (const table of COVERED_TABLES) {
      const { columns, key } = await columnsOf(table);
      const rows = await server.db.query<Record<string, unknown>>(
        `SELECT * FROM ${table} WHERE organization_id = $1 ORDER BY ${key.join(", ")} LIMIT ${EVERY_ROW.has(table) ? 100 : ROWS_PER_TABLE}`,
        [org.org.organizationId],
      );
      if (rows.length === 0) untestable.push(`${table}: the history made no row (extend makeHistory)`);
      for (const row of rows) {
        const where = key.map((k, i) => `${k} = $${i + 1}`).join(" AND ");
        const keyValues = key.map((k) => row[k]);

        for (const column of columns) {
          if (column.name === "organization_id" || NOT_COMMITTED[table]?.[column.name]) continue;
          let tried = false;
          for (const replacement of await replacements(column, row[column.name])) {
            const report = await judged((tx) =>
              tx.query(`UPDATE ${table} SET ${column.name} = $${key.length + 1} WHERE ${where}`, [
                ...keyValues,
                replacement,
              ]),
            );
            if (report === null) continue;
            tried = true;
            edits++;
            if (!detected(report))
              undetected.push(`${table}.${column.name} = ${JSON.stringify(replacement)}`);
            break;
          }
          if (!tried) guarded.add(`${table}.${column.name}`);
        }

        const deleted = await judged((tx) => tx.query(`DELETE FROM ${table} WHERE ${where}`, keyValues));
        if (deleted !== null) {
          edits++;
          if (!detected(deleted)) undetected.push(`${table}: a deleted row`);
        }

        // A copy under a new key: a text id gets a new id, a number one no row has.
        const idColumn = key.find((k) => k !== "organization_id");
        if (idColumn) {
          const copy = { ...row };
          copy[idColumn] =
            typeof row[idColumn] === "number" ? Number.MAX_SAFE_INTEGER - 1 : `${String(row[idColumn])}copy`;
          const names = Object.keys(copy);
          const values = names.map((n) => {
            const type = columns.find((c) => c.name === n)?.type ?? "";
            return type.startsWith("json") && copy[n] !== null ? JSON.stringify(copy[n]) : copy[n];
          });
          const inserted = await judged((tx) =>
            tx.query(
              `INSERT INTO ${table} (${names.join(", ")}) VALUES (${names.map((_, i) => `$${i + 1}`).join(", ")})`,
              values,
            ),
          );
          if (inserted !== null) {
            edits++;
            if (!detected(inserted)) undetected.push(`${table}: a row inserted with no entry`);
          }
        }
      }
    }
    console.log(
      `tamper: ${edits} edits over ${COVERED_TABLES.length} tables, ${undetected.length} undetected; refused by constraints: ${[...guarded].join(", ")}`,
    );
    assert.deepEqual(untestable, [], "edits the test could not make");
    assert.deepEqual(undetected, [], "edits verify did not report");
  });
});

/** One organisation's history, with a row in every covered table, made over HTTP. */
async function makeHistory(server: LiveServer, org: Org): Promise<void> {
  const call = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
    server.call(path, { method, headers, body });
  const organizationId = org.org.organizationId;
  // The chain's first entry: a settings change the later one supersedes, so the log-retention
  // purge at the end has an entry no kept record needs (and leaves a checkpoint).
  expectStatus(
    await call("/api/v1/staff/organization/settings", "PATCH", org.staff, {
      blockTrackingForChildren: true,
    }),
    200,
    "first settings",
  );
  const noticeId = await publishNotice(server, org);
  const consent = (email: string, purpose: string) =>
    call("/cm/v1/consent", "POST", bearer(org.apiKey), { email, noticeId, purpose, dataTypes: ["email"] });
  const kept = expectStatus<{ consentId: string }>(
    await consent(org.principal.email, "Account"),
    201,
    "consent",
  );
  const gone = expectStatus<{ consentId: string }>(
    await consent(org.principal.email, "Newsletter"),
    201,
    "consent",
  );
  expectStatus(await call(`/cm/v1/consent/${gone.consentId}`, "DELETE", bearer(org.apiKey)), 200, "withdraw");
  assert.ok(kept.consentId);

  const token = mintSignedTestToken(signedTestTokenKey(server.config.tokenSecret), {
    organizationId,
    externalId: org.principal.externalId,
    parentReference: "parent-ref-1",
    expiresAt: Date.now() + 600_000,
  });
  const verified = await call("/api/v1/age/verify-parent", "POST", bearer(org.principal.token), {
    tokenFromProvider: token,
  });
  assert.ok(verified.status < 300, `verify-parent: ${verified.status} ${verified.text}`);

  const dsr = async (type: string) =>
    expectStatus<{ requestId: string }>(
      await call("/api/v1/dsr", "POST", bearer(org.principal.token), { organizationId, type }),
      201,
      "DSR",
    ).requestId;
  const move = async (requestId: string, status: string) =>
    expectStatus(
      await call(`/api/v1/staff/dsr/${requestId}`, "PATCH", org.staff, { status, reason: `to ${status}` }),
      200,
      `DSR to ${status}`,
    );
  const rejected = await dsr("correction");
  await move(rejected, "in_progress");
  await move(rejected, "rejected");
  const completed = await dsr("processors");
  await move(completed, "in_progress");
  await move(completed, "completed");
  await dsr("summary");

  // Two of each kind, in different states, so a status can be swapped for another real one.
  const grievance = async () =>
    expectStatus<{ grievanceId: string }>(
      await call("/api/v1/grievances", "POST", bearer(org.principal.token), {
        organizationId,
        subject: "s",
        description: "d",
      }),
      201,
      "grievance",
    ).grievanceId;
  await grievance();
  const grievanceId = await grievance();
  expectStatus(
    await call(`/api/v1/staff/grievances/${grievanceId}/respond`, "POST", org.staff, {
      status: "resolved",
      response: "done",
    }),
    200,
    "grievance response",
  );
  const other = await brokerToken(server, org.apiKey, "nominator", "nominator@example.com");
  for (const [t, name] of [
    [org.principal.token, "Asha"],
    [other, "Ravi"],
  ] as const) {
    const res = await call("/api/v1/nomination", "PUT", bearer(t), {
      nomineeName: name,
      nomineeContact: "n@example.com",
    });
    assert.ok(res.status < 300, `nomination: ${res.status} ${res.text}`);
  }
  const revoked = await call("/api/v1/nomination", "DELETE", bearer(other));
  assert.ok(revoked.status < 300, `revoke nomination: ${revoked.status} ${revoked.text}`);
  expectStatus(
    await call("/api/v1/staff/rights/settings", "PUT", org.staff, { dsrResponseDays: 20 }),
    200,
    "periods",
  );
  expectStatus(
    await call("/api/v1/staff/organization/settings", "PATCH", org.staff, {
      blockTrackingForChildren: false,
    }),
    200,
    "settings",
  );
  // Two enrolled devices, one revoked, so each device column has another real value to take.
  const enrolDevice = async (label: string, channel: string) =>
    expectStatus<{ deviceId: string }>(
      await call("/api/v1/staff/devices", "POST", org.staff, {
        label,
        channel,
        publicKeySpki: generateKeyPairSync("ec", { namedCurve: "prime256v1" })
          .publicKey.export({ type: "spki", format: "der" })
          .toString("base64"),
      }),
      201,
      "device",
    ).deviceId;
  await enrolDevice("Ward tablet", "agent_app");
  const lost = await enrolDevice("Counter terminal", "pos");
  expectStatus(
    await call(`/api/v1/staff/devices/${lost}/revoke`, "POST", org.staff, { reason: "Lost" }),
    200,
    "device revocation",
  );
  // Two QR consent links, one disabled; on the other's page one principal agrees and one declines.
  const mintLink = async (label: string, purpose: string) =>
    expectStatus<{ linkId: string; token: string }>(
      await call("/api/v1/offline-consent/links", "POST", bearer(org.apiKey), {
        noticeId,
        purpose,
        dataTypes: ["email"],
        label,
      }),
      201,
      "offline consent link",
    );
  const counter = await mintLink("Counter 1", "Account");
  const retired = await mintLink("Counter 2", "Newsletter");
  expectStatus(
    await call(`/api/v1/staff/offline-consent/links/${retired.linkId}/disable`, "POST", org.staff),
    200,
    "link disabled",
  );
  for (const decision of ["accept", "decline"]) {
    const shown = await call(`/offline-consent/${counter.token}`, "GET", {});
    assert.equal(shown.status, 200, shown.text);
    const form = new URLSearchParams({
      nonce: /name="nonce" value="([0-9A-Za-z]+)"/.exec(shown.text)![1]!,
      version: /name="version" value="(\d+)"/.exec(shown.text)![1]!,
      lang: "en",
      decision,
    });
    const answered = await call(
      `/offline-consent/${counter.token}`,
      "POST",
      { "content-type": "application/x-www-form-urlencoded" },
      form.toString(),
    );
    assert.equal(answered.status, 200, answered.text);
  }
  // Two IVR calls a telephony partner reports: one acceptance (with a transcript), one refusal.
  for (const [callId, dtmfSequence, transcript] of [
    ["call-1", "1", "Press 1 to agree. [1]"],
    ["call-2", "9", undefined],
  ] as const) {
    expectStatus(
      await call("/api/v1/offline/ivr", "POST", bearer(org.apiKey), {
        noticeId,
        partnerCallId: callId,
        audioRecordingUri: `https://recordings.partner.example/${callId}.wav`,
        ...(transcript === undefined ? {} : { transcript }),
        locale: "en",
        dtmfSequence,
        callerNumberHash: `sha256:${callId}`,
        capturedAt: Date.now() - 60_000,
        partnerSignature: "partner-sig-v1:abc123==",
        purpose: "Account",
        dataTypes: ["phone"],
      }),
      201,
      "IVR artefact",
    );
  }
  // Three point-of-sale requests: the customer confirms one on the receipt's page, declines one and
  // leaves one pending.
  for (const answer of ["confirm", "decline", undefined]) {
    const { token } = expectStatus<{ token: string }>(
      await call("/api/v1/offline/pos", "POST", bearer(org.apiKey), {
        noticeId,
        purpose: "Account",
        dataTypes: ["email"],
        phone: "+91 98765 43210",
      }),
      201,
      "POS request",
    );
    if (answer === undefined) continue;
    const shown = await call(`/consent/${token}`, "GET", {});
    assert.equal(shown.status, 200, shown.text);
    const form = new URLSearchParams({
      answer,
      version: /name="version" value="(\d+)"/.exec(shown.text)![1]!,
    });
    const answered = await call(
      `/consent/${token}`,
      "POST",
      { "content-type": "application/x-www-form-urlencoded" },
      form.toString(),
    );
    assert.equal(answered.status, 200, answered.text);
  }
  await syncCaptures(server, org, noticeId, counter.linkId);
  await registers(server, org, noticeId);
}

const DAY = 86_400_000;

/**
 * The registers: two processing activities (one changed, one archived), two breaches (one
 * reported to the Board with its principal added and told, one a drill), two retention policies
 * (one changed, one archived), two legal holds (one released), the erasures the retention sweep
 * schedules and notifies a Third Schedule period later, and last the log-retention purge a year
 * after that, which leaves a checkpoint.
 */
async function registers(server: LiveServer, org: Org, noticeId: string): Promise<void> {
  const call = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
    server.call(path, { method, headers, body });
  const organizationId = org.org.organizationId;
  const activity = async (name: string, crossesBorder: boolean) =>
    expectStatus<{ activityId: string }>(
      await call("/api/v1/staff/ropa/activities", "POST", org.staff, {
        name,
        purpose: "Account",
        dataCategories: ["name", "email"],
        legalBasis: "consent",
        storageLocation: "AWS ap-south-1 (Mumbai)",
        crossesBorder,
        ...(crossesBorder ? { destinationCountries: ["SG"] } : {}),
      }),
      201,
      "processing activity",
    ).activityId;
  const changed = await activity("Order fulfilment", false);
  expectStatus(
    await call(`/api/v1/staff/ropa/activities/${changed}`, "PATCH", org.staff, {
      dataCategories: ["name", "email", "address"],
    }),
    200,
    "activity changed",
  );
  const archived = await activity("Support desk", true);
  expectStatus(
    await call(`/api/v1/staff/ropa/activities/${archived}/archive`, "POST", org.staff),
    200,
    "activity archived",
  );

  const breach = async (description: string, drill: boolean) =>
    expectStatus<{ breachId: string }>(
      await call("/api/v1/staff/breaches", "POST", org.staff, {
        description,
        discoveredAt: Date.now() - 3_600_000,
        mitigation: "Contained",
        ...(drill ? { drill } : {}),
      }),
      201,
      "breach",
    ).breachId;
  const reported = await breach("Leaked export", false);
  expectStatus(
    await call(`/api/v1/staff/breaches/${reported}`, "PATCH", org.staff, {
      reportedToBoardAt: Date.now() - 60_000,
    }),
    200,
    "breach reported",
  );
  expectStatus(
    await call(`/api/v1/staff/breaches/${reported}/principals`, "POST", org.staff, {
      externalIds: [org.principal.externalId, "nominator"],
    }),
    200,
    "breach principals",
  );
  expectStatus(
    await call(`/api/v1/staff/breaches/${reported}/notify-principals`, "POST", org.staff, {
      consequences: "Phishing emails",
      safetyMeasures: "Ignore links",
      contact: "dpo@example.com",
    }),
    200,
    "breach principals told",
  );
  await breach("Tabletop exercise", true);

  const policy = async (purpose: string) =>
    expectStatus<{ policyId: string }>(
      await call("/api/v1/staff/retention/policies", "POST", org.staff, { preset: "ecommerce", purpose }),
      201,
      "retention policy",
    ).policyId;
  const kept = await policy("Account");
  expectStatus(
    await call(`/api/v1/staff/retention/policies/${kept}`, "PATCH", org.staff, { noticeHours: 72 }),
    200,
    "policy changed",
  );
  const retired = await policy("Newsletter");
  expectStatus(
    await call(`/api/v1/staff/retention/policies/${retired}/archive`, "POST", org.staff),
    200,
    "policy archived",
  );
  const hold = async (userId: string) =>
    expectStatus<{ holdId: string }>(
      await call("/api/v1/staff/retention/holds", "POST", org.staff, {
        userId,
        statute: "Companies Act, 2013",
        citation: "Section 128(5)",
      }),
      201,
      "legal hold",
    ).holdId;
  const released = await hold(org.principal.externalId);
  expectStatus(
    await call(`/api/v1/staff/retention/holds/${released}/release`, "POST", org.staff, {
      reason: "Audit closed",
    }),
    200,
    "hold released",
  );
  await hold("nominator");

  // Another customer with an Account consent, so the sweep schedules two erasures.
  await brokerToken(server, org.apiKey, "buyer", "buyer@example.com");
  expectStatus(
    await call("/cm/v1/consent", "POST", bearer(org.apiKey), {
      email: "buyer@example.com",
      noticeId,
      purpose: "Account",
      dataTypes: ["email"],
    }),
    201,
    "second customer's consent",
  );
  // The sweep a Third Schedule period on: erasures scheduled (and their notices sent) for the
  // principals with an Account consent and no hold.
  const swept = Date.now() + (THIRD_SCHEDULE_DAYS + 30) * DAY;
  const sweep = await sweepRetention(server.db, new WebhookRelayNotifier(), swept);
  assert.ok(sweep.scheduled >= 2, `retention sweep: ${JSON.stringify(sweep)}`);

  expectStatus(
    await call("/api/v1/staff/log-retention/policy", "PUT", org.staff, { auditEntries: 365 }),
    200,
    "log retention",
  );
  await linkQueuedOf(server.db, organizationId, swept);
  const purged = await purgeOrganizationLogs(server.db, organizationId, {
    now: swept + 400 * DAY,
    keys: server.config.auditKeys,
  });
  assert.equal(purged.classes.auditEntries?.status, "purged", JSON.stringify(purged));
}

/**
 * Offline capture sessions, signed by a device enrolled with the service key and synced in one
 * batch: two verified (one with an opt-in and an opt-out, a phone handle and a link; one opting in
 * to the other purpose), two quarantined (a signature by a key never enrolled, which staff then
 * reject; a device clock 30 days off, which staff release) and one rejected (a grant for a purpose
 * the notice does not itemise).
 */
async function syncCaptures(server: LiveServer, org: Org, noticeId: string, linkId: string): Promise<void> {
  const call = (path: string, method: string, headers: Record<string, string>, body?: unknown) =>
    server.call(path, { method, headers, body });
  const organizationId = org.org.organizationId;
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const publicKeySpki = publicKey.export({ type: "spki", format: "der" }).toString("base64");
  const { deviceId } = expectStatus<{ deviceId: string }>(
    await call("/api/v1/staff/devices", "POST", bearer(org.apiKey), {
      label: "Field agent tablet",
      channel: "agent_app",
      publicKeySpki,
    }),
    201,
    "capture device",
  );
  const device: TestDevice = { organizationId, deviceId, privateKey, publicKeySpki };
  // The same device id, but a key it never enrolled: its signatures do not verify.
  const impostor: TestDevice = {
    ...device,
    privateKey: generateKeyPairSync("ec", { namedCurve: "prime256v1" }).privateKey,
  };
  const [published] = await server.db.query<{ version: number }>(
    "SELECT version FROM notice_versions WHERE organization_id = $1 AND notice_id = $2 AND status = 'published'",
    [organizationId, noticeId],
  );
  assert.ok(published, "the notice is published");
  const notice = { noticeId, version: Number(published.version) };
  const now = Date.now();
  const grant = (purposeKey: string, status: "opt_in" | "opt_out") => ({
    purposeKey,
    purposeLabel: purposeKey,
    category: purposeKey === "Account" ? ("essential" as const) : ("non_essential" as const),
    status,
  });
  const sessions = {
    verified: sign(
      device,
      sessionFor(device, notice, now, {
        noticeLocale: "en",
        dataTypes: ["name", "phone"],
        purposeGrants: [grant("Account", "opt_in"), grant("Newsletter", "opt_out")],
        principalHandle: { kind: "phone_hash", value: "+919876543210" },
        linkId,
      }),
    ),
    alsoVerified: sign(
      device,
      sessionFor(device, notice, now, {
        noticeLocale: "en",
        channel: "pos",
        dataTypes: ["email"],
        purposeGrants: [grant("Account", "opt_out"), grant("Newsletter", "opt_in")],
        principalHandle: { kind: "uhid", value: "UHID-0042" },
      }),
    ),
    mismatch: sign(
      impostor,
      sessionFor(device, notice, now, {
        noticeLocale: "en",
        purposeGrants: [grant("Account", "opt_in"), grant("Newsletter", "opt_out")],
      }),
    ),
    skewed: sign(
      device,
      sessionFor(device, notice, now, {
        noticeLocale: "en",
        capturedAtClient: now - 30 * 24 * 3_600_000,
        purposeGrants: [grant("Account", "opt_in"), grant("Newsletter", "opt_in")],
      }),
    ),
    unitemised: sign(
      device,
      sessionFor(device, notice, now, {
        noticeLocale: "en",
        purposeGrants: [grant("Account", "opt_in"), grant("Marketing", "opt_in")],
      }),
    ),
  };
  const { results } = expectStatus<{
    results: { clientSessionId: string; status: string; reason?: string }[];
  }>(
    await call("/api/v1/offline/captures", "POST", bearer(org.apiKey), { sessions: Object.values(sessions) }),
    200,
    "offline captures",
  );
  assert.deepEqual(
    results.map((r) => `${r.status}${r.reason ? `/${r.reason}` : ""}`),
    [
      "verified",
      "verified",
      "quarantined/signature_mismatch",
      "quarantined/clock_skew",
      "rejected/invalid_session",
    ],
    "the batch's outcomes",
  );
  const sessionId = async (clientSessionId: string) => {
    const [row] = await server.db.query<{ session_id: string }>(
      "SELECT session_id FROM offline_capture_sessions WHERE organization_id = $1 AND client_session_id = $2",
      [organizationId, clientSessionId],
    );
    assert.ok(row, `session ${clientSessionId} is stored`);
    return row.session_id;
  };
  expectStatus(
    await call(
      `/api/v1/staff/offline/captures/${await sessionId(sessions.mismatch.clientSessionId)}/reject`,
      "POST",
      org.staff,
      { note: "Not signed by the enrolled key" },
    ),
    200,
    "capture rejected by staff",
  );
  expectStatus(
    await call(
      `/api/v1/staff/offline/captures/${await sessionId(sessions.skewed.clientSessionId)}/release`,
      "POST",
      org.staff,
      { note: "Tablet clock was wrong; paper form checked" },
    ),
    200,
    "capture released",
  );
}
