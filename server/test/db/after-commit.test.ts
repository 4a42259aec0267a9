// afterCommit (db/database.ts): a signal registered inside a transaction runs once its COMMIT has
// succeeded, when another session can already see what it announces; never after a rollback; at
// once outside a transaction. The webhook outbox wakes its workers this way.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { afterCommit, type Database } from "../../src/db/database.js";
import { openEmptyTestDatabase } from "../support/harness.js";

describe("afterCommit", () => {
  let db: Database;
  let drop: () => Promise<void>;
  before(async () => {
    ({ db, drop } = await openEmptyTestDatabase());
    await db.query("CREATE TABLE announced (id text PRIMARY KEY)");
  });
  after(async () => {
    await db.close();
    await drop();
  });

  test("runs after COMMIT, when a read outside the transaction already sees the row", async () => {
    const seen: number[] = [];
    let ranInside = false;
    const checks: Promise<void>[] = [];
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO announced (id) VALUES ('a')");
      afterCommit(tx, () => {
        checks.push(
          db.query<{ n: number }>("SELECT count(*)::int AS n FROM announced WHERE id = 'a'").then(([row]) => {
            seen.push(row!.n);
          }),
        );
      });
      await tx.query("SELECT 1");
      ranInside = checks.length > 0;
    });
    assert.equal(ranInside, false, "nothing runs before COMMIT");
    assert.equal(checks.length, 1);
    await Promise.all(checks);
    assert.deepEqual(seen, [1]);
  });

  test("never runs when the transaction rolls back", async () => {
    let ran = false;
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO announced (id) VALUES ('b')");
        afterCommit(tx, () => {
          ran = true;
        });
        throw new Error("changed my mind");
      }),
      /changed my mind/,
    );
    assert.equal(ran, false);
    // A failing COMMIT (a deferred constraint, say) is a rollback too; here: a statement error.
    await assert.rejects(
      db.transaction(async (tx) => {
        afterCommit(tx, () => {
          ran = true;
        });
        await tx.query("INSERT INTO announced (id) VALUES ('a')");
      }),
    );
    assert.equal(ran, false);
  });

  test("runs at once outside a transaction", () => {
    let ran = false;
    afterCommit(db, () => {
      ran = true;
    });
    assert.equal(ran, true);
  });
});
