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
import { loadConfig } from "../../src/config.js";
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

  // One wrong value per setting server/src/config.ts reads; the last test checks none is missing.
  const WRONG_VALUES: [Record<string, string>, RegExp][] = [
    [{ PORT: "99999" }, /^guard: PORT must be an integer from 0 to 65535/],
    [{ GUARD_TOKEN_SECRET: "short" }, /^guard: GUARD_TOKEN_SECRET must be at least 32 characters/],
    [{ GUARD_AUDIT_HASH_KEYS: "garbage" }, /^guard: GUARD_AUDIT_HASH_KEYS looks like 1:<secret/],
    [{ GUARD_SECRETS_KEY: "short" }, /^guard: GUARD_SECRETS_KEY must be at least 32 characters/],
    [{ GUARD_TOKEN_TTL_MINUTES: "999" }, /^guard: GUARD_TOKEN_TTL_MINUTES must be an integer from 1 to 60/],
    [{ GUARD_SESSION_TTL_HOURS: "abc" }, /^guard: GUARD_SESSION_TTL_HOURS must be an integer/],
    [{ GUARD_COOKIE_SECURE: "maybe" }, /^guard: GUARD_COOKIE_SECURE must be true or false/],
    [{ GUARD_BODY_LIMIT_BYTES: "-1" }, /^guard: GUARD_BODY_LIMIT_BYTES must be an integer/],
    [{ GUARD_HEADERS_TIMEOUT_MS: "soon" }, /^guard: GUARD_HEADERS_TIMEOUT_MS must be an integer/],
    [{ GUARD_REQUEST_TIMEOUT_MS: "x" }, /^guard: GUARD_REQUEST_TIMEOUT_MS must be an integer/],
    [
      { GUARD_HEADERS_TIMEOUT_MS: "90000", GUARD_REQUEST_TIMEOUT_MS: "1000" },
      /^guard: GUARD_HEADERS_TIMEOUT_MS \(90000\) must not exceed GUARD_REQUEST_TIMEOUT_MS/,
    ],
    [{ GUARD_KEEP_ALIVE_TIMEOUT_MS: "x" }, /^guard: GUARD_KEEP_ALIVE_TIMEOUT_MS must be an integer/],
    [{ GUARD_CONNECTION_TIMEOUT_MS: "-5" }, /^guard: GUARD_CONNECTION_TIMEOUT_MS must be an integer/],
    [{ GUARD_PUBLIC_URL: "ftp://guard.example" }, /^guard: GUARD_PUBLIC_URL must be the http\(s\) URL/],
    [{ GUARD_TRUST_PROXY: "bogus!" }, /^guard: GUARD_TRUST_PROXY lists the proxies trusted/],
    [{ GUARD_OPERATOR_TOKEN: "short" }, /^guard: GUARD_OPERATOR_TOKEN must be at least 32 characters/],
    [{ GUARD_MIN_SDK_VERSIONS: "garbage" }, /^guard: GUARD_MIN_SDK_VERSIONS entries look like/],
    [{ GUARD_LOG_FORMAT: "xml" }, /^guard: GUARD_LOG_FORMAT must be one of auto, json, pretty/],
    [{ GUARD_ACCESS_LOG: "maybe" }, /^guard: GUARD_ACCESS_LOG must be true or false/],
  ];

  test("every setting with a wrong value: one line naming it, exit 1", async () => {
    for (const [settings, pattern] of WRONG_VALUES) {
      assertOneLine(await guard(["org", "list"], { GUARD_DATA_DIR: freshDataDir(), ...settings }), pattern);
    }
  });

  test("a data directory that cannot be made or written names GUARD_DATA_DIR", async () => {
    const file = path.join(freshDataDir(), "a-file");
    fs.writeFileSync(file, "");
    // Under /proc, Node's recursive mkdir never returns: made one level at a time, it is ENOENT.
    for (const dir of [file, path.join(file, "below"), "/proc/guard-data"]) {
      assertOneLine(
        await guard(["org", "list"], { GUARD_DATA_DIR: dir }),
        /^guard: The data directory .* cannot be used \((EEXIST|ENOTDIR|ENOENT) on .*\): set GUARD_DATA_DIR or --data-dir/,
      );
    }
  });

  test("a GUARD_HOST that is not this machine's, or does not resolve, is one line", async () => {
    const dataDir = freshDataDir();
    assert.equal((await guard(["migrate"], { GUARD_DATA_DIR: dataDir })).code, 0);
    assertOneLine(
      await guard(["serve", "--port", "0"], { GUARD_DATA_DIR: dataDir, GUARD_HOST: "no-such-host.invalid" }),
      /^guard: GUARD_HOST "no-such-host\.invalid" is not a host name this machine resolves/,
    );
    assertOneLine(
      // TEST-NET-1 (RFC 5737): never an address of this machine.
      await guard(["serve", "--port", "0"], { GUARD_DATA_DIR: dataDir, GUARD_HOST: "192.0.2.1" }),
      /^guard: 192\.0\.2\.1 is not an address of this machine: check GUARD_HOST/,
    );
  });

  test("sslmode=require (or prefer, verify-ca) reaches the driver as the verify-full it means", () => {
    const url = (raw: string) => loadConfig({ ...SECRETS, DATABASE_URL: raw }).databaseUrl;
    const base = "postgres://guard:pw@db.example.com:5432/guard";
    for (const mode of ["require", "prefer", "verify-ca"])
      assert.equal(
        url(`${base}?sslmode=${mode}&sslrootcert=/ca.pem`),
        `${base}?sslmode=verify-full&sslrootcert=/ca.pem`,
      );
    for (const kept of [`${base}?sslmode=disable`, `${base}?uselibpqcompat=true&sslmode=require`, base])
      assert.equal(url(kept), kept);
  });

  test("a damaged secrets.json names the file and says to restore it, never regenerates it", async () => {
    for (const [contents, problem] of [
      ["{tokenSecret", /is not valid JSON/],
      [JSON.stringify({ tokenSecret: "x", auditKeys: { 1: "y".repeat(40) } }), /has no tokenSecret of 32\+/],
      [JSON.stringify({ tokenSecret: "t".repeat(40), auditKeys: {} }), /has no auditKeys/],
      [JSON.stringify({ tokenSecret: "t".repeat(40), auditKeys: { 1: "short" } }), /has no auditKeys/],
    ] as const) {
      const dataDir = freshDataDir();
      const file = path.join(dataDir, "secrets.json");
      fs.writeFileSync(file, contents, { mode: 0o600 });
      assertOneLine(
        await guard(["org", "list"], { GUARD_DATA_DIR: dataDir }),
        new RegExp(
          `^guard: ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} ${problem.source}.*restore it from a backup`,
        ),
      );
      assert.equal(fs.readFileSync(file, "utf8"), contents, "the file is left as it was");
    }
  });

  test("an embedded database PGlite cannot open is one line saying how to restore it", async () => {
    const dataDir = freshDataDir();
    assert.equal((await guard(["migrate"], { GUARD_DATA_DIR: dataDir })).code, 0);
    fs.writeFileSync(path.join(dataDir, "pgdata", "global", "pg_control"), "damaged");
    assertOneLine(
      await guard(["org", "list"], { GUARD_DATA_DIR: dataDir }),
      /^guard: The embedded database in .*pgdata cannot be opened \(.*\): restore the data directory from a backup/,
    );
  });

  test("every setting config.ts reads has a wrong-value case here", () => {
    const source = fs.readFileSync(new URL("../../src/config.ts", import.meta.url), "utf8");
    const read = new Set(source.match(/\b(GUARD_[A-Z_]+|PORT|DATABASE_URL)\b/g));
    const covered = new Set(WRONG_VALUES.flatMap(([settings]) => Object.keys(settings)));
    // Covered by the other tests of this file: the database URL, the data directory, the listen
    // address and the log level. GUARD_SNAPSHOT_DIR has no wrong value: a directory Guard cannot
    // write only means fresh data directories are created the slow way.
    for (const name of [
      "DATABASE_URL",
      "GUARD_DATA_DIR",
      "GUARD_HOST",
      "GUARD_LOG_LEVEL",
      "GUARD_SNAPSHOT_DIR",
    ])
      covered.add(name);
    assert.deepEqual([...read].filter((name) => !covered.has(name)).sort(), []);
  });

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
