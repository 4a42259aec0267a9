// Consent capture as a group commit (issue 25; db/write-group.ts says how groups form and what goes
// alone). A group's consents are given with giveFirstConsents, one batch per organisation: one
// multi-row statement per table (consents, consent events, queued chain entries, webhook events)
// instead of one per capture. A consent the insert refuses (its holder has an active one to the
// notice and purpose) is answered ALONE: its own request then runs giveConsent, which tells a
// repeat (ALREADY_CONSENTED) from a reconsent to a newer notice version exactly as before.
import type { Database } from "../db/database.js";
import { ALONE, WriteGroup, type GroupAnswer } from "../db/write-group.js";
import type { Clock } from "../lib/clock.js";
import { giveFirstConsents, type ConsentDeps, type GiveConsentInput } from "./consents.js";
import type { Consent } from "./model.js";

/** A route's consent group: gives each group's consents and answers each with `answerOf`. */
export function consentWriteGroup<T>(
  db: Database,
  clock: Clock,
  deps: ConsentDeps,
  answerOf: (consent: Consent) => T,
): WriteGroup<GiveConsentInput, T> {
  return new WriteGroup<GiveConsentInput, T>(db, clock, {
    async write(tx, inputs, now) {
      const answers: GroupAnswer<T>[] = inputs.map(() => ALONE);
      const byOrganization = new Map<string, number[]>();
      inputs.forEach((input, i) => {
        const indexes = byOrganization.get(input.organizationId);
        if (indexes) indexes.push(i);
        else byOrganization.set(input.organizationId, [i]);
      });
      for (const [organizationId, indexes] of byOrganization) {
        const given = await giveFirstConsents(
          tx,
          deps,
          organizationId,
          indexes.map((i) => inputs[i]!),
          now,
        );
        given.forEach((consent, j) => {
          if (consent) answers[indexes[j]!] = answerOf(consent);
        });
      }
      return answers;
    },
  });
}

/** What anonymous capture answers (and records under an Idempotency-Key). */
export const captureAnswerOf = (consent: Consent) => ({
  consentId: consent.consentId,
  purpose: consent.purpose,
  dataTypes: consent.dataTypes,
  givenAt: consent.givenAt,
});
