// The audit chain checked link by link, as a test sees it: the sequencer tests and the kill -9
// reliability test both end by proving one unforked chain.
import assert from "node:assert/strict";
import { entryHash, GENESIS_HASH } from "../../src/audit/chain.js";
import { readChainHead, readChainPage } from "../../src/audit/store.js";
import type { Database } from "../../src/db/database.js";

/**
 * The organisation's whole chain: positions 1..n without gaps, every prev_hash the previous
 * entry's hash, every hash recomputed, the head on the last entry, no entry reference twice.
 * Answers the entry references in chain order.
 */
export async function assertOneUnforkedChain(db: Database, organizationId: string): Promise<number[]> {
  const entries = await readChainPage(db, organizationId, 1, 10_000_000);
  let prevHash = GENESIS_HASH;
  entries.forEach((entry, i) => {
    assert.equal(entry.seq, i + 1, "positions are contiguous from 1");
    assert.equal(entry.prevHash, prevHash, `entry ${entry.seq} links to the one before it`);
    assert.equal(entry.entryHash, entryHash({ ...entry, organizationId }), `entry ${entry.seq} recomputes`);
    prevHash = entry.entryHash;
  });
  const head = await readChainHead(db, organizationId);
  assert.deepEqual(head, { lastSeq: entries.length, lastHash: prevHash }, "the head is on the last entry");
  const refs = entries.map((e) => e.entryRef);
  assert.equal(new Set(refs).size, refs.length, "no entry is linked twice");
  return refs;
}
