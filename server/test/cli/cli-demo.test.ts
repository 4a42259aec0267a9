// `guard demo reset-credentials` end to end: without a demo organisation it says to start Guard
// first; with one it sets a new admin password (the old one and its sessions stop working) and makes
// a new service key, printed once (JSON with --json, the first start's lines without).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment, type RunningCli } from "../support/cli-helpers.js";

interface Credentials {
  organizationId: string;
  adminEmail: string;
  adminPassword: string;
  apiKeyId: string;
  apiKey: string;
}

const signIn = (server: RunningCli, password: string) =>
  fetch(`${server.url}/api/v1/staff/session`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ organizationSlug: "demo", email: "admin@demo.example", password }),
  });

const broker = (server: RunningCli, key: string) =>
  fetch(`${server.url}/api/v1/auth/broker-token`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ externalId: "user-1" }),
  }).then((r) => r.status);

describe("guard demo reset-credentials", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment();
  });
  after(() => cli.dispose());

  test("without a demo organisation: exit 1, saying to start Guard first", async () => {
    const res = await cli.run(["demo", "reset-credentials"]);
    assert.equal(res.code, 1);
    assert.match(res.stderr, /no demo organisation .*`npm start`/);
    assert.equal(res.stdout, "");
  });

  test("new password and key, printed once; the old password and its sessions stop working", async () => {
    let server = await cli.serve(["--seed-demo"]);
    const first = server.ready.demo!;
    let oldCookie: string;
    try {
      const session = await signIn(server, first.adminPassword!);
      assert.equal(session.status, 201);
      oldCookie = session.headers.getSetCookie()[0]!.split(";")[0]!;
    } finally {
      await server.stop();
    }

    const reset = await cli.run(["--json", "demo", "reset-credentials"]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.equal(reset.stdout.trim().split("\n").length, 1, "--json prints one line");
    assert.equal(reset.stderr, "", "--json prints no notes");
    const fresh = reset.json<Credentials>();
    assert.equal(fresh.adminEmail, "admin@demo.example");
    assert.match(fresh.apiKey, /^gk_live_/);
    assert.match(fresh.apiKeyId, /^key_/);
    assert.notEqual(fresh.adminPassword, first.adminPassword);
    assert.ok(fresh.adminPassword.length >= 12);

    const human = await cli.run(["demo", "reset-credentials"]);
    assert.equal(human.code, 0, human.stderr);
    assert.equal(human.stdout, "", "the secrets are printed once, as the first start prints them");
    const password = /staff admin: +admin@demo\.example \/ (\S+)/.exec(human.stderr)?.[1];
    const key = /service key: +(gk_live_\S+)/.exec(human.stderr)?.[1];
    assert.ok(password && key, human.stderr);
    assert.match(human.stderr, /shown once and stored only as hashes/);
    assert.match(human.stderr, /guard keys revoke/);

    server = await cli.serve(["--seed-demo"]);
    try {
      assert.equal(server.ready.demo, null, "the demo organisation is not seeded again");
      assert.equal((await signIn(server, first.adminPassword!)).status, 401, "the first password is gone");
      assert.equal((await signIn(server, fresh.adminPassword)).status, 401, "so is the one reset after it");
      assert.equal((await signIn(server, password)).status, 201, "the latest password signs in");
      const oldSession = await fetch(`${server.url}/api/v1/staff/api-keys`, {
        headers: { cookie: oldCookie },
      });
      assert.equal(oldSession.status, 401, "the session opened with the old password is ended");

      assert.equal(await broker(server, key), 201, "the new key works");
      assert.equal(await broker(server, fresh.apiKey), 201);
      assert.equal(await broker(server, first.apiKey!), 201, "earlier keys are left as they are");
    } finally {
      await server.stop();
    }

    const keys = await cli.run(["--json", "keys", "list", "--org", "demo"]);
    const names = keys.json<{ apiKeys: { name: string }[] }>().apiKeys.map((k) => k.name);
    assert.deepEqual(names, ["demo backend", "demo backend", "demo backend"]);
  });
});
