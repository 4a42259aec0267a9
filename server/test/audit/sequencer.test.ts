// The audit sequencer (audit/sequencer.ts): writers queue entries without a lock and the sequencer
// links them into each organisation's chain in batches. A pass that dies at any point links
// nothing (the entries stay queued for the next pass), no entry is ever linked twice, passes of
// several instances at once give one unforked chain, and an entry left queued by an instance that
// died is linked by another instance's next poll.
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { createOrganization } from "../../src/accounts/organizations.js";
import { appendAuditEntry, GENESIS_HASH } from "../../src/audit/chain.js";
import { linkAllQueued, linkQueuedEntries, startAuditSequencer } from "../../src/audit/sequencer.js";
import {
  linkEntries,
  organizationsWithQueuedEntries,
  queueEntry,
  readChainPage,
} from "../../src/audit/store.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { testConfig } from "../../src/config.js";
import type { Database, Queryable } from "../../src/db/database.js";
import { assertOneUnforkedChain } from "../support/audit-chain.js";
import { startSecondInstance, startTestApp, type TestApp } from "../support/harness.js";

const ENTRY_TYPE = "test.sequenced";

async function newOrganization(t: TestApp): Promise<string> {
  const slug = `seq-${Math.random().toString(36).slice(2, 10)}`;
  return (await createOrganization(t.db, { slug, name: slug }, t.clock.now())).organizationId;
}

/** Queues `count` entries, one transaction each, the way writers do. Their references. */
async function queue(db: Database, organizationId: string, count: number, label = "e"): Promise<number[]> {
  const refs: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const { entryRef } = await db.transaction((tx) =>
      appendAuditEntry(
        tx,
        { organizationId, entryType: ENTRY_TYPE, subjectId: `${label}-${i}`, payload: { i } },
        1_000 + i,
      ),
    );
    refs.push(entryRef);
  }
  return refs;
}

async function queuedCount(db: Database, organizationId: string): Promise<number> {
  const [row] = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM audit_queue WHERE organization_id = $1",
    [organizationId],
  );
  return row!.n;
}

class SimulatedCrash extends Error {}

/**
 * `db` whose transactions die at their `failAt`-th statement (1-based), or just before COMMIT when
 * `failAt` is past the last one: what a process killed mid-pass leaves behind.
 */
function crashingAt(db: Database, failAt: number): Database {
  return {
    kind: db.kind,
    query: (sql, params, options) => db.query(sql, params, options),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
    transaction: (work) =>
      db.transaction(async (tx) => {
        let statements = 0;
        const dying: Queryable = {
          query: (sql, params, options) => {
            statements += 1;
            if (statements === failAt) throw new SimulatedCrash(`died at statement ${failAt}`);
            return tx.query(sql, params, options);
          },
        };
        await work(dying);
        throw new SimulatedCrash("died before COMMIT");
      }),
  };
}

