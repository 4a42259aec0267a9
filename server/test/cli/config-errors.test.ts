// A wrong setting or an unusable database is one line on stderr naming the setting and the fix,
// exit code 1, never a stack trace; a port in use is one line too, and does not spend the demo
// organisation's one-time credentials on a start that cannot listen.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { engine } from "../support/harness.js";

const GUARD_BIN = fileURLToPath(new URL("../../bin/guard.js", import.meta.url));
const SECRETS = {
  GUARD_TOKEN_SECRET: "config-test-token-secret-config-test-token",
  GUARD_AUDIT_HASH_KEYS: "1:config-test-audit-secret-config-test-audit",
  GUARD_SECRETS_KEY: "config-test-secrets-key-config-test-secrets",
};

const dataDirs: string[] = [];
function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-config-"));
  dataDirs.push(dir);
  return dir;
}

/** Runs `guard …` with exactly these settings (no DATABASE_URL unless given). */
function guard(args: string[], settings: Record<string, string>) {
  const env: NodeJS.ProcessEnv = { ...process.env, GUARD_LOG_LEVEL: "warn", ...settings };
  if (!("DATABASE_URL" in settings)) delete env.DATABASE_URL;
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [GUARD_BIN, ...args], { env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** Exit 1 and exactly one line on stderr, matching `pattern`, with no stack frame. */
function assertOneLine(result: { code: number; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 1, result.stderr);
  const lines = result.stderr.trimEnd().split("\n");
  assert.equal(lines.length, 1, `one line, got:\n${result.stderr}`);
  assert.match(lines[0]!, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
}

describe("configuration and database errors", () => {
  after(() => {
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  test("a DATABASE_URL that is not a URL, or not PostgreSQL's, names the setting", async () => {
    assertOneLine(
      await guard(["migrate"], { ...SECRETS, DATABASE_URL: "not-a-url" }),
      /^guard: DATABASE_URL is not a URL; set it like postgres:\/\//,
    );
    assertOneLine(
      await guard(["migrate"], { ...SECRETS, DATABASE_URL: "mysql://guard:secret@db.example.com/guard" }),
      /^guard: DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL \(it is mysql:\/\/…\)/,
    );
  });

  test("a server nothing answers at, or a host that does not resolve, is one line without the password", async () => {
    const refused = await guard(["migrate"], {
      ...SECRETS,
      DATABASE_URL: "postgres://guard:hunter2-secret@127.0.0.1:1/guard",
    });
    assertOneLine(
      refused,
      /^guard: DATABASE_URL: nothing accepts connections at 127\.0\.0\.1:1; is PostgreSQL running/,
    );
    assert.doesNotMatch(refused.stderr, /hunter2/);
    assertOneLine(
      await guard(["org", "create", "--slug", "acme", "--name", "Acme"], {
        ...SECRETS,
        DATABASE_URL: "postgres://guard@no-such-host.invalid/guard",
      }),
      /^guard: DATABASE_URL: the host "no-such-host\.invalid" cannot be resolved/,
    );
  });

  test("missing shared secrets with DATABASE_URL name every one of them", async () => {
    assertOneLine(
      await guard(["migrate"], { DATABASE_URL: "postgres://guard@127.0.0.1:1/guard" }),
      /GUARD_TOKEN_SECRET .*GUARD_AUDIT_HASH_KEYS .*GUARD_SECRETS_KEY/,
    );
    assertOneLine(
      await guard(["migrate"], { GUARD_LOG_LEVEL: "loud", GUARD_DATA_DIR: freshDataDir() }),
      /^guard: GUARD_LOG_LEVEL must be one of/,
    );
  });

  test(
    "a user the server does not know, or a database that does not exist, says which",
    { skip: engine !== "postgres" && "needs the PostgreSQL test cluster" },
    async () => {
      const admin = new URL(process.env.GUARD_TEST_DATABASE_URL!);
      const unknownUser = new URL(admin);
      unknownUser.username = "nobody_here";
      assertOneLine(
        await guard(["migrate"], { ...SECRETS, DATABASE_URL: unknownUser.toString() }),
        /^guard: DATABASE_URL: PostgreSQL at .* refused user "nobody_here"; check the user name and password/,
      );
      const unknownDatabase = new URL(admin);
      unknownDatabase.pathname = "/no_such_database";
      assertOneLine(
        await guard(["migrate"], { ...SECRETS, DATABASE_URL: unknownDatabase.toString() }),
        /^guard: DATABASE_URL: the database "no_such_database" does not exist on .*; create it \(createdb no_such_database\)/,
      );
    },
  );

  test("a port in use is one line, and the demo's credentials wait for a start that listens", async () => {
    const squatter = net.createServer();
    await new Promise<void>((resolve) => squatter.listen(0, "127.0.0.1", resolve));
    const { port } = squatter.address() as net.AddressInfo;
    const dataDir = freshDataDir();
    // An existing database, so the start has no progress lines to print before it tries to listen.
    assert.equal((await guard(["migrate"], { GUARD_DATA_DIR: dataDir })).code, 0);
    try {
      assertOneLine(
        await guard(["serve", "--seed-demo", "--port", String(port)], { GUARD_DATA_DIR: dataDir }),
        new RegExp(`^guard: 127\\.0\\.0\\.1:${port} is in use by another program: .*--port <n>`),
      );
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
    // Nothing was seeded: listing organisations through the CLI finds no demo organisation.
    const org = await guard(["org", "settings", "--org", "demo"], { GUARD_DATA_DIR: dataDir });
    assert.equal(org.code, 1);
    assert.match(org.stderr, /No organisation has the slug "demo"/);
  });
});
