// Parsers that turn a test tool's output into { passed, failed } counts, or null when the output
// holds no recognisable summary. Skipped/todo tests count as neither.
//
// Each parser takes ({ output, exitCode, files }) where output is the step's combined stdout+stderr
// and files maps names to the contents of files the step wrote (e.g. the TAP report).

const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g; // eslint-disable-line no-control-regex

const stripAnsi = (text) => text.replace(ANSI, "");

/** The last match of a global, multiline regex, or null. */
function lastMatch(text, regex) {
  let last = null;
  for (const m of text.matchAll(regex)) last = m;
  return last;
}

/** One check: passed when the command exited 0. */
export function exitCodeResult({ exitCode }) {
  return exitCode === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 };
}

/**
 * Node's TAP reporter summary (`# pass N`, `# fail N`, `# cancelled N` at the end of the report).
 * Cancelled tests (timeouts, a file that never finished) count as failed. The last occurrence wins,
 * so test output echoed into the TAP stream as `# ...` comments cannot spoof it.
 */
export function parseNodeTap(tap) {
  const text = stripAnsi(tap);
  const count = (key) => {
    const m = lastMatch(text, new RegExp(`^# ${key} (\\d+)\\s*$`, "gm"));
    return m ? Number(m[1]) : null;
  };
  const pass = count("pass");
  const fail = count("fail");
  if (pass === null || fail === null) return null;
  return { passed: pass, failed: fail + (count("cancelled") ?? 0) };
}

/** The `fuzz: N passed, M failed` line printed by scripts/fuzz.mjs. */
export function parseFuzz(output) {
  const m = lastMatch(stripAnsi(output), /^\s*fuzz: (\d+) passed, (\d+) failed\s*$/gm);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}

/** The `conformance: N passed, M failed` line every conformance adapter ends with (conformance/README.md). */
export function parseConformance(output) {
  const m = lastMatch(stripAnsi(output), /^\s*conformance: (\d+) passed, (\d+) failed\s*$/gm);
  return m ? { passed: Number(m[1]), failed: Number(m[2]) } : null;
}

/**
 * pytest's final summary line, with or without `-q` framing, e.g.
 *   `===== 2 failed, 10 passed, 1 skipped, 1 error in 1.23s =====`  or  `3 passed in 0.41s`.
 * Errors (collection or fixture errors) count as failed; xfail/xpass/skip/deselect count as neither.
 */
export function parsePytest(output) {
  const lines = stripAnsi(output).split("\n");
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i].trim();
    if (!/\bin [\d.]+s\b/.test(line)) continue;
    if (/^=*\s*no tests ran\b/.test(line)) return { passed: 0, failed: 0 };
    const counts = {};
    for (const m of line.matchAll(
      /(\d+) (passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?)\b/g,
    )) {
      counts[m[2]] = (counts[m[2]] ?? 0) + Number(m[1]);
    }
    if (Object.keys(counts).length === 0) continue;
    return {
      passed: counts.passed ?? 0,
      failed: (counts.failed ?? 0) + (counts.error ?? 0) + (counts.errors ?? 0),
    };
  }
  return null;
}

/**
 * Maven Surefire/Failsafe. Each module's `Results:` block ends with a totals line
 *   `[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 2`
 * (per-class lines add `, Time elapsed: ...` and are ignored; a trailing `, Flakes: N` is allowed).
 * Totals of all modules are summed.
 */
export function parseSurefire(output) {
  const re =
    /^(?:\[\w+\]\s*)?Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)(?:, Flakes: \d+)?\s*$/gm;
  let found = false;
  let passed = 0;
  let failed = 0;
  for (const m of stripAnsi(output).matchAll(re)) {
    const [run, failures, errors, skipped] = m.slice(1).map(Number);
    found = true;
    failed += failures + errors;
    passed += run - failures - errors - skipped;
  }
  return found ? { passed, failed } : null;
}

/**
 * The failing tests of a Node TAP report, each as its `not ok` line and YAML diagnostics (error,
 * location, stack), so a run can repeat them where a reader of its last lines will see them.
 * Suites that failed only because a subtest did are left out: the subtest's own block says why.
 */
export function failedNodeTapTests(tap) {
  const lines = stripAnsi(tap).split("\n");
  const failures = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^(\s*)not ok \d+ - (.*)$/.exec(lines[i]);
    if (!head) continue;
    const block = [lines[i].trim()];
    const end = `${head[1]}  ...`;
    for (let j = i + 1; j < lines.length && lines[j] !== end; j++) {
      if (lines[j].trim() !== "" && !lines[j].startsWith(`${head[1]}  `)) break;
      block.push(lines[j].slice(head[1].length));
    }
    if (block.some((line) => /failureType: 'subtestsFailed'/.test(line))) continue;
    failures.push(block.join("\n"));
  }
  return failures;
}
