// Suites side by side: which selected suites form one batch, and that the output of suites running
// at once reaches the terminal whole, one suite after the other, in order.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { batches, beside, SuiteOutput } from "../lib/suite-batches.mjs";

const suite = (id: string) => ({ id });

describe("batches", () => {
  const list = [
    suite("static"),
    ...beside(suite("reliability-pglite"), suite("fuzz-pglite")),
    ...beside(suite("reliability-postgres"), suite("fuzz-postgres")),
    suite("node-sdk"),
  ];
  const ids = (grouped: { id: string }[][]) => grouped.map((batch) => batch.map((s) => s.id));

  test("the suites of one beside() run together; two beside() calls in a row stay two batches", () => {
    assert.deepEqual(ids(batches(list)), [
      ["static"],
      ["reliability-pglite", "fuzz-pglite"],
      ["reliability-postgres", "fuzz-postgres"],
      ["node-sdk"],
    ]);
  });

  test("a selection that keeps one suite of a pair runs it alone", () => {
    const selected = list.filter((s) => !s.id.startsWith("fuzz"));
    assert.deepEqual(ids(batches(selected)), [
      ["static"],
      ["reliability-pglite"],
      ["reliability-postgres"],
      ["node-sdk"],
    ]);
  });
});

describe("SuiteOutput", () => {
  function terminal() {
    const written: string[] = [];
    return {
      written,
      stdout: { write: (chunk: string) => written.push(`out:${chunk}`) },
      stderr: { write: (chunk: string) => written.push(`err:${chunk}`) },
    };
  }

  test("holds everything until it goes live, then prints it in order and passes the rest through", () => {
    const term = terminal();
    const output = new SuiteOutput(term);
    output.log("header");
    output.stderr.write("warning\n");
    output.stdout.write("partial");
    assert.deepEqual(term.written, []);
    output.goLive();
    assert.deepEqual(term.written, ["out:header\n", "err:warning\n", "out:partial"]);
    output.error("late");
    assert.deepEqual(term.written.at(-1), "err:late\n");
  });

  test("two suites at once: the second's output follows the first's whole, never inside it", () => {
    const term = terminal();
    const [first, second] = [new SuiteOutput(term), new SuiteOutput(term)];
    first.goLive();
    first.log("first 1");
    second.log("second 1");
    first.log("first 2");
    second.log("second 2");
    // The first suite ends; the terminal goes to the second.
    second.goLive();
    second.log("second 3");
    assert.deepEqual(term.written, [
      "out:first 1\n",
      "out:first 2\n",
      "out:second 1\n",
      "out:second 2\n",
      "out:second 3\n",
    ]);
  });
});
