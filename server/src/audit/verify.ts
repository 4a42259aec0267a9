// `guard audit verify`: walks an organisation's audit chain from the first entry to the head and
// re-derives every link, then checks the consent evidence hanging off it (event rows, consent rows,
// their contract audit hashes under the key of each hash's version). Reads only; runs in pages so
// a long chain does not have to fit in memory.
import {
  checkConsentEventsForEntries,
  checkConsentRows,
  findUnchainedConsentEvents,
  type EvidenceProblem,
} from "../consent/events.js";
import type { Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { entryHash, GENESIS_HASH } from "./chain.js";
import type { AuditKeys } from "./keys.js";

export interface AuditVerification {
  organizationId: string;
  intact: boolean;
  /** Entries walked. */
  entries: number;
  /** The head as stored; record it elsewhere to detect a rewritten chain later. */
  headSeq: number;
  headHash: string;
  consentEventsChecked: number;
  consentsChecked: number;
  /** The earliest problem in chain order (null when intact). */
  firstBrokenLink: EvidenceProblem | null;
  /** How many problems were found in all. */
  problemCount: number;
}

type EntryRow = {
  seq: number;
  entry_type: string;
  subject_id: string;
  payload: string;
  prev_hash: string;
  entry_hash: string;
  created_at: number;
};

function isCanonicalPayload(payload: string): boolean {
  try {
    return canonicalJson(JSON.parse(payload)) === payload;
  } catch {
    return false;
  }
}

export async function verifyAuditChain(
  db: Queryable,
  organizationId: string,
  keys: AuditKeys,
  pageSize = 1000,
): Promise<AuditVerification> {
  const problems: EvidenceProblem[] = [];
  let entries = 0;
  let consentEventsChecked = 0;
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  for (;;) {
    const page = await db.query<EntryRow>(
      `SELECT seq, entry_type, subject_id, payload, prev_hash, entry_hash, created_at FROM audit_entries
        WHERE organization_id = $1 AND seq >= $2 ORDER BY seq LIMIT $3`,
      [organizationId, expectedSeq, pageSize],
    );
    if (page.length === 0) break;
    for (const row of page) {
      const problem = (reason: string) => problems.push({ seq: row.seq, subjectId: row.subject_id, reason });
      if (row.seq !== expectedSeq) problem(`entries ${expectedSeq}..${row.seq - 1} are missing`);
      if (row.prev_hash !== prevHash) problem("prev_hash does not match the previous entry's hash");
      const recomputed = entryHash({
        prevHash: row.prev_hash,
        seq: row.seq,
        organizationId,
        entryType: row.entry_type,
        subjectId: row.subject_id,
        createdAt: row.created_at,
        payload: row.payload,
      });
      if (recomputed !== row.entry_hash) problem("entry_hash does not match the entry's content");
      else if (!isCanonicalPayload(row.payload)) problem("payload is not canonical JSON");
      // Continue from what is stored, so one bad entry is reported once rather than at every later link.
      prevHash = row.entry_hash;
      expectedSeq = row.seq + 1;
    }
    entries += page.length;
    const checked = await checkConsentEventsForEntries(
      db,
      organizationId,
      page.map((r) => ({ seq: r.seq, entryType: r.entry_type, subjectId: r.subject_id, payload: r.payload })),
      keys,
    );
    problems.push(...checked.problems);
    consentEventsChecked += checked.eventsChecked;
  }

  const [head] = await db.query<{ last_seq: number; last_hash: string }>(
    "SELECT last_seq, last_hash FROM audit_chain_heads WHERE organization_id = $1",
    [organizationId],
  );
  const headSeq = head?.last_seq ?? 0;
  const headHash = head?.last_hash ?? GENESIS_HASH;
  if (headSeq !== expectedSeq - 1 || headHash !== prevHash) {
    problems.push({
      seq: headSeq,
      subjectId: organizationId,
      reason: `the chain head (seq ${headSeq}) does not match the last entry (seq ${expectedSeq - 1})`,
    });
  }
  problems.push(...(await findUnchainedConsentEvents(db, organizationId)));
  const rows = await checkConsentRows(db, organizationId, keys);
  problems.push(...rows.problems);

  const ordered = [...problems].sort((a, b) => (a.seq ?? Infinity) - (b.seq ?? Infinity));
  return {
    organizationId,
    intact: problems.length === 0,
    entries,
    headSeq,
    headHash,
    consentEventsChecked,
    consentsChecked: rows.consentsChecked,
    firstBrokenLink: ordered[0] ?? null,
    problemCount: problems.length,
  };
}
