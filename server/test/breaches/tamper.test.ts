// `guard audit verify` (verifyAuditChain, what the command runs) against SQL tampering with the
// breach register: each case tampers with its own organisation's breach (recorded, reported to the
// Board, principals added and told) and must be found, naming the table and the row; the untouched
// organisation stays intact.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import { entryHash, GENESIS_HASH } from "../../src/audit/chain.js";
import { linkQueuedOf } from "../../src/audit/sequencer.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { addAffectedPrincipals, notifyAffectedPrincipals } from "../../src/breaches/principals.js";
import { recordBreach, updateBreachRecord } from "../../src/breaches/register.js";
import type { Database } from "../../src/db/database.js";
import { canonicalJson } from "../../src/lib/canonical-json.js";
import { WebhookRelayNotifier } from "../../src/notifications/notifier.js";
import { seedOrganization, startTestApp, type TestApp } from "../support/harness.js";

const HOUR = 3_600_000;
const ACTOR = { kind: "staff" as const, id: "stf_tamper" };

interface Seeded {
  organizationId: string;
  breachId: string;
  principalIds: string[];
}

/** One organisation with a breach that went through every write the register has. */
async function seed(t: TestApp): Promise<Seeded> {
  const { org } = await seedOrganization(t);
  const organizationId = org.organizationId;
  const now = t.clock.now();
  const principalIds: string[] = [];
  for (const externalId of ["p1", "p2", "p3"])
    principalIds.push((await ensurePrincipal(t.db, { organizationId, externalId }, now)).principalId);
  const breach = await t.db.transaction((tx) =>
    recordBreach(
      tx,
      {
        organizationId,
        description: "Support inbox compromised",
        discoveredAt: now - 5 * HOUR,
        affectedPurposes: ["Support"],
        mitigation: "Password reset, MFA enforced",
        actor: ACTOR,
      },
      now,
    ),
  );
  await t.db.transaction((tx) =>
    updateBreachRecord(
      tx,
      { organizationId, breachId: breach.breachId, reportedToBoardAt: now - 2 * HOUR, actor: ACTOR },
      now,
    ),
  );
  await t.db.transaction((tx) =>
    addAffectedPrincipals(
      tx,
      { organizationId, breachId: breach.breachId, externalIds: ["p1", "p2", "p3"], actor: ACTOR },
      now,
    ),
  );
  await notifyAffectedPrincipals(
    t.db,
    new WebhookRelayNotifier(),
    {
      organizationId,
      breachId: breach.breachId,
      consequences: "c",
      safetyMeasures: "s",
      contact: "dpo@example.com",
      actor: ACTOR,
    },
    () => now,
  );
  await linkQueuedOf(t.db, organizationId, now);
  return { organizationId, breachId: breach.breachId, principalIds: principalIds.sort() };
}

/** Rewrites the payload of the entries `edit` changes and rehashes the whole chain after them. */
async function rewriteChain(
  db: Database,
  organizationId: string,
  edit: (entry: {
    entryType: string;
    payload: Record<string, unknown>;
  }) => Record<string, unknown> | undefined,
): Promise<void> {
  const entries = await db.query<{
    seq: number;
    entry_type: string;
    subject_id: string;
    payload: string;
    created_at: number;
  }>(
    "SELECT seq, entry_type, subject_id, payload, created_at FROM audit_entries WHERE organization_id = $1 ORDER BY seq",
    [organizationId],
  );
  let prev = GENESIS_HASH;
  let edited = 0;
  for (const e of entries) {
    const changed = edit({
      entryType: e.entry_type,
      payload: JSON.parse(e.payload) as Record<string, unknown>,
    });
    if (changed) edited += 1;
    const payload = changed ? canonicalJson(changed) : e.payload;
    const hash = entryHash({
      prevHash: prev,
      seq: e.seq,
      organizationId,
      entryType: e.entry_type,
      subjectId: e.subject_id,
      createdAt: e.created_at,
      payload,
    });
    await db.query(
      "UPDATE audit_entries SET payload = $3, prev_hash = $4, entry_hash = $5 WHERE organization_id = $1 AND seq = $2",
      [organizationId, e.seq, payload, prev, hash],
    );
    prev = hash;
  }
  assert.equal(edited, 1, "the rewrite edits one entry");
  await db.query("UPDATE audit_chain_heads SET last_hash = $2 WHERE organization_id = $1", [
    organizationId,
    prev,
  ]);
}

interface Case {
  table: "breaches" | "breach_affected_principals";
  name: string;
  /** Tampers; answers the record id the report must name. */
  tamper(t: TestApp, s: Seeded): Promise<string>;
}

const sql =
  (statement: string, params: (s: Seeded) => unknown[], recordId: (s: Seeded) => string) =>
  async (t: TestApp, s: Seeded) => {
    await t.db.query(statement, params(s));
    return recordId(s);
  };

