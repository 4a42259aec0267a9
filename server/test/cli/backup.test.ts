// guard backup / guard restore for the embedded database, end to end (real processes): a backup of
// an organisation with a consent and a webhook endpoint, restored into a new directory, still holds
// them, its audit chain verifies with the restored keys, and its sealed webhook secret still opens.
// On PostgreSQL only the refusal is tested: pg_dump / pg_restore are the tools there.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { openDatabase } from "../../src/db/database.js";
import { SecretBox } from "../../src/lib/secret-box.js";
import { secretBinding } from "../../src/webhooks/endpoints.js";
import { createCliEnvironment, type CliEnvironment, type RunningCli } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

const skipEmbedded =
  engine === "postgres" ? "embedded database only (PostgreSQL uses pg_dump / pg_restore)" : false;

const mode = (file: string): number => fs.statSync(file).mode & 0o777;

const GUARD_BIN = fileURLToPath(new URL("../../bin/guard.js", import.meta.url));

function runGuard(args: string[], env: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [GUARD_BIN, ...args],
      { env: { ...process.env, ...env } },
      (error, _out, stderr) => resolve({ code: error ? Number(error.code) : 0, stderr }),
    );
  });
}

async function recordConsent(server: RunningCli): Promise<string> {
  const key = server.ready.demo!.apiKey!;
  const auth = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" };
  const org = (await (await fetch(`${server.url}/api/v1/org/demo`)).json()) as { orgId: string };
  const notices = (await (await fetch(`${server.url}/api/v1/org/${org.orgId}/notices`)).json()) as {
    notices: Array<{ noticeId: string }>;
  };
  const token = await fetch(`${server.url}/api/v1/auth/broker-token`, {
    method: "POST",
    headers: auth,
    body: JSON.stringify({ externalId: "user-42", email: "asha@example.com" }),
  });
  assert.equal(token.status, 201, await token.text());
  const consent = await fetch(`${server.url}/cm/v1/consent`, {
    method: "POST",
    headers: { ...auth, "Idempotency-Key": randomUUID() },
    body: JSON.stringify({
      email: "asha@example.com",
      noticeId: notices.notices[0]!.noticeId,
      purpose: "Marketing",
      dataTypes: ["email"],
    }),
  });
  const body = (await consent.json()) as { consentId: string };
  assert.ok(consent.status === 200 || consent.status === 201, JSON.stringify(body));
  return body.consentId;
}

