// Suites side by side: which selected suites form one batch, and that the output of suites running
// at once reaches the terminal whole, one suite after the other, in order.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { batches, beside, besideOf, runLanes, SuiteOutput } from "../lib/suite-batches.mjs";

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

describe("lanes", () => {
  const titled = (id: string) => ({ id, title: id });
  const batch = beside(
    [titled("reliability-pglite"), titled("reliability-postgres"), titled("jvm-sdk")],
    [titled("fuzz-pglite"), titled("fuzz-postgres")],
  );

  test("beside() with arrays: one batch, each array a lane, in the order given", () => {
    assert.deepEqual(
      batches([titled("static"), ...batch, titled("banner")]).map((b) => b.map((s) => s.id)),
      [
        ["static"],
        ["reliability-pglite", "reliability-postgres", "jvm-sdk", "fuzz-pglite", "fuzz-postgres"],
        ["banner"],
      ],
    );
  });

  test("a suite runs beside the other lanes, not beside its own", () => {
    assert.deepEqual(besideOf(batch, batch[1]!), ["fuzz-pglite → fuzz-postgres"]);
    assert.deepEqual(besideOf(batch, batch[3]!), ["reliability-pglite → reliability-postgres → jvm-sdk"]);
    const pair = beside(titled("a"), titled("b"), titled("c"));
    assert.deepEqual(besideOf(pair, pair[0]!), ["b", "c"]);
  });

  test("the lanes run at once; a lane's suites one after the other; results in the batch's order", async () => {
    const events: string[] = [];
    const gates = new Map<string, () => void>();
    const results = runLanes(batch, (suite: { id: string }) => {
      events.push(`start ${suite.id}`);
      return new Promise((resolve) =>
        gates.set(suite.id, () => {
          events.push(`end ${suite.id}`);
          resolve(suite.id);
        }),
      );
    });
    const settle = () => new Promise((resolve) => setImmediate(resolve));
    await settle();
    assert.deepEqual(events, ["start reliability-pglite", "start fuzz-pglite"]);
    gates.get("fuzz-pglite")!();
    await settle();
    assert.deepEqual(events.slice(2), ["end fuzz-pglite", "start fuzz-postgres"]);
    for (const id of ["reliability-pglite", "reliability-postgres", "jvm-sdk", "fuzz-postgres"]) {
      await settle();
      gates.get(id)!();
    }
    assert.deepEqual(
      await Promise.all(results),
      batch.map((s) => s.id),
    );
  });

  test("once stopped, a lane starts no further suite; those resolve to the skip result", async () => {
    let stop = false;
    const started: string[] = [];
    const results = runLanes(
      batch,
      async (suite: { id: string }) => {
        started.push(suite.id);
        await new Promise((resolve) => setImmediate(resolve));
        stop = true; // interrupted while the lanes' first suites run
        return suite.id;
      },
      { stopped: () => stop, skip: (suite: { id: string }) => `skipped ${suite.id}` },
    );
    assert.deepEqual(await Promise.all(results), [
      "reliability-pglite",
      "skipped reliability-postgres",
      "skipped jvm-sdk",
      "fuzz-pglite",
      "skipped fuzz-postgres",
    ]);
    assert.deepEqual(started, ["reliability-pglite", "fuzz-pglite"]);
  });
});
