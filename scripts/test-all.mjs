#!/usr/bin/env node
// `npm test`: runs every suite and ends with exactly one line `<N> passed, <M> failed`.
// Exit code 0 only when nothing failed. See scripts/README.md.
//
//   node scripts/test-all.mjs [--only <id>]... [--skip <id>]... [--timeout <minutes>] [--list]
//
// A suite is data: { id, title, requires?, setup?, steps }. To add one, add an entry to SUITES.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { startThrowawayPostgres } from "./lib/postgres-cluster.mjs";
import { startFixtureServer } from "../conformance/start-fixture.mjs";
import {
  exitCodeResult,
  failedNodeTapTests,
  parseConformance,
  parseFuzz,
  parseNodeTap,
  parsePytest,
  parseSurefire,
} from "./lib/result-parsers.mjs";
import { batches, beside, besideOf, runLanes, SuiteOutput } from "./lib/suite-batches.mjs";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const DEFAULT_SUITE_TIMEOUT_MIN = 20;
const KILL_GRACE_MS = 5_000;
const OUTPUT_CAP = 32 * 1024 * 1024; // characters of output kept for parsing (the tail)
const MAX_FAILURES_SHOWN = 10; // per suite, in the report above the summary
const MAX_FAILURE_CHARS = 3_000; // of one failure's diagnostics there

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const red = paint("31");
const green = paint("32");
const dim = paint("2");

// ---- suites ------------------------------------------------------------------------------------------

/** A locally installed CLI (node_modules/.bin), or npx as a fallback. */
function tool(name, args) {
  const local = path.join(ROOT, "node_modules", ".bin", name);
  return fs.existsSync(local) ? { cmd: local, args } : { cmd: "npx", args: ["--no-install", name, ...args] };
}

const [nodeMajor, nodeMinor] = process.versions.node.split(".").map(Number);
const testConcurrency =
  nodeMajor > 20 || (nodeMajor === 20 && nodeMinor >= 10) ? ["--test-concurrency=2"] : [];

function findFiles(dir, suffix) {
  const out = [];
  const walk = (d) => {
    for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith(suffix)) out.push(full);
    }
  };
  walk(dir);
  return out.sort();
}

/**
 * node:test over `<dir>/**\/*.test.ts`: spec reporter on screen, TAP to a file whose summary gives the
 * counts. Environment the tests must honour: GUARD_TEST_DB (pglite | postgres) and, for postgres,
 * GUARD_TEST_DATABASE_URL (a superuser URL on the `postgres` database; tests create their own databases).
 */
function nodeTestSuite({ id, title, dir, exclude, env = {}, setup, bundled = false, largestFirst = false }) {
  return {
    id,
    title,
    requires: dir,
    setup,
    steps: (ctx) => {
      const skipped = exclude && path.join(ROOT, exclude) + path.sep;
      const files = findFiles(path.join(ROOT, dir), ".test.ts").filter(
        (f) => !skipped || !f.startsWith(skipped),
      );
      if (files.length === 0) return { skip: `${dir} has no *.test.ts files yet` };
      // `largestFirst` (bundled runs start the files in the order given; node --test alone sorts
      // them): size stands in for duration, so that no long file starts last and leaves a core idle
      // at the end. Measured per suite (scripts/README.md): it slowed the reliability suite.
      if (largestFirst) files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
      const tap = path.join(ctx.tmpDir, `${id}.tap`);
      return [
        {
          label: `node --test (${files.length} file${files.length === 1 ? "" : "s"} in ${dir}${bundled ? ", bundled" : ""})`,
          cmd: process.execPath,
          args: [
            // `bundled`: each test file runs as one JavaScript module (scripts/bundled-tests.mjs).
            ...(bundled ? ["scripts/bundled-tests.mjs"] : ["--import", "tsx", "--test"]),
            ...testConcurrency,
            ...["--test-reporter=spec", "--test-reporter-destination=stdout"],
            ...["--test-reporter=tap", `--test-reporter-destination=${tap}`],
            ...(bundled ? ["--"] : []),
            ...files.map((f) => path.relative(ROOT, f)),
          ],
          env,
          parse: () => (fs.existsSync(tap) ? parseNodeTap(fs.readFileSync(tap, "utf8")) : null),
          failures: () => (fs.existsSync(tap) ? failedNodeTapTests(fs.readFileSync(tap, "utf8")) : []),
        },
      ];
    },
  };
}

