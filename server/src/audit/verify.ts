// `guard audit verify`: walks an organisation's audit chain from the first entry to the head,
// re-deriving every link, and checks every record the chain commits to against it, both ways: each
// entry's record exists and holds what the entry recorded, and each record of a covered table has
// its entries and is the state they give. Reads only, in keyset pages, so neither a long chain nor
// a large organisation has to fit in memory; problems are counted in full and listed up to a cap.
import { pageOrganizationIds } from "../accounts/store.js";
import type { Database, Queryable } from "../db/database.js";
import { canonicalJson } from "../lib/canonical-json.js";
import { entryHash, GENESIS_HASH } from "./chain.js";
import type { EvidenceChecker, EvidenceKind } from "./evidence/checker.js";
import { breachEvidence } from "./evidence/breaches.js";
import { consentEvidence } from "./evidence/consent.js";
import { parentalEvidence } from "./evidence/parental.js";
import { rightsEvidence } from "./evidence/rights.js";
import { organizationSettingsEvidence, responsePeriodsEvidence } from "./evidence/settings.js";
import { organizationStatusEvidence } from "./evidence/organization-status.js";
import { offlineCaptureEvidence } from "./evidence/offline-captures.js";
import { offlineDeviceEvidence } from "./evidence/offline-devices.js";
import { offlineLinkEvidence } from "./evidence/offline-links.js";
import { offlineIvrEvidence } from "./evidence/offline-ivr.js";
import { offlinePosEvidence } from "./evidence/offline-pos.js";
import { ropaEvidence } from "./evidence/ropa.js";
import { retentionEvidence } from "./evidence/retention.js";
import { checkpointEvidence } from "./evidence/checkpoints.js";
import { logRetentionEvidence } from "./evidence/log-retention.js";
import { Findings, type AuditProblem } from "./findings.js";
import type { AuditKeys } from "./keys.js";
import { linkQueuedOf } from "./sequencer.js";
import { duplicatedEntries, latestCheckpoint, readChainHead, readChainPage } from "./store.js";

export type { AuditProblem } from "./findings.js";

/** Duplicated positions, and references, listed per verification (each kind). */
const LISTED_DUPLICATES = 100;

/** Every kind of evidence on the chain, each with the entry types and tables it checks. */
const EVIDENCE: readonly EvidenceKind[] = [
  consentEvidence,
  parentalEvidence,
  rightsEvidence,
  responsePeriodsEvidence,
  organizationSettingsEvidence,
  organizationStatusEvidence,
  offlineDeviceEvidence,
  offlineCaptureEvidence,
  offlineLinkEvidence,
  offlineIvrEvidence,
  offlinePosEvidence,
  breachEvidence,
  ropaEvidence,
  retentionEvidence,
  checkpointEvidence,
  logRetentionEvidence,
];

/** Every entry type a writer may append; an entry of any other type is reported. */
export const VERIFIED_ENTRY_TYPES: readonly string[] = EVIDENCE.flatMap((kind) => kind.entryTypes);

/**
 * Every table whose rows verify checks against the chain: the chain itself and its head, and the
 * tables of each kind of evidence. The README's list of what the chain protects is this list.
 */
export const COVERED_TABLES: readonly string[] = [
  // A table two kinds check (organizations: settings and status) is listed once.
  ...new Set(["audit_entries", "audit_chain_heads", ...EVIDENCE.flatMap((kind) => kind.tables)]),
];

export interface AuditVerification {
  organizationId: string;
  intact: boolean;
  /** Entries walked. */
  entries: number;
  /** Where the walk started: 1, or the position after the latest purge checkpoint. */
  fromSeq: number;
  /** The head as stored; record it elsewhere to detect a rewritten chain later. */
  headSeq: number;
  headHash: string;
  consentEventsChecked: number;
  consentsChecked: number;
  /** Rows checked against the chain, per covered table. */
  rowsChecked: Record<string, number>;
  /** The earliest problem in chain order (null when intact). */
  firstBrokenLink: AuditProblem | null;
  /** How many problems were found in all. */
  problemCount: number;
  /** The problems in chain order, the first `LISTED_PROBLEMS` found. */
  problems: AuditProblem[];
}

export interface VerifyOptions {
  /** Entries or rows read per statement. */
  pageSize?: number;
  /** The time a chain head created by linking is stamped with (default: the system clock). */
  now?: number;
}

function isCanonicalPayload(payload: string): boolean {
  try {
    return canonicalJson(JSON.parse(payload)) === payload;
  } catch {
    return false;
  }
}

/**
 * Verifies one organisation's chain and everything it commits to. Entries still queued are linked
 * first (what the sequencer would do next), so the report covers every write committed before the
 * call; writes committed while it runs may be reported as out of step with the chain, as a head
 * that moved does.
 */
export async function verifyAuditChain(
  db: Database,
  organizationId: string,
  keys: AuditKeys,
  options: VerifyOptions = {},
): Promise<AuditVerification> {
  await linkQueuedOf(db, organizationId, options.now ?? Date.now());
  return verifyLinkedChain(db, organizationId, keys, options);
}

/**
 * The chain as linked so far, without linking what is queued: for a caller inside a transaction
 * (the evidence of entries still queued is then reported as not on the chain).
 */