async function verifyConsent(server: RunningCli, apiKey: string, consentId: string): Promise<string> {
  const res = await fetch(`${server.url}/api/v1/consent/verify`, {
    method: "POST",
    headers: { Authorization: `Bearer ${apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ consentId }),
  });
  assert.equal(res.status, 200);
  return ((await res.json()) as { decision: string }).decision;
}

describe("guard backup / restore refuse with DATABASE_URL", () => {
  test("one line pointing to pg_dump / pg_restore, exit 1", async () => {
    const cli = await createCliEnvironment();
    try {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-backup-pg-"));
      // Any PostgreSQL URL: the commands refuse before connecting.
      const url = cli.env.DATABASE_URL ?? "postgres://guard@127.0.0.1:1/guard";
      for (const [verb, tool] of [
        ["backup", /pg_dump/],
        ["restore", /pg_restore/],
      ] as const) {
        // cli.run drops DATABASE_URL on the embedded engine, so this one runs with its own environment.
        const res = await runGuard([verb, path.join(dir, "b.tgz")], {
          ...cli.env,
          DATABASE_URL: url,
          GUARD_TOKEN_SECRET: "cli-test-token-secret-cli-test-token-secret",
          GUARD_AUDIT_HASH_KEYS: "1:cli-test-audit-secret-cli-test-audit-secret",
          GUARD_SECRETS_KEY: "cli-test-secrets-key-cli-test-secrets-key",
        });
        assert.equal(res.code, 1, res.stderr);
        assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
        assert.match(res.stderr, tool);
        assert.match(res.stderr, /embedded database/);
      }
      assert.deepEqual(fs.readdirSync(dir), [], "nothing written");
      fs.rmSync(dir, { recursive: true, force: true });
    } finally {
      await cli.dispose();
    }
  });
});

describe("guard backup / restore on the embedded database", { skip: skipEmbedded }, () => {
  let cli: CliEnvironment;
  let work: string;
  let backupFile: string;
  let consentId: string;
  let apiKey: string;
  let orgId: string;
  let endpoint: { endpointId: string; secret: string };
  let restoredDir: string;

  before(async () => {
    cli = await createCliEnvironment();
    work = fs.mkdtempSync(path.join(os.tmpdir(), "guard-backup-"));
    backupFile = path.join(work, "guard.tgz");
    restoredDir = path.join(work, "restored");
    const server = await cli.serve(["--seed-demo"]);
    try {
      apiKey = server.ready.demo!.apiKey!;
      consentId = await recordConsent(server);
    } finally {
      await server.stop();
    }
    const hook = await cli.run([
      "--json",
      "webhooks",
      "create",
      "--org",
      "demo",
      "--url",
      "http://127.0.0.1:9/hook",
      "--events",
      "consent.withdrawn",
    ]);
    assert.equal(hook.code, 0, hook.stderr);
    endpoint = hook.json();
    const created = await cli.run(["--json", "org", "create", "--slug", "acme", "--name", "Acme"]);
    assert.equal(created.code, 0, created.stderr);
  });

  after(async () => {
    await cli?.dispose();
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  test("backup writes the snapshot and the secrets manifest, both 0600, and says what it wrote", async () => {
    const res = await cli.run(["--json", "backup", backupFile]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout.trim().split("\n").length, 1, "--json prints one line");
    assert.equal(res.stderr, "", "--json prints no notes");
    const out = res.json<{ file: string; bytes: number; migration: string; organizations: number }>();
    assert.equal(out.file, backupFile);
    assert.equal(out.bytes, fs.statSync(backupFile).size);
    assert.match(out.migration, /^\d{4}_/);
    assert.equal(out.organizations, 2);
    assert.equal(mode(backupFile), 0o600);
    assert.equal(mode(`${backupFile}.secrets.json`), 0o600);
    // The snapshot is a standard gzip (magic 1f 8b); the manifest carries the data directory's secrets.
    assert.deepEqual([...fs.readFileSync(backupFile).subarray(0, 2)], [0x1f, 0x8b]);
    const manifest = JSON.parse(fs.readFileSync(`${backupFile}.secrets.json`, "utf8")) as {
      secrets: unknown;
    };
    assert.deepEqual(
      manifest.secrets,
      JSON.parse(fs.readFileSync(path.join(cli.dataDir, "secrets.json"), "utf8")),
    );

    const again = await cli.run(["backup", backupFile]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already exists/);
  });

  test("restore recreates the directory: organisations, consent, intact audit chains, working secrets", async () => {
    const res = await cli.run(["--json", "--data-dir", restoredDir, "restore", backupFile]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(res.stdout.trim().split("\n").length, 1);
    const out = res.json<{
      organizations: number;
      auditIntact: boolean;
      audit: Array<{ entries: number }>;
    }>();
    assert.equal(out.organizations, 2);
    assert.equal(out.auditIntact, true);
    assert.ok(
      out.audit.some((r) => r.entries > 0),
      "the consent's audit entries came along",
    );
    assert.equal(mode(restoredDir), 0o700);
    assert.equal(mode(path.join(restoredDir, "secrets.json")), 0o600);
    assert.deepEqual(
      JSON.parse(fs.readFileSync(path.join(restoredDir, "secrets.json"), "utf8")),
      JSON.parse(fs.readFileSync(path.join(cli.dataDir, "secrets.json"), "utf8")),
    );

    const orgs = await cli.run(["--json", "--data-dir", restoredDir, "org", "list"]);
    assert.equal(orgs.code, 0, orgs.stderr);
    const slugs = orgs.json<{ organizations: Array<{ slug: string; organizationId: string }> }>()
      .organizations;
    assert.deepEqual(slugs.map((o) => o.slug).sort(), ["acme", "demo"]);
    orgId = slugs.find((o) => o.slug === "demo")!.organizationId;

    const verify = await cli.run(["--json", "--data-dir", restoredDir, "audit", "verify", "--all"]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.json<{ intact: boolean }>().intact, true);

    const hooks = await cli.run(["--json", "--data-dir", restoredDir, "webhooks", "list", "--org", "demo"]);
    assert.equal(hooks.code, 0, hooks.stderr);
    assert.deepEqual(
      hooks.json<{ endpoints: Array<{ endpointId: string }> }>().endpoints.map((e) => e.endpointId),
      [endpoint.endpointId],
    );
    // The webhook secret sealed before the backup opens with the restored secrets key.
    const secrets = JSON.parse(fs.readFileSync(path.join(restoredDir, "secrets.json"), "utf8")) as {
      secretsKey: string;
    };
    const db = await openDatabase({ dataDir: restoredDir });
    try {
      const [row] = await db.query<{ secret_ciphertext: string }>(
        "SELECT secret_ciphertext FROM webhook_endpoints WHERE endpoint_id = $1",
        [endpoint.endpointId],
      );
      assert.equal(
        new SecretBox(secrets.secretsKey).open(
          row!.secret_ciphertext,
          secretBinding(orgId, endpoint.endpointId),
        ),
        endpoint.secret,
      );
    } finally {
      await db.close();
    }

    // A server on the restored directory answers for the consent recorded before the backup.
    const server = await cli.serve(["--data-dir", restoredDir]);
    try {
      assert.equal(await verifyConsent(server, apiKey, consentId), "allow");
    } finally {
      await server.stop();
    }
  });

  test("restore refuses a non-empty directory, and an unreadable or corrupt backup, in one line", async () => {
    const refused = await cli.run(["--data-dir", restoredDir, "restore", backupFile]);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr.trim().split("\n").length, 1, refused.stderr);
    assert.match(refused.stderr, /not empty.*move this one aside/);

    const corrupt = path.join(work, "corrupt.tgz");
    const bytes = fs.readFileSync(backupFile);
    bytes[bytes.length >> 1]! ^= 0xff;
    fs.writeFileSync(corrupt, bytes);
    fs.copyFileSync(`${backupFile}.secrets.json`, `${corrupt}.secrets.json`);
    const garbage = path.join(work, "garbage.tgz");
    fs.writeFileSync(garbage, "not a backup");
    for (const [file, reason] of [
      [corrupt, /corrupt/],
      [garbage, /cannot read .*garbage\.tgz\.secrets\.json/],
      [path.join(work, "absent.tgz"), /cannot read the backup/],
    ] as const) {
      const target = path.join(work, `fresh-${path.basename(file)}`);
      const res = await cli.run(["--data-dir", target, "restore", file]);
      assert.equal(res.code, 1, res.stderr);
      assert.equal(res.stderr.trim().split("\n").length, 1, res.stderr);
      assert.match(res.stderr, reason);
      assert.equal(fs.existsSync(target), false, "nothing left behind");
    }
  });
});
