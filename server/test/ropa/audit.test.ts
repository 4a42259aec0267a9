// `guard audit verify` over the records of processing activities: an organisation whose activities
// were created, changed, archived and restored verifies clean; each kind of SQL tampering with a
// processing_activities row (a column edited, an archiving undone or forged, a time moved, a row
// inserted without its entry, a row deleted) is found and names the row and, where it can, the
// column. Each case runs on a fresh organisation so one finding cannot mask another.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { createActivity, setActivityArchived, updateActivity } from "../../src/ropa/activities.js";
import { seedOrganization, startTestApp, type TestApp } from "../support/harness.js";
import { VALID } from "./fixtures.js";

const actor = { kind: "system" as const, id: "cli:test" };

describe("audit verify and processing activities", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  /** An organisation with one changed activity, one archived and one archived then restored. */
  async function seed() {
    const { org } = await seedOrganization(t);
    const organizationId = org.organizationId;
    const at = () => {
      t.clock.advance(1_000);
      return t.clock.now();
    };
    const make = (name: string, extra: Record<string, unknown> = {}) =>
      t.db.transaction((tx) =>
        createActivity(tx, { organizationId, body: { ...VALID, name, ...extra }, actor }, at()),
      );
    const changed = await make("Changed", {
      crossesBorder: true,
      destinationCountries: ["US"],
      recipients: [{ name: "Cloud", role: "processor", country: "US" }],
    });
    await t.db.transaction((tx) =>
      updateActivity(
        tx,
        {
          organizationId,
          activityId: changed.activityId,
          patch: { purpose: "Billing", description: "d" },
          actor,
        },
        at(),
      ),
    );
    const archived = await make("Archived");
    await t.db.transaction((tx) =>
      setActivityArchived(
        tx,
        { organizationId, activityId: archived.activityId, actor, archived: true },
        at(),
      ),
    );
    const restored = await make("Restored");
    for (const archivedNow of [true, false])
      await t.db.transaction((tx) =>
        setActivityArchived(
          tx,
          { organizationId, activityId: restored.activityId, actor, archived: archivedNow },
          at(),
        ),
      );
    return {
      organizationId,
      changed: changed.activityId,
      archived: archived.activityId,
      restored: restored.activityId,
    };
  }

  const verify = (organizationId: string) =>
    verifyAuditChain(t.db, organizationId, t.config.auditKeys, { now: t.clock.now() });

  test("created, changed, archived and restored activities verify clean", async () => {
    const s = await seed();
    const report = await verify(s.organizationId);
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    assert.equal(report.rowsChecked.processing_activities, 3);
    assert.equal(report.entries, 7);
  });

  type Seeded = Awaited<ReturnType<typeof seed>>;
  const CASES: {
    name: string;
    sql: string;
    params: (s: Seeded) => unknown[];
    row: (s: Seeded) => string;
    reason: RegExp;
  }[] = [
    {
      name: "the purpose edited",
      sql: "UPDATE processing_activities SET purpose = 'Marketing' WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.changed],
      row: (s) => s.changed,
      reason: /^purpose is "[0-9a-f]{64}"; the chain gives "[0-9a-f]{64}"$/,
    },
    {
      name: "the legal basis changed",
      sql: "UPDATE processing_activities SET legal_basis = 'legal_obligation' WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.changed],
      row: (s) => s.changed,
      reason: /legal_basis is/,
    },
    {
      name: "a destination removed (the border flag kept consistent)",
      sql: `UPDATE processing_activities SET destination_countries = '[]', crosses_border = false, recipients = '[]'
             WHERE organization_id = $1 AND activity_id = $2`,
      params: (s) => [s.organizationId, s.changed],
      row: (s) => s.changed,
      reason: /recipients is .*crosses_border is .*destination_countries is/,
    },
    {
      name: "an archiving undone",
      sql: "UPDATE processing_activities SET archived_at = NULL WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.archived],
      row: (s) => s.archived,
      reason: /archived_at is null; the chain gives \d+/,
    },
    {
      name: "a restored activity archived again in SQL",
      sql: "UPDATE processing_activities SET archived_at = updated_at WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.restored],
      row: (s) => s.restored,
      reason: /archived_at is \d+; the chain gives null/,
    },
    {
      name: "the creation time moved",
      sql: "UPDATE processing_activities SET created_at = created_at - 86400000 WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.restored],
      row: (s) => s.restored,
      reason: /created_at is/,
    },
    {
      name: "a row inserted without its entry",
      sql: `INSERT INTO processing_activities (organization_id, activity_id, name, purpose, data_categories,
              legal_basis, recipients, storage_location, crosses_border, destination_countries, created_at, updated_at)
            VALUES ($1, 'act_forged00000000000000', 'Forged', 'p', '["x"]', 'consent', '[]', 'IN', false, '[]', 1, 1)`,
      params: (s) => [s.organizationId],
      row: () => "act_forged00000000000000",
      reason: /no entry in the audit chain/,
    },
    {
      name: "a row deleted",
      sql: "DELETE FROM processing_activities WHERE organization_id = $1 AND activity_id = $2",
      params: (s) => [s.organizationId, s.archived],
      row: (s) => s.archived,
      reason: /missing from processing_activities/,
    },
  ];

  for (const c of CASES) {
    test(`verify finds ${c.name}`, async () => {
      const s = await seed();
      assert.equal((await verify(s.organizationId)).intact, true);
      await t.db.query(c.sql, c.params(s));
      const report = await verify(s.organizationId);
      assert.equal(report.intact, false);
      const problem = report.problems.find(
        (p) => p.table === "processing_activities" && p.recordId === c.row(s),
      );
      assert.ok(problem, JSON.stringify(report.problems));
      assert.match(problem.reason, c.reason);
    });
  }
});