export async function verifyLinkedChain(
  db: Queryable,
  organizationId: string,
  keys: AuditKeys,
  options: VerifyOptions = {},
): Promise<AuditVerification> {
  const pageSize = options.pageSize ?? 500;
  const findings = new Findings();
  const rowsChecked: Record<string, number> = {};
  const checked = (table: string, rows: number) => {
    rowsChecked[table] = (rowsChecked[table] ?? 0) + rows;
  };
  const checkers = EVIDENCE.map((kind) =>
    kind.start({ db, organizationId, keys, findings, pageSize, checked }),
  );
  const checkerOf = new Map<string, EvidenceChecker>();
  for (const checker of checkers) for (const type of checker.entryTypes) checkerOf.set(type, checker);

  let entries = 0;
  // After a purge (purge.ts) the chain starts at the latest checkpoint: the first kept entry must
  // link to the hash the checkpoint recorded, and the checkpoint itself is held to the
  // `audit.purged` entry that recorded it (evidence/checkpoints.ts), so neither can be edited
  // without a finding. Without a checkpoint the chain starts at the genesis hash.
  const checkpoint = await latestCheckpoint(db, organizationId);
  let expectedSeq = checkpoint ? checkpoint.throughSeq + 1 : 1;
  let prevHash = checkpoint ? checkpoint.throughHash : GENESIS_HASH;
  for (;;) {
    const page = await readChainPage(db, organizationId, expectedSeq, pageSize);
    if (page.length === 0) break;
    const routed = new Map<EvidenceChecker, typeof page>();
    for (const row of page) {
      const problem = (reason: string) =>
        findings.add({ table: "audit_entries", recordId: `seq ${row.seq}`, seq: row.seq, reason });
      // A second entry at a position already walked: reported below, with those a page boundary hides.
      if (row.seq < expectedSeq) continue;
      if (row.seq !== expectedSeq) problem(`entries ${expectedSeq}..${row.seq - 1} are missing`);
      if (row.prevHash !== prevHash) {
        problem(
          checkpoint && row.seq === checkpoint.throughSeq + 1
            ? "prev_hash does not match the hash the purge checkpoint recorded"
            : "prev_hash does not match the previous entry's hash",
        );
      }
      const recomputed = entryHash({ ...row, organizationId });
      if (recomputed !== row.entryHash) problem("entry_hash does not match the entry's content");
      else if (!isCanonicalPayload(row.payload)) problem("payload is not canonical JSON");
      const checker = checkerOf.get(row.entryType);
      if (checker) {
        const own = routed.get(checker) ?? [];
        own.push(row);
        routed.set(checker, own);
      } else {
        // A type no checker claims is evidence nobody checks: report it rather than pass it.
        problem(`entry type ${row.entryType} is not one verify knows how to check`);
      }
      // Continue from what is stored, so one bad entry is reported once rather than at every later link.
      prevHash = row.entryHash;
      expectedSeq = row.seq + 1;
    }
    entries += page.length;
    checked("audit_entries", page.length);
    for (const [checker, own] of routed) await checker.checkEntries(own);
  }

  // The chain is partitioned by month, and its unique indexes hold within a month (store.ts
  // `linkEntries` refuses a second link or position whatever the month): duplicates are looked
  // for across months too.
  const duplicates = await duplicatedEntries(db, organizationId, LISTED_DUPLICATES);
  for (const seq of duplicates.seqs) {
    findings.add({
      table: "audit_entries",
      recordId: `seq ${seq}`,
      seq,
      reason: `position ${seq} is held by more than one entry`,
    });
  }
  for (const { entryRef, seq } of duplicates.refs) {
    findings.add({
      table: "audit_entries",
      recordId: `seq ${seq}`,
      seq,
      reason: `reference ${entryRef} is held by more than one entry`,
    });
  }

  const head = await readChainHead(db, organizationId);
  const headSeq = head?.lastSeq ?? 0;
  const headHash = head?.lastHash ?? GENESIS_HASH;
  if (head) checked("audit_chain_heads", 1);
  if (headSeq !== expectedSeq - 1 || headHash !== prevHash) {
    findings.add({
      table: "audit_chain_heads",
      recordId: organizationId,
      seq: headSeq,
      reason: `the chain head (seq ${headSeq}) does not match the last entry (seq ${expectedSeq - 1})`,
    });
  }
  for (const checker of checkers) await checker.checkRows();

  return {
    organizationId,
    intact: findings.count === 0,
    entries,
    fromSeq: checkpoint ? checkpoint.throughSeq + 1 : 1,
    headSeq,
    headHash,
    consentEventsChecked: rowsChecked.consent_events ?? 0,
    consentsChecked: rowsChecked.consents ?? 0,
    rowsChecked,
    firstBrokenLink: findings.first(),
    problemCount: findings.count,
    problems: findings.problems(),
  };
}

export interface AllAuditVerification {
  intact: boolean;
  organizations: AuditVerification[];
}

/**
 * Every organisation's chain, one after the other (organisations read in keyset pages).
 * `onReport` sees each organisation's report as it is made.
 */
export async function verifyAllAuditChains(
  db: Database,
  keys: AuditKeys,
  options: VerifyOptions & { onReport?: (report: AuditVerification) => void } = {},
): Promise<AllAuditVerification> {
  const organizations: AuditVerification[] = [];
  let after = "";
  for (;;) {
    const ids = await pageOrganizationIds(db, after, 100);
    if (ids.length === 0) break;
    after = ids[ids.length - 1]!;
    for (const organizationId of ids) {
      const report = await verifyAuditChain(db, organizationId, keys, options);
      options.onReport?.(report);
      organizations.push(report);
    }
  }
  return { intact: organizations.every((r) => r.intact), organizations };
}
