// The `guard` CLI end to end: real processes, real database (PGlite data directory, or a fresh
// PostgreSQL database), JSON output, exit codes and messages for bad input.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { DEMO_NOTICE } from "../../src/demo/seed.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

describe("guard CLI", () => {
  let cli: CliEnvironment;
  // An empty snapshot directory: this data directory is created the slow way, by initdb and every
  // migration (a later fresh one would start from the snapshot it leaves; cli/progress.test.ts).
  const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-snapshot-"));
  before(async () => {
    cli = await createCliEnvironment();
    cli.env.GUARD_SNAPSHOT_DIR = snapshotDir;
  });
  after(async () => {
    await cli.dispose();
    fs.rmSync(snapshotDir, { recursive: true, force: true });
  });

  test("migrate applies every migration once", async () => {
    const first = await cli.run(["--json", "migrate"]);
    assert.equal(first.code, 0, first.stderr);
    const { applied } = first.json<{ applied: string[] }>();
    assert.ok(applied.includes("0001_accounts"), `a fresh database gets every migration: ${first.stdout}`);
    const second = await cli.run(["--json", "migrate"]);
    assert.deepEqual(second.json(), { applied: [] });
  });

  test("org create prints the organisation; a taken slug or a bad slug fails clearly", async () => {
    const created = await cli.run(["--json", "org", "create", "--slug", "acme", "--name", "Acme Health"]);
    assert.equal(created.code, 0, created.stderr);
    const org = created.json<{ organizationId: string; slug: string; name: string }>();
    assert.match(org.organizationId, /^org_/);
    assert.equal(org.slug, "acme");

    const again = await cli.run(["org", "create", "--slug", "acme", "--name", "Other"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /slug "acme" already exists/);

    const bad = await cli.run(["org", "create", "--slug", "Not A Slug", "--name", "X"]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /slug/);

    const missing = await cli.run(["org", "create", "--slug", "x"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--name/);
  });

  test("staff create reads the password from stdin and validates role and password", async () => {
    const ok = await cli.run(
      ["--json", "staff", "create", "--org", "acme", "--email", "DPO@Acme.example", "--role", "dpo"],
      {
        stdin: "correct horse battery\n",
      },
    );
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual(Object.keys(ok.json()).sort(), ["email", "role", "staffId"]);
    assert.equal(ok.json().email, "dpo@acme.example");

    const shortPassword = await cli.run(
      ["staff", "create", "--org", "acme", "--email", "v@acme.example", "--role", "viewer"],
      {
        stdin: "short",
      },
    );
    assert.equal(shortPassword.code, 1);
    assert.match(shortPassword.stderr, /password/);

    const badRole = await cli.run([
      "staff",
      "create",
      "--org",
      "acme",
      "--email",
      "v@acme.example",
      "--role",
      "owner",
    ]);
    assert.equal(badRole.code, 2);
    assert.match(badRole.stderr, /admin, dpo, viewer/);

    const unknownOrg = await cli.run(
      ["staff", "create", "--org", "nope", "--email", "v@x.example", "--role", "viewer"],
      {
        stdin: "long enough password",
      },
    );
    assert.equal(unknownOrg.code, 1);
    assert.match(unknownOrg.stderr, /No organisation has the slug "nope"/);
  });

  test("keys create prints {apiKeyId, key} once, and notice publish versions changed content", async () => {
    const key = await cli.run(["--json", "keys", "create", "--org", "acme", "--name", "backend"]);
    assert.equal(key.code, 0, key.stderr);
    const { apiKeyId, key: secret } = key.json<{ apiKeyId: string; key: string }>();
    assert.match(apiKeyId, /^key_/);
    assert.match(secret, /^gk_live_[0-9A-Za-z]{40}$/);

    const file = path.join(cli.dataDir, "notice.json");
    fs.writeFileSync(file, JSON.stringify(DEMO_NOTICE));
    const first = await cli.run(["--json", "notice", "publish", "--org", "acme", "--file", file]);
    assert.equal(first.code, 0, first.stderr);
    const v1 = first.json<{ noticeId: string; version: number }>();
    assert.equal(v1.version, 1);

    const unchanged = await cli.run(["--json", "notice", "publish", "--org", "acme", "--file", file]);
    assert.deepEqual(unchanged.json(), v1);

    const changed = structuredClone(DEMO_NOTICE);
    changed.content.en.title = "How we use your data (updated)";
    fs.writeFileSync(file, JSON.stringify(changed));
    const second = await cli.run(["--json", "notice", "publish", "--org", "acme", "--file", file]);
    assert.deepEqual(second.json(), { noticeId: v1.noticeId, version: 2 });

    fs.writeFileSync(file, JSON.stringify({ itemized: [], content: {} }));
    const invalid = await cli.run(["notice", "publish", "--org", "acme", "--file", file]);
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /itemized/);

    fs.writeFileSync(file, "{not json");
    const garbled = await cli.run(["notice", "publish", "--org", "acme", "--file", file]);
    assert.equal(garbled.code, 1);
    assert.match(garbled.stderr, /as JSON/);
  });

  test("serve: data written survives a restart; the CLI's key works against the server", async () => {
    const key = (await cli.run(["--json", "keys", "create", "--org", "acme", "--name", "restart"])).json<{
      key: string;
    }>();
    let server = await cli.serve();
    const brokered = await fetch(`${server.url}/api/v1/auth/broker-token`, {
      method: "POST",
      headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
      body: JSON.stringify({ externalId: "user-42" }),
    });
    assert.equal(brokered.status, 201);
    const signIn = await fetch(`${server.url}/api/v1/staff/session`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        organizationSlug: "acme",
        email: "dpo@acme.example",
        password: "correct horse battery",
      }),
    });
    assert.equal(signIn.status, 201);
    const cookie = signIn.headers.getSetCookie()[0]!.split(";")[0]!;
    const { csrfToken } = (await signIn.json()) as { csrfToken: string };
    const created = await fetch(`${server.url}/api/v1/staff/api-keys`, {
      method: "POST",
      headers: { cookie, "x-csrf-token": csrfToken, "content-type": "application/json" },
      body: JSON.stringify({ name: "made over HTTP" }),
    });
    assert.equal(created.status, 201);
    assert.equal(await server.stop(), 0);

    server = await cli.serve();
    try {
      const keys = await fetch(`${server.url}/api/v1/staff/api-keys`, { headers: { cookie } });
      assert.equal(keys.status, 200, "the session written before the restart is still valid");
      const names = ((await keys.json()) as { apiKeys: { name: string }[] }).apiKeys.map((k) => k.name);
      assert.ok(names.includes("made over HTTP"));
      assert.ok(names.includes("restart"));
      const org = await fetch(`${server.url}/api/v1/org/acme`);
      assert.equal(org.status, 200);
    } finally {
      await server.stop();
    }
  });

  test("serve --seed-demo creates the demo organisation once and prints its one-time secrets", async () => {
    const server = await cli.serve(["--seed-demo"]);
    try {
      const resultLine = server
        .output()
        .split("\n")
        .find((l) => l.startsWith('{"url"'))!;
      const { demo } = JSON.parse(resultLine) as { demo: { adminPassword: string; apiKey: string } | null };
      assert.ok(demo, "first start seeds");
      assert.match(demo.apiKey, /^gk_live_/);
      const org = (await (await fetch(`${server.url}/api/v1/org/demo`)).json()) as { orgId: string };
      const notices = (await (await fetch(`${server.url}/api/v1/org/${org.orgId}/notices`)).json()) as {
        notices: { languages: string[] }[];
      };
      assert.deepEqual(notices.notices[0]!.languages, ["en", "hi"]);
    } finally {
      await server.stop();
    }
    const again = await cli.serve(["--seed-demo"]);
    try {
      const resultLine = again
        .output()
        .split("\n")
        .find((l) => l.startsWith('{"url"'))!;
      assert.equal(JSON.parse(resultLine).demo, null, "second start does not seed again");
    } finally {
      await again.stop();
    }
  });
});
