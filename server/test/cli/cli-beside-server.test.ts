// `guard` beside a running server on the embedded database (src/cli/cli-socket.ts): the server
// holds the data directory, so the CLI hands each invocation to it over `<data dir>/cli.sock`.
// The same commands give the same output and exit codes as with the server stopped; the socket is
// the owner's alone and goes with the server; a socket left by a killed server neither hangs the
// CLI nor hides the lock's message.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { createCliEnvironment, type CliEnvironment, type CliResult } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";
import { DEMO_NOTICE } from "../../src/demo/seed.js";

const LOCK_MODULE = fileURLToPath(new URL("../../src/db/data-dir-lock.ts", import.meta.url));
const GUARD_BIN = fileURLToPath(new URL("../../bin/guard.js", import.meta.url));

/** `guard` run from another working directory (cli.run runs it from this one). */
function runIn(
  cwd: string,
  cli: CliEnvironment,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...cli.env };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, [GUARD_BIN, ...args], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** One request on the CLI socket, as any client might send it. */
function postRaw(socketPath: string, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, path: "/run", method: "POST", agent: false }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => (text += d.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** Invocations run against a server and against the stopped data directory; [argv, stdin]. */
const SCRIPT: [string[], string?][] = [
  [["--json", "org", "create", "--slug", "acme", "--name", "Acme Health"]],
  [["org", "create", "--slug", "acme", "--name", "Again"]], // fails: the slug is taken
  [["--json", "org", "list"]],
  [["org", "list"]],
  [["--json", "keys", "create", "--org", "acme", "--name", "backend"]],
  [["keys", "list", "--org", "acme"]],
  [["--json", "keys", "list", "--org", "acme"]],
  [["keys", "list", "--org", "nope"]], // fails: no such organisation
  [
    ["--json", "staff", "create", "--org", "acme", "--email", "dpo@acme.example", "--role", "dpo"],
    "correct horse battery\n",
  ],
  [["staff", "create", "--org", "acme", "--email", "v@acme.example", "--role", "viewer"], "short"], // fails
  [["--version"]],
  [["--json", "--version"]],
  [["--json", "migrate"]],
  [["--json", "demo", "reset-credentials"]],
  [["demo", "reset-credentials"]],
  [["--json", "org", "disable", "--slug", "acme", "--reason", "billing hold"]],
  [["org", "disable", "--slug", "acme", "--reason", "again"]], // changes nothing: already disabled
  [["org", "list"]],
  [["--json", "org", "enable", "--slug", "acme"]],
  [["org", "disable", "--slug", "nope", "--reason", "x"]], // fails: no such organisation
  [["--json", "audit", "verify", "--org", "acme"]],
];

/** What differs between two runs of the same commands: ids, secrets and times. */
function normalise(text: string): string {
  return (
    text
      .replace(/gk_live_[A-Za-z0-9_-]+/g, "<key>")
      .replace(/\b(org|key|stf|aud)_[A-Za-z0-9_-]+/g, "<$1-id>")
      .replace(/(admin@demo\.example \/ |"adminPassword":")[^\s"]+/g, "$1<password>")
      // An audit chain's head is keyed with the data directory's own generated audit key.
      .replace(/("headHash":"|; head )[0-9a-f]{64}/g, "$1<hash>")
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, "<iso>")
      .replace(/\b\d{13}\b/g, "<ms>")
  );
}

const summary = (result: CliResult) => ({
  code: result.code,
  stdout: normalise(result.stdout),
  stderr: normalise(result.stderr),
});

async function runScript(cli: CliEnvironment) {
  const results = [];
  for (const [argv, stdin] of SCRIPT) results.push(summary(await cli.run(argv, { stdin })));
  return results;
}

/** A process that holds the data directory's lock (as a CLI command in progress would) until killed. */
function holdLock(dataDir: string): Promise<{ pid: number; kill(): Promise<void> }> {
  const child = spawn(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `const { acquireDataDirLock } = await import(${JSON.stringify(LOCK_MODULE)});
       acquireDataDirLock(${JSON.stringify(dataDir)});
       console.log("locked");
       setInterval(() => {}, 60_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (data: Buffer) => {
      if (data.toString().includes("locked")) {
        resolve({ pid: child.pid!, kill: () => (child.kill("SIGKILL"), exited) });
      }
    });
    void exited.then(() => reject(new Error("the lock holder exited")));
  });
}

describe(
  "guard beside a running server",
  { skip: engine !== "pglite" && "embedded database only: on PostgreSQL every CLI opens its own connection" },
  () => {
    let cli: CliEnvironment;
    let stopped: CliEnvironment;
    before(async () => {
      cli = await createCliEnvironment();
      stopped = await createCliEnvironment();
    });
    after(async () => {
      await cli.dispose();
      await stopped.dispose();
    });

    test("commands run through the server, with the output and exit codes they have without it", async () => {
      const socket = path.join(cli.dataDir, "cli.sock");
      const server = await cli.serve(["--seed-demo"]);
      let beside;
      try {
        const stat = fs.statSync(socket);
        assert.ok(stat.isSocket(), "the server listens on <data dir>/cli.sock");
        assert.equal(stat.mode & 0o777, 0o600, "the socket is the owner's alone");
        assert.equal(fs.statSync(cli.dataDir).mode & 0o777, 0o700, "and so is its directory");

        beside = await runScript(cli);

        const serve = await cli.run(["serve", "--port", "0"]);
        assert.equal(serve.code, 1);
        assert.equal(serve.stdout, "");
        assert.match(
          serve.stderr,
          /^guard: Guard is already running on this data directory at http:\/\/127\.0\.0\.1:\d+ \(pid \d+\); stop it first/,
        );
        assert.equal(serve.stderr.trim().split("\n").length, 1, serve.stderr);
      } finally {
        assert.equal(await server.stop(), 0, server.output());
      }
      assert.equal(fs.existsSync(socket), false, "the socket goes with the server");

      // The same invocations on a data directory no server holds (seeded the same way first).
      await (await stopped.serve(["--seed-demo"])).stop();
      const alone = await runScript(stopped);
      assert.deepEqual(beside, alone);

      // Spot checks, so that equal does not mean equally broken.
      const byArgs = (args: string) => beside[SCRIPT.findIndex(([argv]) => argv.join(" ") === args)]!;
      assert.equal(byArgs("--json org create --slug acme --name Acme Health").code, 0);
      const taken = byArgs("org create --slug acme --name Again");
      assert.equal(taken.code, 1);
      assert.match(taken.stderr, /^guard: .*slug "acme" already exists/);
      assert.equal(
        byArgs("keys list --org nope").stderr,
        'guard: No organisation has the slug "nope" (create it with: guard org create)\n',
      );
      assert.match(byArgs("--json org list").stdout, /^\{"organizations":\[.*"slug":"acme"/);
      assert.match(byArgs("keys list --org acme").stdout, /"createdAt": "<iso> \(<ms>\)"/);
      assert.equal(byArgs("--json staff create --org acme --email dpo@acme.example --role dpo").code, 0);
      assert.equal(byArgs("--json migrate").stdout, '{"applied":[]}\n');
      assert.match(byArgs("--json demo reset-credentials").stdout, /"apiKey":"<key>"/);
      assert.match(
        byArgs("demo reset-credentials").stderr,
        /staff admin: +admin@demo\.example \/ <password>/,
      );
      assert.equal(byArgs("--json audit verify --org acme").code, 0);
      assert.match(byArgs("--json org disable --slug acme --reason billing hold").stdout, /"changed":true/);
      assert.match(
        byArgs("org disable --slug acme --reason again").stderr,
        /already disabled; nothing changed/,
      );
      // The second `org list`, after the disabling.
      const listings = SCRIPT.flatMap(([argv], i) => (argv.join(" ") === "org list" ? [beside[i]!] : []));
      assert.match(listings[1]!.stdout, /"status": "disabled"/);
      assert.match(byArgs("--json org enable --slug acme").stdout, /"changed":true/);
      assert.equal(byArgs("org disable --slug nope --reason x").code, 1);
      assert.match(byArgs("--version").stdout, /^guard \S+ \(contract \S+\)\n$/);
    });

    test("through the server: its key cache, the invoker's directory, secrets only when piped", async () => {
      const server = await cli.serve();
      try {
        const made = await cli.run(["--json", "keys", "create", "--org", "acme", "--name", "live"]);
        assert.equal(made.code, 0, made.stderr);
        const res = await fetch(`${server.url}/api/v1/auth/broker-token`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${made.json<{ key: string }>().key}`,
            "content-type": "application/json",
          },
          body: JSON.stringify({ externalId: "user-1" }),
        });
        assert.equal(res.status, 201, "a key made through the server works on it at once");

        // Disabling through the server drops its cached key and organisation at once; enabling
        // restores them.
        const brokerWith = (key: string) =>
          fetch(`${server.url}/api/v1/auth/broker-token`, {
            method: "POST",
            headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
            body: JSON.stringify({ externalId: "user-1" }),
          });
        const key = made.json<{ key: string }>().key;
        const off = await cli.run(["--json", "org", "disable", "--slug", "acme", "--reason", "test"]);
        assert.equal(off.code, 0, off.stderr);
        assert.equal((await brokerWith(key)).status, 403, "refused as soon as the command answered");
        const on = await cli.run(["--json", "org", "enable", "--slug", "acme"]);
        assert.equal(on.code, 0, on.stderr);
        assert.equal((await brokerWith(key)).status, 201);

        // A relative path is read from where `guard` was run, not from the server's directory.
        const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "guard-cwd-"));
        try {
          fs.writeFileSync(path.join(elsewhere, "notice.json"), JSON.stringify(DEMO_NOTICE));
          const published = await runIn(elsewhere, cli, [
            "--json",
            "notice",
            "publish",
            "--org",
            "acme",
            "--file",
            "notice.json",
          ]);
          assert.equal(published.code, 0, published.stderr);
          assert.match(published.stdout, /^\{"noticeId":"[^"]+","version":1\}\n$/);
        } finally {
          fs.rmSync(elsewhere, { recursive: true, force: true });
        }

        // The socket's protocol itself: a terminal's secret is not forwarded (stdin null), and
        // what is not an invocation, or too large, is refused.
        const socketPath = path.join(cli.dataDir, "cli.sock");
        const tty = await postRaw(socketPath, {
          argv: ["staff", "create", "--org", "acme", "--email", "t@acme.example", "--role", "viewer"],
          stdin: null,
          cwd: os.tmpdir(),
        });
        assert.equal(tty.status, 200);
        const answer = JSON.parse(tty.body) as { stdout: string; stderr: string; exitCode: number };
        assert.equal(answer.exitCode, 1);
        assert.equal(answer.stdout, "");
        assert.match(answer.stderr, /^guard: .*cannot prompt for a secret: pipe the secret on stdin/);
        assert.equal((await postRaw(socketPath, { argv: "org list" })).status, 400);
        assert.equal(
          (await postRaw(socketPath, { argv: [], stdin: "x".repeat(2 * 1024 * 1024), cwd: "/" })).status,
          413,
        );
      } finally {
        await server.stop();
      }
    });

    test("a socket left by a killed server: the lock decides, as without one", async () => {
      const socket = path.join(cli.dataDir, "cli.sock");
      const server = await cli.serve();
      server.child.kill("SIGKILL");
      await server.stop();
      assert.ok(fs.existsSync(socket), "SIGKILL leaves the socket file behind");

      // The killed server's lock is stale: the CLI takes it over and runs the command itself.
      const list = await cli.run(["--json", "org", "list"]);
      assert.equal(list.code, 0, list.stderr);
      assert.match(list.stdout, /"slug":"acme"/);

      // A live holder that is no server (a command in progress), beside the dead socket: the
      // lock's message at once, no hang.
      const holder = await holdLock(cli.dataDir);
      try {
        const started = Date.now();
        const refused = await cli.run(["--json", "org", "list"]);
        assert.equal(refused.code, 1);
        assert.equal(refused.stdout, "");
        assert.match(
          refused.stderr,
          new RegExp(
            `^guard: The data directory .* is in use by another Guard process \\(pid ${holder.pid}\\)`,
          ),
        );
        assert.ok(Date.now() - started < 15_000, "answered without waiting on the socket");
      } finally {
        await holder.kill();
      }

      // The next server replaces the dead socket with its own.
      const next = await cli.serve();
      try {
        const through = await cli.run(["--json", "org", "list"]);
        assert.equal(through.code, 0, through.stderr);
        assert.equal(fs.statSync(socket).mode & 0o777, 0o600);
      } finally {
        await next.stop();
      }
      assert.equal(fs.existsSync(socket), false);
    });
  },
);
