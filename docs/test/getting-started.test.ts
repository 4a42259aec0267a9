// docs/getting-started.md is run as written: every ```sh block, in order, in one bash session
// against `guard serve --seed-demo` (the demo `npm start` creates), with the "setup" block's
// values (the printed credentials, the address, a free port) supplied by the test. A command that
// fails (curl -f on an error status, a missing field) fails the test.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { createCliEnvironment, type CliEnvironment, type RunningCli } from "../support/cli-helpers.js";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const DOC = path.join(ROOT, "docs/getting-started.md");

interface Block {
  info: string;
  code: string;
}

function shellBlocks(markdown: string): Block[] {
  return [...markdown.matchAll(/^```(sh[^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1]!.trim(),
    code: m[2]!,
  }));
}

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

describe("docs/getting-started.md", () => {
  let cli: CliEnvironment;
  let server: RunningCli;
  let workDir: string;
  before(async () => {
    cli = await createCliEnvironment();
    server = await cli.serve(["--seed-demo"]);
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-getting-started-"));
    // The walkthrough runs from a clone's root: its example files are where the doc says.
    fs.mkdirSync(path.join(workDir, "docs"));
    fs.symlinkSync(path.join(ROOT, "docs/examples"), path.join(workDir, "docs/examples"));
  });
  after(async () => {
    await server?.stop();
    await cli?.dispose();
    if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
  });

  test("the setup block names exactly what the test supplies", () => {
    const setup = shellBlocks(fs.readFileSync(DOC, "utf8")).filter((b) => b.info === "sh setup");
    assert.equal(setup.length, 1);
    const names = [...setup[0]!.code.matchAll(/^export (\w+)=/gm)].map((m) => m[1]);
    assert.deepEqual(names, ["GUARD", "GUARD_KEY", "GUARD_PASSWORD", "WEBHOOK_PORT"]);
  });

  test("every command runs as written against the demo", async () => {
    const demo = server.ready.demo;
    assert.ok(demo, "the first start seeds the demo organisation");
    const blocks = shellBlocks(fs.readFileSync(DOC, "utf8")).filter((b) => b.info === "sh");
    assert.ok(blocks.length >= 7, "the walkthrough's steps");
    const quote = (value: string) => `'${value.replace(/'/g, "'\\''")}'`;
    const script = [
      "set -euo pipefail",
      `export GUARD=${quote(server.url)}`,
      `export GUARD_KEY=${quote(demo.apiKey!)}`,
      `export GUARD_PASSWORD=${quote(demo.adminPassword!)}`,
      `export WEBHOOK_PORT=${await freePort()}`,
      ...blocks.map((b) => b.code),
    ].join("\n");
    const run = await bash(script, workDir);
    assert.equal(run.code, 0, `the walkthrough failed:\n${run.stdout}\n${run.stderr}`);
    const out = run.stdout;
    assert.match(out, /^organisation org_\w+, notice ntc_\w+$/m);
    assert.match(out, /^principal token: \S+\.\.\.$/m);
    assert.match(out, /^consent cns_\w+$/m);
    assert.match(out, /^allow$/m);
    assert.match(out, /^withdrawn$/m);
    assert.match(out, /^deny$/m);
    assert.match(out, /^verified consent\.withdrawn for cns_\w+$/m);
    assert.match(out, /^DSR \w+_\w+ is pending, due \d{4}-\d\d-\d\dT/m);
  });
});
