// `guard ropa list | show | add | update | archive | restore` end to end: real processes on a real
// database (PGlite data directory, or a fresh PostgreSQL database), JSON output, exit codes, the
// same rules and messages as the staff routes, and the CLI's changes on a chain that verifies.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import type { Activity } from "./fixtures.js";

describe("guard ropa", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    const org = await cli.run(["--json", "org", "create", "--slug", "shop", "--name", "Shop"]);
    assert.equal(org.code, 0, org.stderr);
  });
  after(() => cli.dispose());

  const add = (extra: string[] = []) =>
    cli.run([
      "--json",
      "ropa",
      "add",
      "--org",
      "shop",
      "--name",
      "Order fulfilment",
      "--purpose",
      "Delivery",
      "--data-categories",
      "name, address,phone",
      "--legal-basis",
      "consent",
      "--storage-location",
      "Mumbai",
      ...extra,
    ]);

  test("add, show, update, archive (twice), restore, list with filters; the chain verifies", async () => {
    const created = await add([
      "--crosses-border",
      "true",
      "--destinations",
      "SG,US",
      "--recipient",
      "processor:Cloud Co: Asia:SG",
      "--recipient",
      "joint_fiduciary:Partner",
      "--description",
      "Orders",
    ]);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.stdout.trim().split("\n").length, 1, "--json prints one line");
    const activity = created.json<Activity>();
    assert.match(activity.activityId, /^act_/);
    assert.deepEqual(activity.dataCategories, ["name", "address", "phone"]);
    assert.deepEqual(activity.destinationCountries, ["SG", "US"]);
    assert.deepEqual(activity.recipients, [
      { name: "Cloud Co: Asia", role: "processor", country: "SG" },
      { name: "Partner", role: "joint_fiduciary" },
    ]);
    assert.equal(activity.description, "Orders");

    const shown = await cli.run(["--json", "ropa", "show", activity.activityId, "--org", "shop"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(shown.json(), activity);
    const human = await cli.run(["ropa", "show", activity.activityId, "--org", "shop"]);
    assert.ok(human.stdout.split("\n").length > 3, "indented for people");

    const updated = await cli.run([
      "--json",
      "ropa",
      "update",
      activity.activityId,
      "--org",
      "shop",
      "--crosses-border",
      "false",
      "--clear-recipients",
      "--clear-description",
      "--legal-basis",
      "legal_obligation",
    ]);
    assert.equal(updated.code, 0, updated.stderr);
    const after = updated.json<Activity>();
    assert.equal(after.crossesBorder, false);
    assert.deepEqual(after.destinationCountries, []);
    assert.deepEqual(after.recipients, []);
    assert.equal(after.description, null);
    assert.equal(after.legalBasis, "legal_obligation");

    const crossing = (await add(["--crosses-border", "true", "--destinations", "DE"])).json<Activity>();
    const listed = (
      await cli.run(["--json", "ropa", "list", "--org", "shop", "--crosses-border", "true"])
    ).json<{ activities: Activity[] }>();
    assert.deepEqual(
      listed.activities.map((x) => x.activityId),
      [crossing.activityId],
    );

    for (let i = 0; i < 2; i++) {
      const archived = await cli.run(["--json", "ropa", "archive", crossing.activityId, "--org", "shop"]);
      assert.equal(archived.code, 0, archived.stderr);
      assert.equal(typeof archived.json<Activity>().archivedAt, "number");
    }
    const active = (await cli.run(["--json", "ropa", "list", "--org", "shop"])).json<{
      activities: Activity[];
    }>();
    assert.deepEqual(
      active.activities.map((x) => x.activityId),
      [activity.activityId],
    );
    const archivedList = (await cli.run(["--json", "ropa", "list", "--org", "shop", "--archived"])).json<{
      activities: Activity[];
    }>();
    assert.deepEqual(
      archivedList.activities.map((x) => x.activityId),
      [crossing.activityId],
    );
    const restored = await cli.run(["--json", "ropa", "restore", crossing.activityId, "--org", "shop"]);
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(restored.json<Activity>().archivedAt, null);

    const verify = await cli.run(["--json", "audit", "verify", "--org", "shop"]);
    assert.equal(verify.code, 0, verify.stderr);
    const report = verify.json<{ intact: boolean; entries: number; rowsChecked: Record<string, number> }>();
    assert.equal(report.intact, true);
    assert.equal(report.rowsChecked.processing_activities, 2);
    // add, update, add, archive (once: the second was a no-op), restore
    assert.ok(report.entries >= 5, `${report.entries}`);
  });

  test("refusals: the route's messages and fields (exit 1), bad options (exit 2), unknown ids", async () => {
    const noDestinations = await add(["--crosses-border", "true"]);
    assert.equal(noDestinations.code, 1);
    assert.match(noDestinations.stderr, /VALIDATION_ERROR: .*\(destinationCountries\)/);
    const badCountry = await add(["--crosses-border", "true", "--destinations", "US,XX"]);
    assert.equal(badCountry.code, 1);
    assert.match(badCountry.stderr, /ISO 3166-1.*\(destinationCountries\[1\]\)/);
    const abroad = await add(["--crosses-border", "false", "--recipient", "processor:Cloud:US"]);
    assert.equal(abroad.code, 1);
    assert.match(abroad.stderr, /\(recipients\[0\]\.country\)/);

    const badBasis = await add(["--crosses-border", "false", "--legal-basis", "contract"]);
    assert.equal(badBasis.code, 2);
    assert.match(badBasis.stderr, /consent, deemed_consent, legal_obligation, vital_interest, public_task/);
    const noFlag = await add();
    assert.equal(noFlag.code, 2);
    assert.match(noFlag.stderr, /--crosses-border/);
    const badRecipient = await add(["--crosses-border", "false", "--recipient", "Cloud"]);
    assert.equal(badRecipient.code, 2);

    const unknown = await cli.run(["ropa", "show", "act_00000000000000000000", "--org", "shop"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /NOT_FOUND/);
    const empty = await cli.run(["ropa", "update", "act_00000000000000000000", "--org", "shop"]);
    assert.equal(empty.code, 1);
    assert.match(empty.stderr, /NOT_FOUND/);
    const unknownOrg = await cli.run(["ropa", "list", "--org", "nope"]);
    assert.equal(unknownOrg.code, 1);
  });
});
