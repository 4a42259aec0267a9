// `guard retention …` end to end (real processes, real database): policies from a preset, changed
// and archived; a legal hold placed and released; the sweep; the same validation messages and exit
// codes as elsewhere in the CLI.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

type Policy = {
  policyId: string;
  durationDays: number;
  noticeHours: number;
  preset: string | null;
  archivedAt: number | null;
};

describe("guard retention", () => {
  let cli: CliEnvironment;

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    assert.equal((await cli.run(["org", "create", "--slug", "keep", "--name", "Keep Co"])).code, 0);
  });
  after(() => cli.dispose());

  test("policies, presets, holds, erasures and the sweep", async () => {
    const presets = await cli.run(["--json", "retention", "presets"]);
    assert.equal(presets.code, 0, presets.stderr);
    assert.equal(presets.json<{ presets: unknown[] }>().presets.length, 3);

    const created = await cli.run([
      "--json",
      "retention",
      "policies",
      "create",
      "--org",
      "keep",
      "--preset",
      "social_media",
      "--purpose",
      "Account",
    ]);
    assert.equal(created.code, 0, created.stderr);
    const policy = created.json<Policy>();
    assert.equal(policy.durationDays, 1096);
    assert.equal(policy.preset, "social_media");

    const tooShort = await cli.run([
      "retention",
      "policies",
      "update",
      policy.policyId,
      "--org",
      "keep",
      "--notice-hours",
      "24",
    ]);
    assert.equal(tooShort.code, 1);
    assert.match(tooShort.stderr, /noticeHours must be an integer from 48/);
    const badAnchor = await cli.run(["retention", "policies", "create", "--org", "keep", "--anchor", "soon"]);
    assert.equal(badAnchor.code, 2);

    const updated = await cli.run([
      "--json",
      "retention",
      "policies",
      "update",
      policy.policyId,
      "--org",
      "keep",
      "--notice-hours",
      "96",
    ]);
    assert.equal(updated.code, 0, updated.stderr);
    assert.equal(updated.json<Policy>().noticeHours, 96);

    const hold = await cli.run([
      "--json",
      "retention",
      "holds",
      "place",
      "--org",
      "keep",
      "--policy",
      policy.policyId,
      "--statute",
      "Income-tax Act, 1961",
      "--citation",
      "Section 44AA",
    ]);
    assert.equal(hold.code, 0, hold.stderr);
    const { holdId } = hold.json<{ holdId: string }>();
    const active = await cli.run([
      "--json",
      "retention",
      "holds",
      "list",
      "--org",
      "keep",
      "--status",
      "active",
    ]);
    assert.deepEqual(
      active.json<{ holds: { holdId: string }[] }>().holds.map((h) => h.holdId),
      [holdId],
    );
    const released = await cli.run([
      "--json",
      "retention",
      "holds",
      "release",
      holdId,
      "--org",
      "keep",
      "--reason",
      "Assessment done",
    ]);
    assert.equal(released.code, 0, released.stderr);
    const twice = await cli.run([
      "retention",
      "holds",
      "release",
      holdId,
      "--org",
      "keep",
      "--reason",
      "again",
    ]);
    assert.equal(twice.code, 1);
    assert.match(twice.stderr, /already released/);

    const swept = await cli.run(["--json", "retention", "sweep"]);
    assert.equal(swept.code, 0, swept.stderr);
    assert.deepEqual(swept.json(), { scheduled: 0, notified: 0, cancelled: 0, examined: 0 });
    const erasures = await cli.run(["--json", "retention", "erasures", "list", "--org", "keep"]);
    assert.deepEqual(erasures.json(), { erasures: [] });
    const cancelUnknown = await cli.run([
      "retention",
      "erasures",
      "cancel",
      "rse_00000000000000000000",
      "--org",
      "keep",
      "--reason",
      "dispute",
    ]);
    assert.equal(cancelUnknown.code, 1);
    assert.match(cancelUnknown.stderr, /No scheduled erasure rse_00000000000000000000/);
    const cancelNoReason = await cli.run([
      "retention",
      "erasures",
      "cancel",
      "rse_00000000000000000000",
      "--org",
      "keep",
    ]);
    assert.equal(cancelNoReason.code, 2);
    const cancelBlank = await cli.run([
      "retention",
      "erasures",
      "cancel",
      "rse_00000000000000000000",
      "--org",
      "keep",
      "--reason",
      "  ",
    ]);
    assert.equal(cancelBlank.code, 1);
    assert.match(cancelBlank.stderr, /reason must be 1-500 characters/);

    const archived = await cli.run([
      "--json",
      "retention",
      "policies",
      "archive",
      policy.policyId,
      "--org",
      "keep",
    ]);
    assert.notEqual(archived.json<Policy>().archivedAt, null);
    const listed = await cli.run(["--json", "retention", "policies", "list", "--org", "keep"]);
    assert.deepEqual(listed.json(), { policies: [] });
    const withArchived = await cli.run(["--json", "retention", "policies", "list", "--org", "keep", "--all"]);
    assert.equal(withArchived.json<{ policies: unknown[] }>().policies.length, 1);

    const verify = await cli.run(["--json", "audit", "verify", "--org", "keep"]);
    assert.equal(verify.code, 0, verify.stdout + verify.stderr);
  });
});
