// `guard logs policy …` and `guard logs purge` as real processes on a real database (logs dated
// 500 days back), then `guard audit verify`: it passes after the purge, and still names the
// tampering done afterwards.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { AuditVerification } from "../../src/audit/verify.js";
import { loadConfig, type Config } from "../../src/config.js";
import type { Database } from "../../src/db/database.js";
import { ManualClock } from "../../src/lib/clock.js";
import type { LogPurgeReport } from "../../src/log-retention/purge.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { DAY, history, type History } from "./fixtures.js";

describe("guard logs", () => {
  let cli: CliEnvironment;
  let config: Config;
  let h: History;

  const withDb = <T>(work: (db: Database) => Promise<T>): Promise<T> => cli.withDatabase(work);

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const migrated = await cli.run(["--json", "migrate"]);
    assert.equal(migrated.code, 0, migrated.stderr);
    config = loadConfig(cli.env);
    // The history's day 0 is 500 days ago, its last entry 300 days ago.
    h = await withDb((db) => history(db, new ManualClock(Date.now() - 500 * DAY), config.auditKeys, "acme"));
  });
  after(() => cli.dispose());

  test("policy set refuses less than a year naming the class, and show prints the policy", async () => {
    const short = await cli.run(["logs", "policy", "set", "--org", "acme", "--audit-entries", "364"]);
    assert.equal(short.code, 1);
    assert.match(short.stderr, /VALIDATION_ERROR: .*at least 365 days.*\(auditEntries\)/);
    const none = await cli.run(["logs", "policy", "set", "--org", "acme"]);
    assert.equal(none.code, 2);
    const shown = await cli.run(["--json", "logs", "policy", "show", "--org", "acme"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.equal(shown.json<Record<string, { retainDays: number | null }>>().auditEntries!.retainDays, null);
    const set = await cli.run([
      "--json",
      "logs",
      "policy",
      "set",
      "--org",
      "acme",
      "--audit-entries",
      "365",
      "--webhook-deliveries",
      "forever",
    ]);
    assert.equal(set.code, 0, set.stderr);
    const policy = set.json<Record<string, { retainDays: number | null; updatedBy: string | null }>>();
    assert.equal(policy.auditEntries!.retainDays, 365);
    assert.equal(policy.webhookDeliveries!.retainDays, null);
    assert.match(policy.auditEntries!.updatedBy!, /^cli:/);
  });

  test("purge --dry-run, purge, then audit verify passes; purge again is a no-op", async () => {
    const dry = await cli.run(["--json", "logs", "purge", "--org", "acme", "--dry-run"]);
    assert.equal(dry.code, 0, dry.stderr);
    const dryAudit = dry.json<LogPurgeReport>().classes.auditEntries as {
      status: string;
      throughSeq: number;
    };
    assert.deepEqual([dryAudit.status, dryAudit.throughSeq], ["purged", 3]);
    const dryHuman = await cli.run(["logs", "purge", "--org", "acme", "--dry-run"]);
    assert.match(dryHuman.stderr, /would purge entries 1\.\.3 \(3\)/);

    const purged = await cli.run(["logs", "purge", "--org", "acme"]);
    assert.equal(purged.code, 0, purged.stderr);
    assert.match(purged.stderr, /purged entries 1\.\.3 \(3\); entries from seq 4 are still needed/);

    const verified = await cli.run(["--json", "audit", "verify", "--org", "acme"]);
    assert.equal(verified.code, 0, verified.stderr);
    const report = verified.json<AuditVerification>();
    assert.equal(report.intact, true);
    assert.equal(report.fromSeq, 4);
    assert.equal(report.entries, 4);

    const again = await cli.run(["--json", "logs", "purge", "--all"]);
    assert.equal(again.code, 0, again.stderr);
    const [only] = again.json<{ organizations: LogPurgeReport[] }>().organizations;
    assert.equal(only!.organizationId, h.organizationId);
    assert.equal(only!.classes.auditEntries!.status, "nothing_to_purge");
  });

  test("tampering after the purge: audit verify exits 1 naming it", async () => {
    await withDb((db) =>
      db.query(
        "UPDATE audit_chain_checkpoints SET through_hash = repeat('c', 64) WHERE organization_id = $1",
        [h.organizationId],
      ),
    );
    const res = await cli.run(["audit", "verify", "--org", "acme"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /broken at seq 4 .*hash the purge checkpoint recorded/);
    // A broken chain is never purged.
    const purge = await cli.run(["logs", "purge", "--org", "acme"]);
    assert.equal(purge.code, 1);
    assert.match(purge.stderr, /does not verify/);
  });
});
