// `guard notice publish` refuses a notice that lacks a DPDP Rule 3 text in any language, naming
// the field, and publishes nothing.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { DEMO_NOTICE } from "../../src/demo/seed.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

let cli: CliEnvironment;
before(async () => {
  cli = await createCliEnvironment({ inProcess: true });
  const created = await cli.run(["--json", "org", "create", "--slug", "acme", "--name", "Acme"]);
  assert.equal(created.code, 0, created.stderr);
});
after(() => cli.dispose());

test("notice publish needs withdrawal, rights and complaint in every language", async () => {
  const file = path.join(cli.dataDir, "notice.json");
  for (const field of ["withdrawal", "rights", "complaint"] as const) {
    const incomplete = structuredClone(DEMO_NOTICE);
    delete (incomplete.content.hi as Record<string, string>)[field];
    fs.writeFileSync(file, JSON.stringify(incomplete));
    const refused = await cli.run(["notice", "publish", "--org", "acme", "--file", file]);
    assert.equal(refused.code, 1, refused.stdout);
    assert.match(refused.stderr, new RegExp(`content\\.hi\\.${field}: is required to publish`));
  }
  fs.writeFileSync(file, JSON.stringify(DEMO_NOTICE));
  const published = await cli.run(["--json", "notice", "publish", "--org", "acme", "--file", file]);
  assert.equal(published.code, 0, published.stderr);
  assert.equal(published.json<{ version: number }>().version, 1, "the refused attempts published nothing");
});