/** A suite's setup: a throwaway PostgreSQL cluster for its run, its admin URL in the tests' environment. */
async function withTestCluster(ctx) {
  const cluster = await startThrowawayPostgres({ log: ctx.log });
  return { env: { GUARD_TEST_DATABASE_URL: cluster.adminUrl }, teardown: () => cluster.stop() };
}

/** Environment for server tests: never let a developer's DATABASE_URL leak into them. */
const serverEnv = (db) => ({ GUARD_TEST_DB: db, DATABASE_URL: undefined });

/**
 * The same node:test suite once per engine: `<id>-pglite` on the embedded database, then
 * `<id>-postgres` on a throwaway cluster of its own.
 */
function perEngine({ id, title, ...options }) {
  return [
    nodeTestSuite({ ...options, id: `${id}-pglite`, title: `${title} (PGlite)`, env: serverEnv("pglite") }),
    nodeTestSuite({
      ...options,
      id: `${id}-postgres`,
      title: `${title} (PostgreSQL)`,
      env: serverEnv("postgres"),
      setup: withTestCluster,
    }),
  ];
}

/** schemathesis against an in-process server on one engine (scripts/fuzz.mjs). */
function fuzzSuite(engine, name) {
  return {
    id: `fuzz-${engine}`,
    title: `fuzz (${name})`,
    requires: "scripts/fuzz.mjs",
    steps: [
      {
        label: `node scripts/fuzz.mjs (${name})`,
        cmd: process.execPath,
        args: ["scripts/fuzz.mjs"],
        env: { GUARD_FUZZ_ENGINES: engine },
        parse: ({ output }) => parseFuzz(output),
      },
    ],
  };
}

const VENV = path.join(ROOT, ".venv");
const VENV_PYTHON = path.join(VENV, "bin", "python");

/**
 * The one venv at the repo root (.venv, ignored by git, eslint and prettier), made when missing,
 * with pytest and the Python SDK (editable, with its test extras) installed or refreshed.
 */
async function refreshVenv(ctx) {
  if (!fs.existsSync(VENV_PYTHON)) await ctx.exec("python3", ["-m", "venv", VENV]);
  const pip = ["-m", "pip", "install", "-q", "--disable-pip-version-check"];
  await ctx.exec(VENV_PYTHON, [...pip, "pytest", "-e", "sdks/python[test]"]);
}

/** pytest over the Python SDK, in the one venv at the repo root (.venv), refreshed each run. */
const PYTHON_SDK = {
  id: "python-sdk",
  title: "Python SDK (pytest)",
  requires: "sdks/python",
  setup: async (ctx) => {
    await refreshVenv(ctx);
    return {
      env: { VIRTUAL_ENV: VENV, PATH: `${path.join(VENV, "bin")}${path.delimiter}${process.env.PATH}` },
    };
  },
  steps: [
    {
      label: "pytest sdks/python",
      cmd: VENV_PYTHON,
      args: ["-m", "pytest", "-q", "-p", "no:cacheprovider"],
      cwd: "sdks/python",
      parse: ({ output }) => parsePytest(output),
    },
  ],
};

