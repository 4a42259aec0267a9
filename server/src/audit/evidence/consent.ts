// Consent evidence: the checks live with the consent history they read (consent/events.ts); this
// adapts them to the verifier. consent_events rows against their entries and the other way round,
// consents rows against the history their events give, and every contract audit hash.
import {
  checkConsentEventsForEntries,
  checkConsentRows,
  findUnchainedConsentEvents,
} from "../../consent/events.js";
import type { EvidenceKind } from "./checker.js";

const ENTRY_TYPES = ["consent.given", "consent.withdrawn", "consent.linked"];

export const consentEvidence: EvidenceKind = {
  tables: ["consent_events", "consents"],
  entryTypes: ENTRY_TYPES,
  start({ db, organizationId, keys, findings, pageSize, checked }) {
    const report = findings.add.bind(findings);
    return {
      entryTypes: ENTRY_TYPES,
      async checkEntries(entries) {
        checked(
          "consent_events",
          await checkConsentEventsForEntries(db, organizationId, entries, keys, report),
        );
      },
      async checkRows() {
        await findUnchainedConsentEvents(db, organizationId, report, pageSize);
        checked("consents", await checkConsentRows(db, organizationId, keys, report, pageSize));
      },
    };
  },
};
