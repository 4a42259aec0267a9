// Settings evidence: a change of the organisation's settings (settings/organization-settings.ts) or
// of its published response periods (rights/settings.ts) is a chain entry about the organisation
// carrying the values before and after. Both are one row per organisation, so the walk keeps only
// the last entry of each; afterwards the values in force must be that entry's `to` (or the
// defaults, when the chain holds no change) and the recorded time (and, for the periods, author)
// of the last change its time (and actor).
import { readStoredSettings } from "../../accounts/store.js";
import { DEFAULT_DSR_RESPONSE_DAYS, DEFAULT_GRIEVANCE_RESPONSE_DAYS } from "../../rights/settings.js";
import { findPeriodsUpdatedBy, findStoredPeriods } from "../../rights/store/settings.js";
import { settingsInForce } from "../../settings/organization-settings.js";
import { differences } from "../findings.js";
import type { StoredAuditEntry } from "../store.js";
import { payloadOf, type EvidenceKind } from "./checker.js";

function lastOf(entries: readonly StoredAuditEntry[], last: StoredAuditEntry | undefined) {
  return entries[entries.length - 1] ?? last;
}

const PERIODS_CHANGED = "rights.response_periods_changed";

export const responsePeriodsEvidence: EvidenceKind = {
  tables: ["rights_settings"],
  entryTypes: [PERIODS_CHANGED],
  start({ db, organizationId, findings, checked }) {
    let last: StoredAuditEntry | undefined;
    return {
      entryTypes: [PERIODS_CHANGED],
      checkEntries: async (entries) => {
        last = lastOf(entries, last);
      },
      async checkRows() {
        const row = await findStoredPeriods(db, organizationId);
        if (row) checked("rights_settings", 1);
        const change = last && payloadOf(last);
        const to = change?.to as Record<string, unknown> | undefined;
        const expected = {
          dsr_response_days: to?.dsrResponseDays ?? DEFAULT_DSR_RESPONSE_DAYS,
          grievance_response_days: to?.grievanceResponseDays ?? DEFAULT_GRIEVANCE_RESPONSE_DAYS,
          // A row appears with the defaults at the first attempt to change them, even one that
          // changes nothing; its time and author are only committed once a change is on the chain.
          ...(last ? { updated_at: last.createdAt, updated_by: change?.actorId ?? null } : {}),
        };
        const stored = {
          dsr_response_days: row?.dsrResponseDays ?? DEFAULT_DSR_RESPONSE_DAYS,
          grievance_response_days: row?.grievanceResponseDays ?? DEFAULT_GRIEVANCE_RESPONSE_DAYS,
          updated_at: row?.updatedAt ?? null,
          updated_by: row ? ((await findPeriodsUpdatedBy(db, organizationId)) ?? null) : null,
        };
        const differ = differences(stored, expected);
        if (last && !row) differ.unshift("the row is missing");
        if (differ.length > 0) {
          findings.add({
            table: "rights_settings",
            recordId: organizationId,
            seq: last?.seq ?? null,
            reason: differ.join("; "),
          });
        }
      },
    };
  },
};

const SETTINGS_CHANGED = "organization.settings_changed";

/** `{a: {b: 1}}` as `{"settings.a.b": 1}`, so a difference names the one setting that differs. */
function flatten(
  prefix: string,
  value: unknown,
  into: Record<string, unknown> = {},
): Record<string, unknown> {
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) flatten(`${prefix}.${key}`, inner, into);
  } else {
    into[prefix] = value;
  }
  return into;
}

export const organizationSettingsEvidence: EvidenceKind = {
  tables: ["organizations"],
  entryTypes: [SETTINGS_CHANGED],
  start({ db, organizationId, findings, checked }) {
    let last: StoredAuditEntry | undefined;
    return {
      entryTypes: [SETTINGS_CHANGED],
      checkEntries: async (entries) => {
        last = lastOf(entries, last);
      },
      async checkRows() {
        const document = await readStoredSettings(db, organizationId);
        if (document === undefined) {
          findings.add({
            table: "organizations",
            recordId: organizationId,
            seq: last?.seq ?? null,
            reason: "the organisation row is missing",
          });
          return;
        }
        checked("organizations", 1);
        const { updatedAt, ...inForce } = settingsInForce(document);
        const { updatedAt: _defaultTime, ...defaults } = settingsInForce({});
        const expected = last ? (payloadOf(last).to ?? null) : defaults;
        const stored: Record<string, unknown> = {
          ...flatten("settings", inForce),
          "settings.updatedAt": updatedAt,
        };
        const committed: Record<string, unknown> = {
          ...flatten("settings", expected),
          "settings.updatedAt": last?.createdAt ?? null,
        };
        // A setting in force that the chain never mentioned differs too.
        for (const key of Object.keys(stored)) if (!(key in committed)) committed[key] = null;
        const differ = differences(stored, committed);
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