/** Maven's test phase over the JVM SDK (writes sdks/jvm/target). */
const JVM_SDK = {
  id: "jvm-sdk",
  title: "JVM SDK (Maven)",
  requires: "sdks/jvm/pom.xml",
  // The getting-started walkthrough runs `exec:java` offline after this suite; `mvn test` never
  // fetches exec-maven-plugin, so with an empty local repository the walkthrough found no plugin for
  // the prefix `exec`. Resolving the build's plugins (the conformance profile's included) fetches it.
  setup: (ctx) =>
    ctx.exec("mvn", [
      "-B",
      "-ntp",
      "-q",
      "-f",
      "sdks/jvm/pom.xml",
      "-Pconformance",
      "dependency:resolve-plugins",
    ]),
  steps: [
    {
      label: "mvn test (sdks/jvm)",
      cmd: "mvn",
      args: ["-B", "-ntp", "-Dstyle.color=never", "test"],
      cwd: "sdks/jvm",
      parse: ({ output }) => parseSurefire(output),
    },
  ],
};

const SUITES = [
  // Lint and format beside the type checks and the Python SDK's tests, which make the .venv the
  // fuzzer, the getting-started check and the Python conformance adapter use later
  // (scripts/README.md, "Suites side by side").
  ...beside(
    {
      id: "static-lint",
      title: "static: lint and format",
      steps: [
        { label: "eslint .", ...tool("eslint", ["."]), parse: exitCodeResult },
        { label: "prettier --check .", ...tool("prettier", ["--check", "."]), parse: exitCodeResult },
      ],
    },
    {
      id: "static-types",
      title: "static: types",
      steps: [
        { label: "tsc --noEmit", ...tool("tsc", ["-p", "tsconfig.json", "--noEmit"]), parse: exitCodeResult },
        // The dashboard is JSX for the browser (its own compiler options) and its tests are Node code
        // over the server's modules: two projects, neither fits the root one (dashboard/README.md).
        {
          label: "tsc -p dashboard",
          ...tool("tsc", ["-p", "dashboard/tsconfig.json", "--noEmit"]),
          parse: exitCodeResult,
        },
        {
          label: "tsc -p dashboard/test",
          ...tool("tsc", ["-p", "dashboard/test/tsconfig.json", "--noEmit"]),
          parse: exitCodeResult,
        },
      ],
    },
    PYTHON_SDK,
  ),
  nodeTestSuite({ id: "test-runner", title: "test runner", dir: "scripts/test" }),
  nodeTestSuite({ id: "contract", title: "contract", dir: "contract/test" }),
  ...perEngine({ id: "server", title: "server", dir: "server/test", bundled: true, largestFirst: true }),
  // Two lanes (scripts/README.md, "Suites side by side"): the contract fuzzer on each engine, one
  // after the other (each installs into .venv when a pin is missing); beside it, suites that each
  // keep about one core busy: the whole-system reliability properties over loopback (kill -9,
  // isolation, outages, hostile input, tampering: reliability/README.md) on each engine, then the
  // JVM, Node and @guard/js SDKs' unit suites, then the getting-started walkthrough (which reads
  // .venv and the Maven repository jvm-sdk fills, and builds sdks/node/dist).
  ...beside(
    [
      ...perEngine({ id: "reliability", title: "reliability", dir: "reliability", bundled: true }),
      JVM_SDK,
      nodeTestSuite({ id: "node-sdk", title: "Node SDK", dir: "sdks/node/test" }),
      nodeTestSuite({ id: "js-sdk", title: "@guard/js", dir: "sdks/js/test" }),
      nodeTestSuite({
        id: "typescript-shared",
        title: "TypeScript SDKs' shared transport",
        dir: "sdks/typescript-shared/test",
      }),
      // docs/getting-started.md run as written, with curl and each server SDK, against the demo: after
      // the SDK suites, whose venv (Python) and local Maven repository (JVM) its examples use.
      nodeTestSuite({
        id: "getting-started",
        title: "getting started (docs)",
        dir: "docs/test",
        env: serverEnv("pglite"),
      }),
    ],
    [fuzzSuite("pglite", "PGlite"), fuzzSuite("postgres", "PostgreSQL")],
  ),
  nodeTestSuite({ id: "banner", title: "banner", dir: "banner/test", exclude: "banner/test/browser" }),
  // The hosted banner in Debian's Chromium against a real listening Guard, on each engine. One after
  // the other: each browser keeps both cores busy.
  ...perEngine({
    id: "banner-browser",
    title: "banner in Chromium",
    dir: "banner/test/browser",
    bundled: true,
  }),
  nodeTestSuite({
    id: "dashboard",
    title: "dashboard",
    dir: "dashboard/test",
    exclude: "dashboard/test/browser",
  }),
  // The dashboard in Debian's Chromium against a real listening Guard, on each engine. The support
  // code builds dashboard/dist first when it is missing or stale (scripts/build-if-stale.mjs). One
  // after the other: each browser keeps both cores busy.
  ...perEngine({
    id: "dashboard-browser",
    title: "dashboard in Chromium",
    dir: "dashboard/test/browser",
    bundled: true,
    largestFirst: true,
  }),
  // Two lanes side by side, each against a fixture server of its own: a fixture's flaky front
  // replays one queue of scripted faults, so the adapters that share one run one at a time
  // (conformance/README.md). Each lane keeps about one core busy (scripts/README.md).
  ...beside(
    conformanceSuite({
      id: "conformance-node-jvm",
      title: "SDK conformance: Node, @guard/js, JVM",
      adapters: ["node", "js", "jvm"],
    }),
    conformanceSuite({ id: "conformance-python", title: "SDK conformance: Python", adapters: ["python"] }),
  ),
];

