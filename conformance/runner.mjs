// The scenario runner every JavaScript adapter of the conformance suite shares (run-node.mjs for
// @guard/server, run-js.mjs for @guard/js): values, matching, steps, the expected-failure list and
// the report. An adapter supplies its SDK (see runConformance). The scenario format and the adapter
// contract are in conformance/README.md.
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

// ----- arguments ---------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { only: [], verbose: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--only") opts.only.push(...(argv[++i] ?? "").split(",").filter(Boolean));
    else if (argv[i] === "--verbose") opts.verbose = true;
    else throw new Error(`unknown argument ${argv[i]} (use --only <id>, --verbose)`);
  }
  return opts;
}

class StepFailure extends Error {}

// ----- values and matching -----------------------------------------------------------------------

function isPlainObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const VALUE_FORMS = ["$fixture", "$ref", "$unique", "$concat"];

/** Resolves `$fixture`, `$ref`, `$unique` and `$concat` anywhere inside `value`. */
function resolve(value, scope) {
  if (Array.isArray(value)) return value.map((v) => resolve(v, scope));
  if (!isPlainObject(value)) return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && VALUE_FORMS.includes(keys[0])) {
    const [form] = keys;
    const arg = value[form];
    if (form === "$fixture") {
      if (!(arg in scope.fixtures)) throw new StepFailure(`no fixture ${arg}`);
      if (scope.fixtures[arg] === null) {
        throw new StepFailure(`fixture ${arg} is null (${scope.fixtures.notes?.join("; ") || "no note"})`);
      }
      return scope.fixtures[arg];
    }
    if (form === "$ref") {
      if (!(arg in scope.vars)) throw new StepFailure(`no value named ${arg} (not in let, not captured)`);
      return scope.vars[arg];
    }
    if (form === "$unique") return `${arg}-${scope.runId}-${++scope.counter}`;
    return resolve(arg, scope)
      .map((part) => String(part))
      .join("");
  }
  return Object.fromEntries(keys.map((k) => [k, resolve(value[k], scope)]));
}

const OPERATORS = ["$type", "$absent", "$contains", "$length", "$regex", "$not", "$all"];

function typeOf(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function deepEqual(a, b) {
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}
function canonical(value) {
  if (Array.isArray(value)) return value.map(canonical);
  if (isPlainObject(value)) {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical(value[k])]),
    );
  }
  return value;
}

