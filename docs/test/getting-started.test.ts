// docs/getting-started.md is run as written: every ```sh block, in order, in one bash session
// against `guard serve --seed-demo` (the demo `npm start` creates), with the "setup" block's
// values (the printed credentials, the address, a free port) supplied by the test. A command that
// fails (curl -f on an error status, a missing field) fails the test.
//
// The "With a server SDK" section's run blocks (```sh node, ```sh python, ```sh kotlin) run in the
// same session, after the curl steps; each program must print the curl steps' lines. Their install
// blocks are not run in the session: the Node one (`npm run build -w sdks/node`, so the example
// imports "@guard/server" as a user would, from its dist/, which a fresh clone does not have) runs at
// the repository's root before the session; the Python one would create a venv and install from
// the network, so the test uses the repository's .venv instead, made the same way by the
// python-sdk suite of scripts/test-all.mjs (this suite, getting-started, runs after it and after
// the jvm-sdk suite: locally, without them, the Python or Kotlin example is skipped, with the
// reason; under CI they must be there). Likewise the
// Kotlin example needs Maven and a JDK (skipped locally without them, required under CI); Maven runs
// offline, from the local repository the jvm-sdk suite fills. The programs shown in the doc must
// equal the files they are run from.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import {
  createCliEnvironment,
  type CliEnvironment,
  type RunningCli,
} from "../../server/test/support/cli-helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DOC = path.join(ROOT, "docs/getting-started.md");
const VENV_PYTHON = path.join(ROOT, ".venv/bin/python");

interface Block {
  info: string;
  code: string;
}

function fencedBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(\S[^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1]!.trim(),
    code: m[2]!,
  }));
}

const shellBlocks = (markdown: string) => fencedBlocks(markdown).filter((b) => /^sh\b/.test(b.info));

function hasCommand(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: "ignore" }).status === 0;
}