/** `adapters` (node, js, python, jvm) against one fixture server (conformance/start-fixture.mjs). */
function conformanceSuite({ id, title, adapters }) {
  return {
    id,
    title,
    requires: ["conformance/scenarios", "sdks/node"],
    setup: async (ctx) => {
      // The Python adapter runs in .venv, which the python-sdk suite makes and refreshes earlier in
      // a whole run; a run of this suite alone (`--only conformance`) makes it here.
      if (adapters.includes("python") && !fs.existsSync(VENV_PYTHON)) await refreshVenv(ctx);
      const server = await startFixtureServer({ log: ctx.log });
      return { env: { GUARD_CONFORMANCE_FIXTURES: server.fixturesJson }, teardown: server.stop };
    },
    steps: (ctx) => {
      const steps = adapters.flatMap((adapter) => conformanceStep(adapter, ctx));
      return steps.length > 0 ? steps : { skip: `no ${adapters.join(" or ")} adapter yet` };
    },
  };
}

/** One adapter's run; none while the Python or JVM adapter does not exist yet. */
function conformanceStep(adapter, ctx) {
  const parse = ({ output }) => parseConformance(output);
  const label = `conformance: ${adapter}`;
  if (adapter === "node" || adapter === "js")
    return [
      { label, cmd: process.execPath, args: ["--import", "tsx", `conformance/run-${adapter}.mjs`], parse },
    ];
  if (adapter === "python") {
    if (!fs.existsSync(path.join(ROOT, "sdks/python/conformance_adapter.py"))) {
      ctx.log("python adapter (sdks/python/conformance_adapter.py) not present: skipped");
      return [];
    }
    return [
      {
        label,
        cmd: VENV_PYTHON,
        args: ["sdks/python/conformance_adapter.py"],
        parse,
      },
    ];
  }
  const pom = path.join(ROOT, "sdks/jvm/pom.xml");
  const jvmAdapter = path.join(ROOT, "sdks/jvm/src/test/kotlin/ai/guard/conformance");
  const hasJvmAdapter = fs.existsSync(jvmAdapter) && findFiles(jvmAdapter, ".kt").length > 0;
  if (!hasJvmAdapter || !fs.readFileSync(pom, "utf8").includes("<id>conformance</id>")) {
    ctx.log("jvm adapter (sdks/jvm conformance profile + ai.guard.conformance sources) not present: skipped");
    return [];
  }
  return [
    {
      label,
      cmd: "mvn",
      args: ["-B", "-q", "-ntp", "-f", "sdks/jvm/pom.xml", "-Pconformance", "test-compile", "exec:java"],
      parse,
    },
  ];
}

// ---- command line ------------------------------------------------------------------------------------

