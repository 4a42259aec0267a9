// The parsers that turn each tool's output into the run's counts, and the failure report above the
// summary: fed real output shapes, including the ways a count could be spoofed or lost.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { failedNodeTapTests, parseConformance, parseNodeTap, parsePytest } from "../lib/result-parsers.mjs";

const TAP = `TAP version 13
# Subtest: outer
    # Subtest: inner fails
    not ok 1 - inner fails
      ---
      duration_ms: 1.2
      location: '/repo/a.test.ts:3:27'
      failureType: 'testCodeFailure'
      error: |-
        Expected values to be strictly equal:

        1 !== 2
      code: 'ERR_ASSERTION'
      ...
    # Subtest: ok
    ok 2 - ok
      ---
      duration_ms: 0.08
      ...
    1..2
not ok 1 - outer
  ---
  duration_ms: 1.9
  type: 'suite'
  failureType: 'subtestsFailed'
  error: '1 subtest failed'
  ...
not ok 2 - top-level timeout
  ---
  failureType: 'testTimeoutFailure'
  error: 'test timed out after 100ms'
  ...
1..2
# tests 3
# pass 1
# fail 2
# cancelled 1
`;

describe("Node TAP", () => {
  test("counts pass, and fail plus cancelled as failed, from the last summary", () => {
    assert.deepEqual(parseNodeTap(`# pass 99\n# fail 0\n${TAP}`), { passed: 1, failed: 3 });
    assert.equal(parseNodeTap("no summary here"), null);
  });

  test("repeats each failing test with its diagnostics, leaving out suites that failed through a subtest", () => {
    const failures = failedNodeTapTests(TAP);
    assert.equal(failures.length, 2);
    assert.match(failures[0]!, /^not ok 1 - inner fails\n/);
    assert.match(failures[0]!, /1 !== 2/);
    assert.match(failures[0]!, /a\.test\.ts:3:27/);
    assert.doesNotMatch(failures[0]!, /ok 2 - ok/, "the block ends at its own `...`");
    assert.match(failures[1]!, /^not ok 2 - top-level timeout\n[\s\S]*timed out after 100ms/);
    assert.deepEqual(failedNodeTapTests("TAP version 13\nok 1 - fine\n# pass 1\n# fail 0\n"), []);
  });
});

describe("other tools", () => {
  test("pytest's final line, errors counted as failed", () => {
    assert.deepEqual(parsePytest("==== 2 failed, 10 passed, 1 skipped, 1 error in 1.23s ===="), {
      passed: 10,
      failed: 3,
    });
    assert.deepEqual(parsePytest("3 passed in 0.41s"), { passed: 3, failed: 0 });
  });

  test("the conformance adapters' line, the last one winning", () => {
    assert.deepEqual(parseConformance("conformance: 9 passed, 0 failed\nconformance: 3 passed, 1 failed\n"), {
      passed: 3,
      failed: 1,
    });
  });
});
