// GroupCommit (lib/group-commit.ts): how items are grouped, how many groups are outstanding, and
// how a failing write reaches only its own group's callers.
import assert from "node:assert/strict";
import { test } from "node:test";
import { GroupCommit } from "../../src/lib/group-commit.js";

/** A writer whose calls stay pending until released, recording the groups it received. */
function controlledWriter() {
  const groups: number[][] = [];
  const releases: Array<(fail?: Error) => void> = [];
  let outstanding = 0;
  let maxOutstanding = 0;
  const write = (items: number[]) =>
    new Promise<number[]>((resolve, reject) => {
      groups.push(items);
      outstanding += 1;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      releases.push((fail) => {
        outstanding -= 1;
        if (fail) reject(fail);
        else resolve(items.map((i) => i * 10));
      });
    });
  return { write, groups, releases, maxOutstanding: () => maxOutstanding };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test("items submitted in the same turn leave as one group; each caller gets its own result", async () => {
  const writer = controlledWriter();
  const commit = new GroupCommit(writer.write, { maxGroupSize: 100, maxInFlight: 1 });
  const answers = Promise.all([1, 2, 3].map((i) => commit.submit(i)));
  await turn();
  assert.deepEqual(writer.groups, [[1, 2, 3]]);
  writer.releases[0]!();
  assert.deepEqual(await answers, [10, 20, 30]);
});

test("while maxInFlight groups are being written, the next group keeps growing", async () => {
  const writer = controlledWriter();
  const commit = new GroupCommit(writer.write, { maxGroupSize: 100, maxInFlight: 1 });
  const first = commit.submit(1);
  await turn();
  const later = [commit.submit(2), commit.submit(3)];
  await turn();
  const last = commit.submit(4);
  await turn();
  assert.deepEqual(writer.groups, [[1]], "nothing else leaves while the first group is written");
  writer.releases[0]!();
  assert.equal(await first, 10);
  while (writer.groups.length < 2) await turn();
  assert.deepEqual(writer.groups, [[1], [2, 3, 4]]);
  writer.releases[1]!();
  assert.deepEqual(await Promise.all([...later, last]), [20, 30, 40]);
  assert.equal(writer.maxOutstanding(), 1);
});

test("groups are capped at maxGroupSize and at most maxInFlight are outstanding", async () => {
  const writer = controlledWriter();
  const commit = new GroupCommit(writer.write, { maxGroupSize: 2, maxInFlight: 2 });
  const answers = Promise.all([1, 2, 3, 4, 5, 6, 7].map((i) => commit.submit(i)));
  await turn();
  assert.deepEqual(writer.groups, [
    [1, 2],
    [3, 4],
  ]);
  // Release each group as it appears until all seven items have been written.
  for (let released = 0; released < 4; released += 1) {
    while (writer.releases.length <= released) await turn();
    writer.releases[released]!();
  }
  assert.deepEqual(await answers, [10, 20, 30, 40, 50, 60, 70]);
  assert.deepEqual(writer.groups, [[1, 2], [3, 4], [5, 6], [7]]);
  assert.equal(writer.maxOutstanding(), 2);
});

test("a failed write rejects its own group's callers only", async () => {
  const writer = controlledWriter();
  const commit = new GroupCommit(writer.write, { maxGroupSize: 2, maxInFlight: 2 });
  const doomed = [commit.submit(1), commit.submit(2)];
  const fine = [commit.submit(3), commit.submit(4)];
  await turn();
  writer.releases[0]!(new Error("disk full"));
  writer.releases[1]!();
  for (const answer of doomed) await assert.rejects(answer, /disk full/);
  assert.deepEqual(await Promise.all(fine), [30, 40]);
  // The queue keeps working after a failure.
  const after = commit.submit(5);
  while (writer.releases.length < 3) await turn();
  writer.releases[2]!();
  assert.equal(await after, 50);
});

test("a writer answering the wrong number of results fails that group loudly", async () => {
  const commit = new GroupCommit<number, number>(async () => [1], { maxGroupSize: 10, maxInFlight: 1 });
  const answers = [commit.submit(1), commit.submit(2)];
  for (const answer of answers) await assert.rejects(answer, /1 results for 2 items/);
});
