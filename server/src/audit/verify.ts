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
import { readChainHead, readChainPage } from "./store.js";

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
    const page = await readChainPage(db, organizationId, expectedSeq, pageSize);
    if (page.length === 0) break;
    for (const row of page) {
      const problem = (reason: string) => problems.push({ seq: row.seq, subjectId: row.subjectId, reason });
      if (row.seq !== expectedSeq) problem(`entries ${expectedSeq}..${row.seq - 1} are missing`);
      if (row.prevHash !== prevHash) problem("prev_hash does not match the previous entry's hash");
      const recomputed = entryHash({ ...row, organizationId });
      if (recomputed !== row.entryHash) problem("entry_hash does not match the entry's content");
      else if (!isCanonicalPayload(row.payload)) problem("payload is not canonical JSON");
      // Continue from what is stored, so one bad entry is reported once rather than at every later link.
      prevHash = row.entryHash;
      expectedSeq = row.seq + 1;
    }
    entries += page.length;
    const checked = await checkConsentEventsForEntries(db, organizationId, page, keys);
    problems.push(...checked.problems);
    consentEventsChecked += checked.eventsChecked;
  }

  const head = await readChainHead(db, organizationId);
  const headSeq = head?.lastSeq ?? 0;
  const headHash = head?.lastHash ?? GENESIS_HASH;
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