describe("audit sequencer", () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  test("writers queue entries; a pass links them in reference order, one chain per organisation", async () => {
    const [a, b] = [await newOrganization(t), await newOrganization(t)];
    const refsA = await queue(t.db, a, 7, "a");
    const refsB = await queue(t.db, b, 3, "b");
    assert.equal(await queuedCount(t.db, a), 7);
    assert.equal((await readChainPage(t.db, a, 1, 10)).length, 0, "nothing is linked by the writers");
    await linkAllQueued(t.db, t.clock.now());
    assert.deepEqual(await assertOneUnforkedChain(t.db, a), refsA);
    assert.deepEqual(await assertOneUnforkedChain(t.db, b), refsB);
    assert.equal(await queuedCount(t.db, a), 0);
    // Later entries continue the same chain.
    const more = await queue(t.db, a, 2, "a2");
    await linkAllQueued(t.db, t.clock.now());
    assert.deepEqual(await assertOneUnforkedChain(t.db, a), [...refsA, ...more]);
  });

  test("the sweep finds every organisation with queued entries, up to its limit, whatever was deleted", async () => {
    await linkAllQueued(t.db, t.clock.now()); // nothing queued by earlier tests
    const organizations = [await newOrganization(t), await newOrganization(t), await newOrganization(t)];
    // Entries queued and linked (deleted from the queue) before and between the live ones.
    for (const organizationId of organizations) await queue(t.db, organizationId, 3, "gone");
    await linkAllQueued(t.db, t.clock.now());
    assert.deepEqual(await organizationsWithQueuedEntries(t.db, 10), []);
    for (const organizationId of organizations) await queue(t.db, organizationId, 2, "live");
    // In the database's collation order, which need not be JavaScript's: compared as sets.
    const found = await organizationsWithQueuedEntries(t.db, 10);
    assert.deepEqual([...found].sort(), [...organizations].sort());
    const limited = await organizationsWithQueuedEntries(t.db, 2);
    assert.deepEqual(limited, found.slice(0, 2));
    await linkAllQueued(t.db, t.clock.now());
  });

  test("a pass that dies at any point links nothing; the next links every entry exactly once", async () => {
    const organizationId = await newOrganization(t);
    const first = await queue(t.db, organizationId, 3, "first");
    await linkAllQueued(t.db, t.clock.now());
    const waiting = await queue(t.db, organizationId, 5, "waiting");
    // A pass is: lock the head, read the queue, write the entries, unqueue them, move the head.
    for (let failAt = 1; failAt <= 6; failAt += 1) {
      await assert.rejects(
        linkQueuedEntries(crashingAt(t.db, failAt), organizationId, t.clock.now()),
        SimulatedCrash,
      );
      assert.equal(await queuedCount(t.db, organizationId), 5, `still queued after dying at step ${failAt}`);
      assert.deepEqual(await assertOneUnforkedChain(t.db, organizationId), first, "the chain is untouched");
    }
    assert.equal(await linkQueuedEntries(t.db, organizationId, t.clock.now()), 5);
    assert.deepEqual(await assertOneUnforkedChain(t.db, organizationId), [...first, ...waiting]);
    assert.equal(
      await linkQueuedEntries(t.db, organizationId, t.clock.now()),
      0,
      "nothing is left to link twice",
    );
  });

  test("the chain refuses a queued entry linked a second time, and a position given twice", async () => {
    const organizationId = await newOrganization(t);
    const [ref] = await queue(t.db, organizationId, 1);
    await linkAllQueued(t.db, t.clock.now());
    const [linked] = await readChainPage(t.db, organizationId, 1, 1);
    // The same entry again (its one creation time, so its month): the month's unique index.
    await assert.rejects(
      t.db.query(
        `INSERT INTO audit_entries (organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
         VALUES ($1, 2, $2, $3, 'again', '{}', $4, $4, $5)`,
        [organizationId, ref, ENTRY_TYPE, linked!.entryHash, linked!.createdAt],
      ),
      /audit_entries_by_ref|duplicate key/,
    );
    const head = { lastSeq: 1, lastHash: linked!.entryHash };
    const again = (from: typeof head, entry: typeof linked) =>
      t.db.transaction((tx) => linkEntries(tx, organizationId, from, [entry!]));
    // Through the link statement, whatever month it would land in: it is no longer queued.
    const next = { ...linked!, seq: 2, prevHash: linked!.entryHash, createdAt: Date.UTC(2001, 0, 1) };
    await assert.rejects(again(head, next), /no longer queued/);
    // A queued entry linked from a head that has moved on (a position given twice).
    const [other] = await queue(t.db, organizationId, 1, "other");
    const stale = { lastSeq: 0, lastHash: GENESIS_HASH };
    const atOne = {
      ...linked!,
      entryRef: other!,
      seq: 1,
      prevHash: GENESIS_HASH,
      createdAt: Date.UTC(2001, 0, 1),
    };
    await assert.rejects(again(stale, atOne), /head moved/);
    assert.equal(await queuedCount(t.db, organizationId), 1, "the refused links left it queued");
    assert.equal(await linkQueuedEntries(t.db, organizationId, t.clock.now()), 1);
    assert.deepEqual(await assertOneUnforkedChain(t.db, organizationId), [ref, other]);
  });

  test("verify reports a position or a reference held twice in different months", async () => {
    const organizationId = await newOrganization(t);
    const [ref] = await queue(t.db, organizationId, 1);
    await queue(t.db, organizationId, 1, "second");
    await linkAllQueued(t.db, t.clock.now());
    const [first] = await readChainPage(t.db, organizationId, 1, 1);
    // Written past the link statement, as someone with write access to the database could: another
    // month, so no unique index sees it.
    await t.db.query(
      `INSERT INTO audit_entries (organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, created_at)
       SELECT organization_id, seq, entry_ref, entry_type, subject_id, payload, prev_hash, entry_hash, $3
         FROM audit_entries WHERE organization_id = $1 AND entry_ref = $2`,
      [organizationId, ref, first!.createdAt + 400 * 24 * 60 * 60 * 1000],
    );
    const verified = await verifyAuditChain(t.db, organizationId, testConfig().auditKeys);
    assert.equal(verified.intact, false);
    const reasons = verified.problems.map((p) => `${p.recordId}: ${p.reason}`);
    assert.ok(reasons.includes("seq 1: position 1 is held by more than one entry"), reasons.join("; "));
    assert.ok(reasons.includes(`seq 1: reference ${ref} is held by more than one entry`), reasons.join("; "));
  });

  test("two instances' sequencers beside concurrent writers: every entry linked once, one unforked chain", async () => {
    const second = await startSecondInstance(t);
    try {
      const organizationId = await newOrganization(t);
      const sequencers = [t, second].map((instance) =>
        startAuditSequencer({ db: instance.db, clock: instance.clock, intervalMs: 5 }),
      );
      const writers = await Promise.all(
        Array.from({ length: 8 }, (_, w) =>
          queue(w % 2 === 0 ? t.db : second.db, organizationId, 25, `w${w}`),
        ),
      );
      await Promise.all(sequencers.map((s) => s.stop()));
      assert.equal(await queuedCount(t.db, organizationId), 0, "nothing is left queued");
      const linked = await assertOneUnforkedChain(t.db, organizationId);
      assert.deepEqual(
        [...linked].sort((x, y) => x - y),
        writers.flat().sort((x, y) => x - y),
      );
      // Each writer's entries (each one after the previous committed) keep their order in the chain.
      for (const refs of writers) {
        const positions = refs.map((ref) => linked.indexOf(ref));
        assert.deepEqual(
          positions,
          [...positions].sort((x, y) => x - y),
        );
      }
    } finally {
      await second.close();
    }
  });

  test("an entry an instance queued and never linked (it died) is linked by another's next poll", async () => {
    const intervalMs = 50;
    const sequencer = startAuditSequencer({ db: t.db, clock: t.clock, intervalMs });
    try {
      await sleep(intervalMs); // its first pass is over; from now on only polls find foreign entries
      const organizationId = await newOrganization(t);
      // Queued as a dead instance left it: committed, with no wake-up for this process.
      const ref = await t.db.transaction((tx) =>
        queueEntry(tx, organizationId, {
          entryType: ENTRY_TYPE,
          subjectId: "orphan",
          payload: "{}",
          createdAt: 1,
        }),
      );
      const deadline = Date.now() + 3 * intervalMs + 500;
      while ((await queuedCount(t.db, organizationId)) > 0 && Date.now() < deadline) await sleep(10);
      assert.deepEqual(await assertOneUnforkedChain(t.db, organizationId), [ref]);
    } finally {
      await sequencer.stop();
    }
  });

  test("a commit's wake links its own organisation only; the interval's sweep finds the others", async () => {
    // An hour between sweeps: after the first (at start), only wakes run passes in this test.
    const sequencer = startAuditSequencer({ db: t.db, clock: t.clock, intervalMs: 3_600_000 });
    try {
      const [woken, foreign] = [await newOrganization(t), await newOrganization(t)];
      await sleep(50); // the start's sweep is over
      const orphan = await t.db.transaction((tx) =>
        queueEntry(tx, foreign, { entryType: ENTRY_TYPE, subjectId: "orphan", payload: "{}", createdAt: 1 }),
      );
      const refs = await queue(t.db, woken, 3);
      const deadline = Date.now() + 3_000;
      while ((await queuedCount(t.db, woken)) > 0 && Date.now() < deadline) await sleep(10);
      assert.deepEqual(await assertOneUnforkedChain(t.db, woken), refs);
      // The wake's pass never looked for other organisations' entries: the orphan waits for a sweep.
      assert.equal(await queuedCount(t.db, foreign), 1);
      await sequencer.stop(); // stopping sweeps
      assert.deepEqual(await assertOneUnforkedChain(t.db, foreign), [orphan]);
    } finally {
      await sequencer.stop();
    }
  });
});
