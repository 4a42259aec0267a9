// Purge checkpoints (audit/purge.ts writes them): every audit_chain_checkpoints row has the
// `audit.purged` entry that recorded the purge, at the row's entry_seq, carrying every column but
// the organisation. Checked both ways: each entry's checkpoint holds what the entry recorded, or is
// gone because a later purge removed that entry too (a later checkpoint covers it); each row has its
// entry. A checkpoint forged to hide the chain's start has no entry and is reported; one edited
// also breaks the first kept entry's link (verify.ts starts from it).
import { allCheckpoints, type ChainCheckpoint, type StoredAuditEntry } from "../store.js";
import { differences } from "../findings.js";
import { MINIMUM_LOG_RETENTION_MS } from "../purge-floor.js";
import { payloadOf, type EvidenceKind } from "./checker.js";

export const AUDIT_PURGED = "audit.purged";
const TABLE = "audit_chain_checkpoints";

const stored = (row: ChainCheckpoint): Record<string, unknown> => ({
  through_seq: row.throughSeq,
  through_hash: row.throughHash,
  from_seq: row.fromSeq,
  entries_purged: row.entriesPurged,
  cutoff: row.cutoff,
  purged_at: row.purgedAt,
});

function committed(entry: StoredAuditEntry): Record<string, unknown> {
  const payload = payloadOf(entry);
  return {
    through_seq: payload.throughSeq ?? null,
    through_hash: payload.throughHash ?? null,
    from_seq: payload.fromSeq ?? null,
    entries_purged: payload.entriesPurged ?? null,
    cutoff: payload.cutoff ?? null,
    purged_at: entry.createdAt,
  };
}

export const checkpointEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: [AUDIT_PURGED],
  start(context) {
    const { db, organizationId, findings } = context;
    // An organisation keeps a checkpoint per purge whose entry is still held: a handful.
    let rows: Promise<Map<string, ChainCheckpoint>> | undefined;
    const load = () =>
      (rows ??= allCheckpoints(db, organizationId).then(
        (all) => new Map(all.map((c) => [c.checkpointId, c])),
      ));
    const seen = new Set<string>();
    return {
      entryTypes: [AUDIT_PURGED],
      async checkEntries(entries) {
        const byId = await load();
        for (const entry of entries) {
          const id = entry.subjectId;
          seen.add(id);
          const row = byId.get(id);
          const problem = (reason: string) =>
            findings.add({ table: TABLE, recordId: id, seq: entry.seq, reason });
          if (!row) {
            problem("the checkpoint recorded in the chain is missing from audit_chain_checkpoints");
            continue;
          }
          const differ = differences(stored(row), committed(entry));
          if (row.entrySeq !== entry.seq)
            differ.push(`entry_seq is ${row.entrySeq}; the chain gives ${entry.seq}`);
          // The floor held when the purge ran, as the chain recorded it (DPDP Rules 2025 r.8(3)).
          const cutoff = payloadOf(entry).cutoff;
          if (typeof cutoff !== "number" || cutoff > entry.createdAt - MINIMUM_LOG_RETENTION_MS) {
            differ.push("the purge's cutoff is less than a year before it");
          }
          if (differ.length > 0) problem(differ.join("; "));
        }
      },
      async checkRows() {
        const byId = await load();
        context.checked(TABLE, byId.size);
        for (const row of byId.values()) {
          if (seen.has(row.checkpointId)) continue;
          findings.add({
            table: TABLE,
            recordId: row.checkpointId,
            seq: row.throughSeq,
            reason: `the checkpoint through seq ${row.throughSeq} has no ${AUDIT_PURGED} entry in the audit chain`,
          });
        }
      },
    };
  },
};
