// scripts/bundled-tests.mjs: a TypeScript test file run as a bundle keeps its own import.meta.url,
// its failures fail the run, files start in the order given, and the bundles are gone afterwards.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

function runBundled(source: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bundled-"));
  const file = path.join(dir, "example.test.ts");
  fs.writeFileSync(file, source);
  try {
    const run = spawnSync(
      process.execPath,
      ["scripts/bundled-tests.mjs", "--test-reporter=tap", "--", file],
      // Not as a child of this test runner (which would read its results over a private channel).
      {
        cwd: ROOT,
        encoding: "utf8",
        env: { ...process.env, NODE_TEST_CONTEXT: undefined, EXPECTED_URL: pathToFileURL(file).href },
      },
    );
    return { ...run, file };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const bundlesLeft = () =>
  fs.existsSync(path.join(ROOT, ".test-tmp"))
    ? fs.readdirSync(path.join(ROOT, ".test-tmp")).filter((name) => name.startsWith("bundles-"))
    : [];

test("a bundled TypeScript test sees its source's import.meta.url and passes", () => {
  const before = bundlesLeft();
  const run = runBundled(`
    import assert from "node:assert/strict";
    import { test } from "node:test";
    const typed: { url: string } = { url: import.meta.url };
    test("own url", () => assert.equal(typed.url, process.env.EXPECTED_URL));
    test("not the bundle's", () => assert.doesNotMatch(typed.url, /\\.test-tmp/));
  `);
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^# pass 2$/m);
  assert.deepEqual(bundlesLeft(), before);
});

test("a failing bundled test fails the run, at its source line", () => {
  const run = runBundled(`
    import assert from "node:assert/strict";
    import { test } from "node:test";

    test("fails", () => {
      assert.equal(1 + 1, 3);
    });
  `);
  assert.equal(run.status, 1);
  assert.match(run.stdout, /^# fail 1$/m);
  assert.match(run.stdout, /example\.test\.ts:6:/);
});

test("files start in the order given, not sorted by name", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-bundled-order-"));
  const log = path.join(dir, "started.log");
  const names = ["c", "a", "d", "b"];
  for (const name of names)
    fs.writeFileSync(
      path.join(dir, `${name}.test.ts`),
      `import fs from "node:fs";
       import { test } from "node:test";
       test("${name}", () => fs.appendFileSync(${JSON.stringify(log)}, "${name}"));`,
    );
  try {
    const run = spawnSync(
      process.execPath,
      [
        "scripts/bundled-tests.mjs",
        "--test-concurrency=1",
        "--",
        ...names.map((name) => path.join(dir, `${name}.test.ts`)),
      ],
      { cwd: ROOT, encoding: "utf8", env: { ...process.env, NODE_TEST_CONTEXT: undefined } },
    );
    assert.equal(run.status, 0, run.stdout + run.stderr);
    assert.equal(fs.readFileSync(log, "utf8"), names.join(""));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
