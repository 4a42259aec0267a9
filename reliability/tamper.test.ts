// Tamper detection for every table the audit chain covers (COVERED_TABLES of server/src/audit/verify.ts,
// so a table added there is covered here unchanged). An organisation's history is made over HTTP
// (consents given and withdrawn, a parental verification, DSRs through their states, a grievance
// answered, a nomination, changed response periods and settings); then, one edit at a time inside a
// transaction that is rolled back, every column of a row of each covered table is changed in SQL,
// the row deleted, and a copy inserted under a new key. `verifyAuditChain` must report each edit
// except for the columns NOT_COMMITTED names with a reason.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../server/src/audit/sequencer.js";
import { COVERED_TABLES, verifyLinkedChain, type AuditVerification } from "../server/src/audit/verify.js";
import { mintSignedTestToken, signedTestTokenKey } from "../server/src/consent/parental-verification.js";
import type { Queryable } from "../server/src/db/database.js";
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
};

/** Rows of each table edited, one at a time (rows in different states catch different gaps). */
const ROWS_PER_TABLE = 2;

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
        `SELECT * FROM ${table} WHERE organization_id = $1 ORDER BY ${key.join(", ")} LIMIT ${ROWS_PER_TABLE}`,
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
}
