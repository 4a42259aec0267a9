// Organisation status evidence: the operator disabling or enabling an organisation
// (accounts/organization-status.ts) is a chain entry about the organisation saying when, who and
// why. The state is one row (organizations.disabled_at, disabled_reason, disabled_by), so the walk
// keeps the last entry; afterwards the row must be what it gives (disabled as that entry recorded,
// or enabled: all three null, as when the chain holds no change). The entries must also alternate
// (no organisation is disabled twice without being enabled in between), and each one names its
// organisation.
import { findOrganizationById } from "../../accounts/store.js";
import { differences } from "../findings.js";
import type { StoredAuditEntry } from "../store.js";
import { payloadOf, type EvidenceKind } from "./checker.js";

const DISABLED = "organization.disabled";
const ENABLED = "organization.enabled";

export const organizationStatusEvidence: EvidenceKind = {
  tables: ["organizations"],
  entryTypes: [DISABLED, ENABLED],
  start({ db, organizationId, findings }) {
    let last: StoredAuditEntry | undefined;
    return {
      entryTypes: [DISABLED, ENABLED],
      checkEntries: async (entries) => {
        for (const entry of entries) {
          const payload = payloadOf(entry);
          const problem = (reason: string) =>
            findings.add({ table: "audit_entries", recordId: `seq ${entry.seq}`, seq: entry.seq, reason });
          if (payload.organizationId !== organizationId || entry.subjectId !== organizationId) {
            problem(`the ${entry.entryType} entry names another organisation than its chain's`);
          }
          // The first change is a disabling; after that they alternate.
          const expected = last?.entryType === DISABLED ? ENABLED : DISABLED;
          if (entry.entryType !== expected) {
            problem(
              `${entry.entryType} follows ${last?.entryType ?? "no change"}; the chain gives ${expected} next`,
            );
          }
          last = entry;
        }
      },
      async checkRows() {
        // A missing organisation row is reported by the settings evidence (evidence/settings.ts).
        const organization = await findOrganizationById(db, organizationId);
        if (!organization) return;
        const change = last?.entryType === DISABLED ? payloadOf(last) : undefined;
        const expected = {
          disabled_at: change ? last!.createdAt : null,
          disabled_reason: change?.reason ?? null,
          disabled_by: change?.by ?? null,
        };
        const stored = {
          disabled_at: organization.disabledAt,
          disabled_reason: organization.disabledReason,
          disabled_by: organization.disabledBy,
        };
        const differ = differences(stored, expected);
        if (change && change.disabledAt !== last!.createdAt) {
          differ.push(`the entry's disabledAt ${JSON.stringify(change.disabledAt)} is not its time`);
        }
        if (differ.length > 0) {
          findings.add({
            table: "organizations",
            recordId: organizationId,
            seq: last?.seq ?? null,
            reason: differ.join("; "),
          });
        }
      },
    };
  },
};