function usage(exitCode) {
  const idWidth = Math.max(...SUITES.map((s) => s.id.length));
  const ids = SUITES.map((s) => `  ${s.id.padEnd(idWidth)} ${s.title}`).join("\n");
  console.log(
    `usage: node scripts/test-all.mjs [--only <id>]... [--skip <id>]... [--timeout <minutes>] [--list]\n` +
      `An id also matches its dash-prefixed family (--only server = server-pglite + server-postgres);\n` +
      `several ids may be comma-separated.\n\nsuites:\n${ids}`,
  );
  process.exit(exitCode);
}

function parseArgs(argv) {
  const opts = { only: [], skip: [], timeoutMin: DEFAULT_SUITE_TIMEOUT_MIN };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => inline ?? argv[++i] ?? usage(2);
    if (flag === "--only") opts.only.push(...value().split(","));
    else if (flag === "--skip") opts.skip.push(...value().split(","));
    else if (flag === "--timeout") opts.timeoutMin = Number(value());
    else if (flag === "--list" || flag === "--help" || flag === "-h") usage(0);
    else {
      console.error(`unknown argument: ${argv[i]}`);
      usage(2);
    }
  }
  const matches = (name) => (s) => s.id === name || s.id.startsWith(`${name}-`);
  for (const name of [...opts.only, ...opts.skip]) {
    if (!SUITES.some(matches(name))) {
      console.error(`unknown suite: ${name}`);
      usage(2);
    }
  }
  if (!(opts.timeoutMin > 0)) usage(2);
  opts.selected = (s) =>
    (opts.only.length === 0 || opts.only.some((n) => matches(n)(s))) && !opts.skip.some((n) => matches(n)(s));
  return opts;
}

// ---- running -----------------------------------------------------------------------------------------

const running = new Set(); // child processes (each leads its own process group)
let interrupted = null;

function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    // group already gone
  }
}

/**
 * Run one command in its own process group, streaming its output to `out` and keeping it for
 * parsing. Resolves { exitCode, output, timedOut }; never rejects (a spawn error becomes exit code 127).
 */
function runCommand({ cmd, args, cwd, env }, deadline, out) {
  return new Promise((resolve) => {
    const childEnv = { ...process.env, ...(color ? { FORCE_COLOR: "1" } : {}) };
    for (const [k, v] of Object.entries(env ?? {})) {
      if (v === undefined) delete childEnv[k];
      else childEnv[k] = v;
    }
    let output = "";
    let timedOut = false;
    let spawnError = null;
    const child = spawn(cmd, args, {
      cwd: path.resolve(ROOT, cwd ?? "."),
      env: childEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true, // own process group, so a timeout or Ctrl-C can take down everything it started
    });
    running.add(child);
    const unterminated = new Set(); // sinks whose last write did not end a line
    const tee = (sink) => (chunk) => {
      sink.write(chunk);
      if (chunk[chunk.length - 1] === 0x0a) unterminated.delete(sink);
      else unterminated.add(sink);
      output += chunk.toString("utf8");
      if (output.length > OUTPUT_CAP) output = output.slice(-OUTPUT_CAP);
    };
    child.stdout.on("data", tee(out.stdout));
    child.stderr.on("data", tee(out.stderr));
    child.on("error", (err) => {
      spawnError = err;
    });

    const timer = setTimeout(
      () => {
        timedOut = true;
        out.error(red("\n✖ suite timeout reached, killing the process group"));
        killGroup(child, "SIGTERM");
        setTimeout(() => killGroup(child, "SIGKILL"), KILL_GRACE_MS).unref();
      },
      Math.max(0, deadline - Date.now()),
    );

    child.on("exit", () => {
      killGroup(child, "SIGKILL"); // strays (servers, watchers) a test left behind
      // A stray that escaped the group may still hold our pipes open; stop waiting for it.
      setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
      }, KILL_GRACE_MS).unref();
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      for (const sink of unterminated) sink.write("\n"); // keep our own lines at the start of a line
      if (spawnError) {
        output += `\n${spawnError.message}\n`;
        out.error(red(`cannot run ${cmd}: ${spawnError.message}`));
      }
      resolve({ exitCode: spawnError ? 127 : (code ?? 128), signal, output, timedOut });
    });
  });
}