const CASES: Case[] = [
  {
    table: "breaches",
    name: "the Board intimation moved",
    tamper: sql(
      "UPDATE breaches SET reported_to_board_at = reported_to_board_at - 3600000 WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.breachId,
    ),
  },
  {
    table: "breaches",
    name: "the discovery moved later, deadlines with it",
    tamper: sql(
      `UPDATE breaches SET discovered_at = discovered_at + 3600000, board_due_at = board_due_at + 3600000,
         principal_notification_due_at = principal_notification_due_at + 3600000 WHERE organization_id = $1`,
      (s) => [s.organizationId],
      (s) => s.breachId,
    ),
  },
  {
    table: "breaches",
    name: "the description rewritten",
    tamper: sql(
      "UPDATE breaches SET description = 'Nothing happened' WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.breachId,
    ),
  },
  {
    table: "breaches",
    name: "a real breach turned into a drill (off the partner route)",
    tamper: sql(
      "UPDATE breaches SET drill = true WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.breachId,
    ),
  },
  {
    table: "breaches",
    name: "a detailed report claimed in SQL",
    tamper: sql(
      "UPDATE breaches SET detailed_report_submitted_at = reported_to_board_at, status = 'reported_board_done' WHERE organization_id = $1",
      (s) => [s.organizationId],
      (s) => s.breachId,
    ),
  },
  {
    table: "breaches",
    name: "a breach inserted with no entry",
    tamper: sql(
      `INSERT INTO breaches (organization_id, breach_id, description, discovered_at, affected_purposes,
         affected_data_categories, drill, principal_notification_due_at, board_due_at, status, recorded_by,
         created_at, updated_at)
       SELECT organization_id, 'brc_forged0000', description, discovered_at, affected_purposes,
         affected_data_categories, drill, principal_notification_due_at, board_due_at, 'reported_user_pending',
         recorded_by, created_at, updated_at FROM breaches WHERE organization_id = $1`,
      (s) => [s.organizationId],
      () => "brc_forged0000",
    ),
  },
  {
    table: "breaches",
    name: "the breach deleted",
    tamper: async (t, s) => {
      await t.db.query("DELETE FROM breach_affected_principals WHERE organization_id = $1", [
        s.organizationId,
      ]);
      await t.db.query("DELETE FROM breaches WHERE organization_id = $1", [s.organizationId]);
      return s.breachId;
    },
  },
  {
    table: "breaches",
    name: "an entry's payload edited, chain rehashed",
    tamper: async (t, s) => {
      await rewriteChain(t.db, s.organizationId, (e) =>
        e.entryType === "breach.recorded" ? { ...e.payload, drill: true } : undefined,
      );
      return s.breachId;
    },
  },
  {
    table: "breach_affected_principals",
    name: "an affected principal removed",
    tamper: sql(
      "DELETE FROM breach_affected_principals WHERE organization_id = $1 AND principal_id = $2",
      (s) => [s.organizationId, s.principalIds[0]],
      (s) => `${s.breachId}/${s.principalIds[0]}`,
    ),
  },
  {
    table: "breach_affected_principals",
    name: "a notification time moved",
    tamper: sql(
      "UPDATE breach_affected_principals SET notified_at = notified_at + 1000 WHERE organization_id = $1 AND principal_id = $2",
      (s) => [s.organizationId, s.principalIds[1]],
      (s) => `${s.breachId}/${s.principalIds[1]}`,
    ),
  },
  {
    table: "breach_affected_principals",
    name: "a principal added with no entry",
    tamper: async (t, s) => {
      const { principalId } = await ensurePrincipal(
        t.db,
        { organizationId: s.organizationId, externalId: "p-forged" },
        t.clock.now(),
      );
      await t.db.query(
        "INSERT INTO breach_affected_principals (organization_id, breach_id, principal_id, added_at) VALUES ($1, $2, $3, 1)",
        [s.organizationId, s.breachId, principalId],
      );
      return `${s.breachId}/${principalId}`;
    },
  },
  {
    table: "breach_affected_principals",
    name: "an entry's notified list edited, chain rehashed",
    tamper: async (t, s) => {
      await rewriteChain(t.db, s.organizationId, (e) =>
        e.entryType === "breach.principals_notified"
          ? { ...e.payload, notified: (e.payload.notified as unknown[]).slice(1) }
          : undefined,
      );
      return `${s.breachId}/${s.principalIds[0]}`;
    },
  },
];

describe("breach evidence under tampering", () => {
  let t: TestApp;
  let clean: Seeded;
  before(async () => {
    t = await startTestApp();
    clean = await seed(t);
  });
  after(() => t.close());

  const verify = (organizationId: string) =>
    verifyAuditChain(t.db, organizationId, t.config.auditKeys, { now: t.clock.now() });

  test("an untouched register verifies clean, checking both tables", async () => {
    const report = await verify(clean.organizationId);
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    assert.equal(report.rowsChecked.breaches, 1);
    assert.equal(report.rowsChecked.breach_affected_principals, 3);
  });

  for (const c of CASES) {
    test(`${c.table}: ${c.name} is found`, async () => {
      const s = await seed(t);
      const recordId = await c.tamper(t, s);
      const report = await verify(s.organizationId);
      assert.equal(report.intact, false, `${c.name} went unnoticed`);
      assert.ok(
        report.problems.some((p) => p.table === c.table && p.recordId === recordId),
        `a problem names ${c.table} ${recordId}: ${JSON.stringify(report.problems)}`,
      );
    });
  }
});
