// What the log-retention job purged outside the chain (log-retention/purge.ts): each batch of
// webhook deliveries or gate decisions it deletes, and each organisation's share of a month
// partition it drops (log-retention/partitions.ts), is recorded as a `log_retention.purged` entry
// about the organisation, with the class, the cutoff, the counts and the creation-time range. The rows are
// gone, so there is nothing to compare them with; what the chain can still hold the job to is the
// statute's floor: the cutoff, and every purged row, at least a year before the entry (DPDP Rules
// 2025 r.8(3)), and counts that are counts.
import { MINIMUM_LOG_RETENTION_MS } from "../purge-floor.js";
import { payloadOf, type EvidenceKind } from "./checker.js";

export const LOG_RETENTION_PURGED = "log_retention.purged";
/** The classes the job purges, and the counts each purge entry carries. */
const COUNTS_OF: Record<string, string[]> = {
  webhook_deliveries: ["deliveries", "attempts", "events"],
  gate_decisions: ["blocks", "decisions"],
};

const isCount = (value: unknown) => typeof value === "number" && Number.isInteger(value) && value >= 0;

export const logRetentionEvidence: EvidenceKind = {
  tables: [],
  entryTypes: [LOG_RETENTION_PURGED],
  start({ organizationId, findings }) {
    return {
      entryTypes: [LOG_RETENTION_PURGED],
      async checkEntries(entries) {
        for (const entry of entries) {
          const payload = payloadOf(entry);
          const problems: string[] = [];
          if (entry.subjectId !== organizationId) problems.push("the purge is about another organisation");
          const counts = Object.hasOwn(COUNTS_OF, String(payload.logClass))
            ? COUNTS_OF[String(payload.logClass)]!
            : [];
          if (counts.length === 0) {
            problems.push(`logClass ${JSON.stringify(payload.logClass)} is not a class the job purges`);
          }
          for (const field of counts) {
            if (!isCount(payload[field])) problems.push(`${field} is not a count`);
          }
          const floor = entry.createdAt - MINIMUM_LOG_RETENTION_MS;
          if (typeof payload.cutoff !== "number" || payload.cutoff > floor) {
            problems.push("the cutoff is less than a year before the purge");
          }
          const newest = payload.newestCreatedAt;
          if (newest !== null && (typeof newest !== "number" || newest >= floor)) {
            problems.push("a purged row was less than a year old");
          }
          for (const reason of problems) {
            findings.add({ table: "audit_entries", recordId: `seq ${entry.seq}`, seq: entry.seq, reason });
          }
        }
      },
      async checkRows() {},
    };
  },
};