function seconds(ms) {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * Run one suite, its output to `out`. Returns { passed, failed, ms, notes[] } or { skipped: reason }.
 * `beside`: the titles of the suites running at the same time, for its header.
 */
async function runSuite(suite, { index, total, tmpDir, timeoutMin, out, beside = [] }) {
  const header = `━━ [${index}/${total}] ${suite.title} `;
  out.log(`\n${bold(header.padEnd(100, "━"))}`);
  if (beside.length > 0) out.log(dim(`(running beside ${beside.join(", ")})`));
  for (const req of [suite.requires ?? []].flat()) {
    if (!fs.existsSync(path.join(ROOT, req))) {
      const skipped = `${req} does not exist yet`;
      out.log(dim(`– skipped: ${skipped}`));
      return { skipped };
    }
  }
  const started = Date.now();
  const deadline = started + timeoutMin * 60_000;
  const result = { passed: 0, failed: 0, ms: 0, notes: [], failures: [] };
  const fail = (note) => {
    result.failed += 1;
    result.notes.push(note);
    out.log(red(`✖ ${note}`));
  };
  const log = (msg) => out.log(dim(msg));
  const ctx = {
    tmpDir,
    log,
    /** For setup hooks: run a command (streamed), throw unless it exits 0. */
    exec: async (cmd, args, opts = {}) => {
      log(`$ ${[cmd, ...args].join(" ")}`);
      const r = await runCommand({ cmd, args, ...opts }, deadline, out);
      if (r.exitCode !== 0 || r.timedOut)
        throw new Error(`${cmd} exited with ${r.timedOut ? "timeout" : r.exitCode}`);
    },
  };

  const steps = typeof suite.steps === "function" ? suite.steps(ctx) : suite.steps;
  if (!Array.isArray(steps)) {
    out.log(dim(`– skipped: ${steps.skip}`));
    return { skipped: steps.skip };
  }

  let phase = "setup";
  let teardown = null;
  try {
    let env = {};
    if (suite.setup) {
      const prepared = await suite.setup(ctx);
      env = prepared?.env ?? {};
      teardown = prepared?.teardown ?? null;
    }
    phase = "run";
    for (const step of steps) {
      if (interrupted) break;
      const stepStarted = Date.now();
      out.log(bold(`› ${step.label}`));
      const run = await runCommand({ ...step, env: { ...env, ...step.env } }, deadline, out);
      const parsed = interrupted ? null : step.parse(run);
      let { passed, failed } = parsed ?? { passed: 0, failed: 0 };
      const why = [];
      if (run.timedOut) why.push("timed out");
      else if (!parsed && !interrupted) why.push(`exit code ${run.exitCode}, no results found in its output`);
      else if (run.exitCode !== 0 && failed === 0 && !interrupted) {
        why.push(`exit code ${run.exitCode} without a reported failure`);
      }
      if (why.length > 0) failed += 1;
      if (interrupted) why.push("interrupted"); // counted once, in the totals
      result.passed += passed;
      result.failed += failed;
      const tally = `${passed} passed, ${failed} failed`;
      const ok = failed === 0 && !interrupted;
      const line = `${ok ? "✔" : "✖"} ${step.label}: ${tally}${why.length ? ` (${why.join("; ")})` : ""} ${dim(seconds(Date.now() - stepStarted))}`;
      out.log(ok ? green(line) : red(line));
      if (why.length) result.notes.push(`${step.label}: ${why.join("; ")}`);
      if (failed > 0 && step.failures) result.failures.push(...step.failures());
      if (run.timedOut) break;
    }
  } catch (err) {
    fail(`${phase} error: ${err.message}`);
  } finally {
    if (teardown) {
      try {
        await teardown();
      } catch (err) {
        fail(`teardown error: ${err.message}`);
      }
    }
  }
  result.ms = Date.now() - started;
  return result;
}

/**
 * Repeats every failing test's diagnostics just above the summary: a long run's log is often read
 * from its end (CI keeps the tail), where a failure streamed half an hour earlier is out of sight.
 */
function reportFailures(rows) {
  const failing = rows.filter((r) => r.failures?.length > 0);
  if (failing.length === 0) return;
  console.log(`\n${bold("━━ failing tests ".padEnd(100, "━"))}`);
  for (const r of failing) {
    for (const failure of r.failures.slice(0, MAX_FAILURES_SHOWN)) {
      const text =
        failure.length > MAX_FAILURE_CHARS ? `${failure.slice(0, MAX_FAILURE_CHARS)}\n  …` : failure;
      console.log(red(`${r.suite.title}: ${text}`));
    }
    const more = r.failures.length - MAX_FAILURES_SHOWN;
    if (more > 0) console.log(red(`${r.suite.title}: ${more} more failing tests above`));
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const suites = SUITES.filter(opts.selected);
  const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "guard-test-"));

  const onSignal = (signal) => {
    if (interrupted) {
      // Second Ctrl-C: stop waiting. The cluster's exit hook and watchdog still shut postgres down.
      for (const child of running) killGroup(child, "SIGKILL");
      fs.rmSync(tmpDir, { recursive: true, force: true });
      process.exit(130);
    }
    interrupted = signal;
    console.error(red(`\n${signal}: stopping (again to force)`));
    for (const child of running) {
      killGroup(child, "SIGTERM");
      setTimeout(() => killGroup(child, "SIGKILL"), KILL_GRACE_MS).unref();
    }
  };
  for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(s, onSignal);

  const rows = [];
  const started = Date.now();
  try {
    for (const batch of batches(suites)) {
      if (interrupted) break;
      const outputs = batch.map(() => new SuiteOutput());
      const runs = runLanes(
        batch,
        (suite, i) =>
          runSuite(suite, {
            index: suites.indexOf(suite) + 1,
            total: suites.length,
            tmpDir,
            timeoutMin: opts.timeoutMin,
            out: outputs[i],
            beside: besideOf(batch, suite),
          }),
        { stopped: () => Boolean(interrupted), skip: () => ({ skipped: "interrupted" }) },
      );
      // The terminal goes to each suite of the batch in turn: what a later one printed meanwhile
      // comes out when the one before it ends.
      for (const [i, run] of runs.entries()) {
        outputs[i].goLive();
        rows.push({ suite: batch[i], ...(await run) });
      }
    }
  } finally {
    fs.rmSync(tmpDir, { recursive: true, force: true });
  }

  const passed = rows.reduce((n, r) => n + (r.passed ?? 0), 0);
  const failed = rows.reduce((n, r) => n + (r.failed ?? 0), 0) + (interrupted ? 1 : 0);
  const width = Math.max(...SUITES.map((s) => s.title.length)) + 2;
  reportFailures(rows);
  console.log(`\n${bold("━━ summary ".padEnd(100, "━"))}`);
  for (const r of rows) {
    const name = r.suite.title.padEnd(width);
    if (r.skipped) {
      console.log(dim(`${name}skipped: ${r.skipped}`));
      continue;
    }
    const line = `${name}${String(r.passed).padStart(6)} passed ${String(r.failed).padStart(5)} failed ${seconds(r.ms).padStart(9)}`;
    console.log(r.failed ? red(line) : line);
    for (const note of r.notes) console.log(red(`${"".padEnd(width)}  ↳ ${note}`));
  }
  if (interrupted) console.log(red(`${"interrupted".padEnd(width)}(${interrupted}; counted as 1 failed)`));
  console.log(
    bold(
      `${"total".padEnd(width)}${String(passed).padStart(6)} passed ${String(failed).padStart(5)} failed ${seconds(Date.now() - started).padStart(9)}`,
    ),
  );
  // The last line of output, exactly: "<N> passed, <M> failed".
  process.stdout.write(`${passed} passed, ${failed} failed\n`);
  process.exit(interrupted ? 130 : failed > 0 ? 1 : 0);
}

await main();
