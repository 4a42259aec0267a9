// `guard breaches …` end to end: real processes on a real database (PGlite data directory, or a
// fresh PostgreSQL database), JSON output, exit codes, the route's rules and messages, and the real
// `guard audit verify` passing on what the CLI wrote and failing once a breach is altered in SQL.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import { findOrganizationBySlug } from "../../src/accounts/store.js";
import type { Database } from "../../src/db/database.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

type Breach = {
  breachId: string;
  status: string;
  drill: boolean;
  discoveredAt: number;
  reportedToUserAt: number | null;
  reportedToBoardAt: number | null;
  boardReportDueState: string;
  affectedPrincipals: { total: number; notified: number; pending: number };
  recordedBy: string;
};

describe("guard breaches", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const org = await cli.run(["--json", "org", "create", "--slug", "shop", "--name", "Shop"]);
    assert.equal(org.code, 0, org.stderr);
  });
  after(() => cli.dispose());

  const withDb = <T>(work: (db: Database) => Promise<T>): Promise<T> => cli.withDatabase(work);

  test("record, update, principals, notify, list, show, sweep-clocks; audit verify passes, then finds tampering", async () => {
    const discovered = new Date(Date.now() - 3 * 3_600_000).toISOString();
    const recorded = await cli.run([
      "--json",
      "breaches",
      "record",
      "--org",
      "shop",
      "--description",
      "Order export emailed to the wrong partner",
      "--discovered-at",
      discovered,
      "--purpose",
      "Orders",
      "--data-category",
      "email",
    ]);
    assert.equal(recorded.code, 0, recorded.stderr);
    const breach = recorded.json<Breach>();
    assert.match(breach.breachId, /^brc_/);
    assert.equal(breach.discoveredAt, Date.parse(discovered));
    assert.match(breach.recordedBy, /^cli:/);
    const drill = await cli.run([
      "--json",
      "breaches",
      "record",
      "--org",
      "shop",
      "--description",
      "Drill",
      "--discovered-at",
      String(Date.now() - 1000),
      "--drill",
    ]);
    assert.equal(drill.code, 0, drill.stderr);

    // The rules' messages, exit 1; bad arguments, exit 2.
    const future = await cli.run([
      "breaches",
      "record",
      "--org",
      "shop",
      "--description",
      "x",
      "--discovered-at",
      String(Date.now() + 3_600_000),
    ]);
    assert.equal(future.code, 1);
    assert.match(future.stderr, /VALIDATION_ERROR: .*future.*\(discoveredAt\)/);
    const badTime = await cli.run([
      "breaches",
      "record",
      "--org",
      "shop",
      "--description",
      "x",
      "--discovered-at",
      "2026-01-01",
    ]);
    assert.equal(badTime.code, 2);
    assert.match(badTime.stderr, /ISO 8601/);

    const beforeDiscovery = await cli.run([
      "breaches",
      "update",
      breach.breachId,
      "--org",
      "shop",
      "--board-reported-at",
      String(breach.discoveredAt - 1),
    ]);
    assert.equal(beforeDiscovery.code, 1);
    assert.match(beforeDiscovery.stderr, /\(reportedToBoardAt\)/);
    const updated = await cli.run([
      "--json",
      "breaches",
      "update",
      breach.breachId,
      "--org",
      "shop",
      "--board-reported-at",
      String(breach.discoveredAt + 60_000),
      "--mitigation",
      "Partner confirmed deletion",
    ]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.json<Breach>().reportedToBoardAt, breach.discoveredAt + 60_000);

    const noOne = await cli.run([
      "breaches",
      "notify",
      breach.breachId,
      "--org",
      "shop",
      "--consequences",
      "Spam",
      "--safety-measures",
      "Be wary",
      "--contact",
      "dpo@shop.example",
    ]);
    assert.equal(noOne.code, 1);
    assert.match(noOne.stderr, /VALIDATION_ERROR: .*\(principals\)/);

    await withDb(async (db) => {
      const org = await findOrganizationBySlug(db, "shop");
      for (const externalId of ["c1", "c2"])
        await ensurePrincipal(db, { organizationId: org!.organizationId, externalId }, Date.now());
    });
    const added = await cli.run([
      "--json",
      "breaches",
      "principals",
      breach.breachId,
      "--org",
      "shop",
      "--external-id",
      "c1",
      "--external-id",
      "c2",
    ]);
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.json<{ added: number }>().added, 2);
    const told = await cli.run([
      "--json",
      "breaches",
      "notify",
      breach.breachId,
      "--org",
      "shop",
      "--consequences",
      "Spam",
      "--safety-measures",
      "Be wary",
      "--contact",
      "dpo@shop.example",
    ]);
    assert.equal(told.code, 0, told.stderr);
    const result = told.json<{ notified: number; breach: Breach }>();
    assert.equal(result.notified, 2);
    assert.equal(result.breach.status, "reported_board_pending");
    assert.ok(result.breach.reportedToUserAt !== null);

    const real = await cli.run(["--json", "breaches", "list", "--org", "shop", "--no-drill"]);
    assert.equal(real.code, 0, real.stderr);
    assert.deepEqual(
      real.json<{ breaches: Breach[] }>().breaches.map((b) => b.breachId),
      [breach.breachId],
    );
    const drills = await cli.run(["--json", "breaches", "list", "--org", "shop", "--drill"]);
    assert.deepEqual(
      drills.json<{ breaches: Breach[] }>().breaches.map((b) => b.drill),
      [true],
    );
    const shown = await cli.run(["--json", "breaches", "show", breach.breachId, "--org", "shop"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(shown.json<Breach>().affectedPrincipals, { total: 2, notified: 2, pending: 0 });
    const missing = await cli.run(["breaches", "show", "brc_00000000000000000000", "--org", "shop"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /NOT_FOUND/);

    const swept = await cli.run(["--json", "breaches", "sweep-clocks"]);
    assert.equal(swept.code, 0, swept.stderr);
    assert.deepEqual(Object.keys(swept.json()).sort(), ["dueSoon", "overdue"]);

    const verify = await cli.run(["--json", "audit", "verify", "--org", "shop"]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.json<{ intact: boolean }>().intact, true);

    await withDb((db) =>
      db.query("UPDATE breaches SET reported_to_board_at = reported_to_board_at + 1 WHERE breach_id = $1", [
        breach.breachId,
      ]),
    );
    const broken = await cli.run(["--json", "audit", "verify", "--org", "shop"]);
    assert.equal(broken.code, 1);
    const report = broken.json<{
      intact: boolean;
      problems: { table: string; recordId: string; reason: string }[];
    }>();
    assert.equal(report.intact, false);
    assert.ok(
      report.problems.some(
        (p) =>
          p.table === "breaches" && p.recordId === breach.breachId && /reported_to_board_at/.test(p.reason),
      ),
      JSON.stringify(report.problems),
    );
  });
});