/** Why an SDK's example cannot run here (locally only: under CI a missing toolchain is a failure). */
const missing: Record<string, string | false> = {
  node: false,
  python: fs.existsSync(VENV_PYTHON)
    ? false
    : `no ${path.relative(ROOT, VENV_PYTHON)} (made by \`node scripts/test-all.mjs --only python-sdk\`)`,
  kotlin:
    hasCommand("mvn", ["-v"]) && hasCommand("java", ["-version"]) ? false : "no Maven or JDK on the PATH",
};
const skipReason = (sdk: string): string | false => (process.env.CI ? false : (missing[sdk] ?? false));

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function bash(script: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/** The lines the curl steps print, which every SDK's program prints too. */
function assertWalkthroughLines(out: string): void {
  assert.match(out, /^organisation org_\w+, notice ntc_\w+$/m);
  assert.match(out, /^principal token: \S+\.\.\.$/m);
  assert.match(out, /^consent cns_\w+$/m);
  assert.match(out, /^allow$/m);
  assert.match(out, /^withdrawn$/m);
  assert.match(out, /^deny$/m);
  const consent = /^consent (cns_\w+)$/m.exec(out)![1];
  assert.match(out, new RegExp(`^verified consent\\.withdrawn for ${consent}$`, "m"), "its own delivery");
  assert.match(out, /^DSR \w+_\w+ is pending, due \d{4}-\d\d-\d\dT/m);
}

describe("docs/getting-started.md", () => {
  let cli: CliEnvironment;
  let server: RunningCli;
  let workDir: string;
  let run: { code: number; stdout: string; stderr: string };
  /** The output of the session's blocks, by info string (the curl steps' blocks all under "sh"). */
  const output = new Map<string, string>();
  /** Info strings of blocks that did not run to their end (the session stops at a failing one). */
  const unfinished = new Set<string>();

  before(async () => {
    const blocks = shellBlocks(fs.readFileSync(DOC, "utf8"));
    // The Node SDK's install block, as written, at the root of this clone.
    const install = blocks.filter((b) => b.info === "sh install-node");
    assert.equal(install.length, 1, "the doc's Node install block");
    const build = await bash(`set -euo pipefail\n${install[0]!.code}`, ROOT);
    assert.equal(build.code, 0, `building @guard/server failed:\n${build.stdout}\n${build.stderr}`);

    cli = await createCliEnvironment();
    server = await cli.serve(["--seed-demo"]);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-getting-started-"));
    // The walkthrough runs from a clone's root: its example files are where the doc says. The curl
    // steps write files in the current directory, so they run in a scratch one; the SDK programs
    // write none, and run from this clone's root (its node_modules, .venv and sdks/jvm: Maven and
    // the Kotlin compiler must see the project by its real path, not through a symlink).
    fs.mkdirSync(path.join(workDir, "docs"));
    fs.symlinkSync(path.join(ROOT, "docs/examples"), path.join(workDir, "docs/examples"));

    const demo = server.ready.demo;
    assert.ok(demo, "the first start seeds the demo organisation");
    const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
    const session = blocks.filter((b) => {
      const sdk = /^sh (node|python|kotlin)$/.exec(b.info)?.[1];
      return b.info === "sh" || (sdk !== undefined && !skipReason(sdk));
    });
    const script = [
      "set -euo pipefail",
      // Never the network from a test: Maven resolves from the local repository only.
      'mvn() { command mvn -o "$@"; }',
      `export GUARD=${quote(server.url)}`,
      `export GUARD_KEY=${quote(demo.apiKey!)}`,
      `export GUARD_PASSWORD=${quote(demo.adminPassword!)}`,
      `export WEBHOOK_PORT=${await freePort()}`,
      ...session.flatMap((b, i) => [
        `echo '::block ${i} ${b.info}'`,
        b.info === "sh" ? b.code : `(cd ${quote(ROOT)}\n${b.code})`,
      ]),
      "echo '::end'",
    ].join("\n");
    run = await bash(script, workDir);
    // Markers are not anchored to a line's start: a program may end without a newline (Maven's
    // closing colour reset does).
    const parts = run.stdout.split(/::block (\d+) .*\n/);
    for (let i = 1; i < parts.length; i += 2) {
      const block = session[Number(parts[i])]!;
      output.set(block.info, (output.get(block.info) ?? "") + parts[i + 1]!.replace(/::end\n/, ""));
    }
    // A block finished when the next block's marker (or the session's end) was printed.
    const reached = (parts.length - 1) / 2;
    if (!/::end$/m.test(run.stdout))
      session.slice(Math.max(0, reached - 1)).forEach((b) => unfinished.add(b.info));
  });
  after(async () => {
    await server?.stop();
    await cli?.dispose();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  const failure = () => `the walkthrough failed (exit ${run.code}):\n${run.stdout}\n${run.stderr}`;

  test("the setup block names exactly what the test supplies", () => {
    const setup = shellBlocks(fs.readFileSync(DOC, "utf8")).filter((b) => b.info === "sh setup");
    assert.equal(setup.length, 1);
    const names = [...setup[0]!.code.matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
    assert.deepEqual(names, ["GUARD", "GUARD_KEY", "GUARD_PASSWORD", "WEBHOOK_PORT"]);
  });

  test("every block is one the test knows how to treat", () => {
    const known = /^sh( setup| install-(node|python)| node| python| kotlin)?$/;
    for (const block of shellBlocks(fs.readFileSync(DOC, "utf8"))) assert.match(block.info, known);
  });

  test("every curl command runs as written against the demo", () => {
    assert.ok(!unfinished.has("sh"), failure());
    assert.ok(shellBlocks(fs.readFileSync(DOC, "utf8")).filter((b) => b.info === "sh").length >= 8);
    assertWalkthroughLines(output.get("sh") ?? "");
  });

  for (const sdk of ["node", "python", "kotlin"]) {
    test(
      `the ${sdk} SDK's program runs as written and prints the same lines`,
      { skip: skipReason(sdk) },
      () => {
        assert.ok(!unfinished.has(`sh ${sdk}`), failure());
        assertWalkthroughLines(output.get(`sh ${sdk}`) ?? "");
      },
    );
  }

  test("the session ran to its end", () => {
    assert.equal(run.code, 0, failure());
    assert.match(run.stdout, /::end$/m);
  });

  test("the programs shown are the files that run", () => {
    const shown = fencedBlocks(fs.readFileSync(DOC, "utf8")).filter((b) =>
      /^(js|python|kotlin) \S+$/.test(b.info),
    );
    assert.deepEqual(
      shown.map((b) => b.info.split(" ")[1]),
      [
        "docs/examples/getting-started.mjs",
        "docs/examples/getting_started.py",
        "sdks/jvm/src/test/kotlin/examples/GettingStarted.kt",
      ],
    );
    for (const block of shown) {
      const file = block.info.split(" ")[1]!;
      assert.equal(block.code, fs.readFileSync(path.join(ROOT, file), "utf8"), `${file} as shown in the doc`);
    }
  });
});