/** Returns undefined when `actual` matches `expected`, else a message naming where it differs. */
function mismatch(actual, expected, scope, where = "result") {
  if (isPlainObject(expected)) {
    const keys = Object.keys(expected);
    if (keys.length === 1 && VALUE_FORMS.includes(keys[0])) {
      const wanted = resolve(expected, scope);
      return deepEqual(actual, wanted)
        ? undefined
        : `${where}: expected ${JSON.stringify(wanted)}, got ${JSON.stringify(actual)}`;
    }
    if (keys.length === 1 && OPERATORS.includes(keys[0]))
      return operator(actual, keys[0], expected[keys[0]], scope, where);
    if (!isPlainObject(actual)) return `${where}: expected an object, got ${JSON.stringify(actual)}`;
    for (const key of keys) {
      const sub = expected[key];
      const absentWanted = isPlainObject(sub) && Object.keys(sub).length === 1 && "$absent" in sub;
      if (!(key in actual)) {
        if (absentWanted) continue;
        return `${where}.${key}: missing`;
      }
      const problem = mismatch(actual[key], sub, scope, `${where}.${key}`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${where}: expected an array, got ${JSON.stringify(actual)}`;
    if (actual.length !== expected.length) {
      return `${where}: expected ${expected.length} items, got ${actual.length}: ${JSON.stringify(actual)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const problem = mismatch(actual[i], expected[i], scope, `${where}.${i}`);
      if (problem) return problem;
    }
    return undefined;
  }
  return actual === expected
    ? undefined
    : `${where}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

function operator(actual, name, arg, scope, where) {
  switch (name) {
    case "$type":
      return typeOf(actual) === arg || (arg === "number" && typeOf(actual) === "integer")
        ? undefined
        : `${where}: expected a ${arg}, got ${JSON.stringify(actual)}`;
    case "$absent":
      return `${where}: expected no such key, got ${JSON.stringify(actual)}`;
    case "$contains":
      if (!Array.isArray(actual)) return `${where}: expected an array, got ${JSON.stringify(actual)}`;
      return actual.some((item) => mismatch(item, arg, scope, where) === undefined)
        ? undefined
        : `${where}: no element matches ${JSON.stringify(arg)} in ${JSON.stringify(actual)}`;
    case "$length":
      return (Array.isArray(actual) || typeof actual === "string") && actual.length === arg
        ? undefined
        : `${where}: expected length ${arg}, got ${JSON.stringify(actual)}`;
    case "$regex":
      return typeof actual === "string" && new RegExp(arg).test(actual)
        ? undefined
        : `${where}: expected a string matching /${arg}/, got ${JSON.stringify(actual)}`;
    case "$not":
      return mismatch(actual, arg, scope, where) === undefined
        ? `${where}: expected not ${JSON.stringify(arg)}, got ${JSON.stringify(actual)}`
        : undefined;
    case "$all":
      for (const each of arg) {
        const problem = mismatch(actual, each, scope, where);
        if (problem) return problem;
      }
      return undefined;
    default:
      throw new StepFailure(`unknown matcher ${name}`);
  }
}

function pick(value, dotted) {
  if (dotted === "") return value;
  let current = value;
  for (const part of dotted.split(".")) {
    if (current === null || typeof current !== "object" || !(part in current)) {
      throw new StepFailure(`cannot capture ${dotted}: ${part} is missing in ${JSON.stringify(value)}`);
    }
    current = current[part];
  }
  return current;
}

// ----- running a scenario ------------------------------------------------------------------------

const CLIENT_OPTION_NAMES = ["baseUrl", "apiKey", "accessToken", "timeoutMs", "maxRetries"];

function buildClient(adapter, spec, scope) {
  const resolved = resolve(spec, scope);
  for (const name of Object.keys(resolved)) {
    if (!CLIENT_OPTION_NAMES.includes(name)) throw new StepFailure(`unknown client option ${name}`);
  }
  return adapter.buildClient(resolved);
}

/** An error as a scenario sees it. Every SDK of the family names its errors alike. */
function describeError(error) {
  if (error?.name === "GuardApiError") {
    return {
      type: error.name,
      status: error.status,
      code: error.code,
      message: error.message,
      requestId: error.requestId,
    };
  }
  return { type: error?.name ?? typeof error, message: String(error?.message ?? error) };
}

async function callFixture(step, scope) {
  const body = resolve(step.with ?? {}, scope);
  const response = await fetch(`${scope.fixtures.controlUrl}/${step.fixture}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok)
    throw new StepFailure(`fixture ${step.fixture} answered ${response.status}: ${json?.error ?? text}`);
  return json;
}

async function callSdk(adapter, step, scope) {
  const args = resolve(step.args ?? [], scope);
  if (step.call in adapter.helpers) return adapter.helpers[step.call](...args);
  const client = scope.clients[step.client ?? "default"];
  if (!client) throw new StepFailure(`no client ${step.client ?? "default"}`);
  const arity = adapter.clientMethods[step.call];
  if (arity === undefined) throw new StepFailure(`unknown method ${step.call}`);
  if (args.length > arity) throw new StepFailure(`${step.call} takes ${arity} arguments, got ${args.length}`);
  const padded = [...args, ...Array(arity - args.length).fill(undefined)];
  const options = step.options === undefined ? [] : [resolve(step.options, scope)];
  return adapter.call(client, step.call, [...padded, ...options]);
}

async function runStep(adapter, step, scope) {
  let outcome;
  try {
    const value =
      step.fixture !== undefined ? await callFixture(step, scope) : await callSdk(adapter, step, scope);
    outcome = { ok: true, value: value === undefined ? null : JSON.parse(JSON.stringify(value)) };
  } catch (error) {
    if (error instanceof StepFailure) throw error;
    outcome = { ok: false, value: describeError(error) };
  }
  const expect = step.expect ?? {};
  if ("error" in expect) {
    if (outcome.ok) throw new StepFailure(`expected an error, got ${JSON.stringify(outcome.value)}`);
    const problem = mismatch(outcome.value, expect.error, scope, "error");
    if (problem) throw new StepFailure(problem);
  } else {
    if (!outcome.ok) throw new StepFailure(`unexpected ${JSON.stringify(outcome.value)}`);
    const problem = "result" in expect ? mismatch(outcome.value, expect.result, scope, "result") : undefined;
    if (problem) throw new StepFailure(problem);
  }
  for (const [name, dotted] of Object.entries(step.capture ?? {}))
    scope.vars[name] = pick(outcome.value, dotted);
}

async function runScenario(adapter, scenario, fixtures, verbose) {
  const scope = {
    fixtures,
    vars: {},
    clients: {},
    runId: `${adapter.name}${randomBytes(4).toString("hex")}`,
    counter: 0,
  };
  for (const [name, value] of Object.entries(scenario.let ?? {})) scope.vars[name] = resolve(value, scope);
  for (const [name, spec] of Object.entries(scenario.clients ?? {}))
    scope.clients[name] = buildClient(adapter, spec, scope);
  for (const [index, step] of scenario.steps.entries()) {
    const label = `step ${index + 1} (${step.call ?? `fixture ${step.fixture}`})`;
    if (verbose) console.log(`  ${scenario.id} ${label}`);
    try {
      await runStep(adapter, step, scope);
    } catch (error) {
      throw new StepFailure(`${label}: ${error.message}`);
    }
  }
}

// ----- main --------------------------------------------------------------------------------------

/**
 * Runs every scenario with `adapter` and prints the report (conformance/README.md "Running it"):
 * - `name`: the SDK's id, naming its list `expected-failures/<name>.json`;
 * - `buildClient(options)`: a client from the scenario's client options;
 * - `clientMethods`: method name → how many positional arguments come before the request options;
 * - `call(client, method, args)`: calls one of them (`setAccessToken` included);
 * - `helpers`: the pure helpers, by name;
 * - `skipReason(scenario)` (optional): why a scenario is outside the SDK's surface, or undefined.
 *   A skipped scenario counts as neither passed nor failed; listing it as an expected failure is
 *   an error (it never runs, so the entry could never go stale).
 */
export async function runConformance(adapter) {
  const SDK_NAME = adapter.name;
  const opts = parseArgs(process.argv.slice(2));
  const raw = process.env.GUARD_CONFORMANCE_FIXTURES;
  if (!raw) throw new Error("GUARD_CONFORMANCE_FIXTURES is not set (start conformance/fixture-server.mjs)");
  const fixtures = JSON.parse(raw);

  const dir = path.join(here, "scenarios");
  const scenarios = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")));
  const known = new Set(scenarios.map((s) => s.id));
  const listFile = path.join(here, "expected-failures", `${SDK_NAME}.json`);
  const expected = fs.existsSync(listFile)
    ? JSON.parse(fs.readFileSync(listFile, "utf8")).expectedFailures
    : [];
  const expectedIds = new Map(expected.map((e) => [e.id, e.reason]));

  let passed = 0;
  let failed = 0;
  let skipped = 0;
  for (const id of expectedIds.keys()) {
    if (!known.has(id)) {
      console.log(`FAIL ${id}: listed in expected-failures/${SDK_NAME}.json but no such scenario`);
      failed++;
    }
  }
  for (const scenario of scenarios) {
    if (opts.only.length > 0 && !opts.only.includes(scenario.id)) continue;
    const skip = adapter.skipReason?.(scenario);
    if (skip !== undefined) {
      if (expectedIds.has(scenario.id)) {
        console.log(
          `FAIL ${scenario.id}: skipped (${skip}) but listed in expected-failures/${SDK_NAME}.json`,
        );
        failed++;
      } else {
        console.log(`SKIP ${scenario.id}: ${skip}`);
        skipped++;
      }
      continue;
    }
    let problem;
    try {
      await runScenario(adapter, scenario, fixtures, opts.verbose);
    } catch (error) {
      problem = error instanceof StepFailure ? error.message : `adapter error: ${error?.stack ?? error}`;
    }
    const listed = expectedIds.has(scenario.id);
    if (!problem && !listed) {
      console.log(`PASS ${scenario.id}`);
      passed++;
    } else if (!problem && listed) {
      console.log(
        `STALE ${scenario.id}: passes but is listed in expected-failures/${SDK_NAME}.json; remove it`,
      );
      failed++;
    } else if (listed) {
      console.log(`XFAIL ${scenario.id}: ${problem} (listed: ${expectedIds.get(scenario.id)})`);
    } else {
      console.log(`FAIL ${scenario.id}: ${problem}`);
      failed++;
    }
  }
  if (skipped > 0)
    console.log(`skipped ${skipped} scenario${skipped === 1 ? "" : "s"} outside the SDK's surface`);
  console.log(`conformance: ${passed} passed, ${failed} failed`);
  process.exitCode = failed === 0 ? 0 : 1;
}
