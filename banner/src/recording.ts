// Turning a decision into Guard calls (BANNER-SPEC "Recording"). A purpose turned on is recorded as
// anonymous consent; a purpose turned off that was on is withdrawn, so the withdrawal reaches Guard
// and its webhooks. Refusing at the first visit records nothing: no consent is the refusal.
import { GuardApiError, type GuardClient } from "../../sdks/js/src/index.js";
import type { BannerNotice, Choices, StoredDecision } from "./types.js";

/** The data types a consent to `purpose` covers: the notice's, else a generic one. */
export function dataTypesFor(notice: BannerNotice, purpose: string): string[] {
  const types = notice.itemized.find((item) => item.purpose === purpose)?.dataTypes;
  return types && types.length > 0 ? types : ["personal-data"];
}

export interface Plan {
  give: string[];
  withdraw: string[];
}

/**
 * Which purposes to record and which to withdraw for `choices` against `notice`, given the stored
 * decision. Give: on now and not already on for this notice version (a new version needs consent
 * again). Withdraw: off now and on in the stored decision for the same notice (the withdraw route
 * names the notice, not the version).
 */
export function planDecision(stored: StoredDecision | null, notice: BannerNotice, choices: Choices): Plan {
  const sameNotice = stored !== null && stored.noticeId === notice._id;
  const sameVersion = sameNotice && stored.noticeVersion === notice.version;
  const give: string[] = [];
  const withdraw: string[] = [];
  for (const { purpose } of notice.itemized) {
    const wasOn = sameNotice && stored.purposes[purpose] === true;
    if (choices[purpose] === true) {
      if (!(sameVersion && wasOn)) give.push(purpose);
    } else if (wasOn) {
      withdraw.push(purpose);
    }
  }
  return { give, withdraw };
}

/** Every itemised purpose set to `on` (accept all / reject all). */
export function allPurposes(notice: BannerNotice, on: boolean): Choices {
  const choices: Choices = {};
  for (const { purpose } of notice.itemized) choices[purpose] = on;
  return choices;
}

const isApiError = (error: unknown, status: number, code?: string): boolean =>
  error instanceof GuardApiError && error.status === status && (code === undefined || error.code === code);

export interface RecordInput {
  client: GuardClient;
  organizationId: string;
  notice: BannerNotice;
  anonymousId: string;
  stored: StoredDecision | null;
  choices: Choices;
  now: number;
}

/**
 * Makes the calls for a decision and returns the decision to store. Throws when a call fails for
 * another reason than "already so" (the caller keeps the banner open so the visitor can retry;
 * a retry repeats only what is still missing, since nothing is stored until every call succeeds).
 */
export async function recordDecision(input: RecordInput): Promise<StoredDecision> {
  const { client, organizationId, notice, anonymousId, stored, choices } = input;
  const plan = planDecision(stored, notice, choices);
  const consentIds: Record<string, string> =
    stored && stored.noticeId === notice._id ? { ...stored.consentIds } : {};
  const given = plan.give.map(async (purpose) => {
    try {
      const consent = await client.giveAnonymousConsent({
        organizationId,
        noticeId: notice._id,
        purpose,
        dataTypes: dataTypesFor(notice, purpose),
        anonymousId,
      });
      consentIds[purpose] = consent.consentId;
    } catch (error) {
      // Already recorded (a retry after a lost answer, or another tab): what we wanted is true.
      if (!isApiError(error, 400, "ALREADY_CONSENTED")) throw error;
    }
  });
  const withdrawn = plan.withdraw.map(async (purpose) => {
    try {
      await client.withdrawAnonymousConsent({
        organizationId,
        anonymousId,
        noticeId: notice._id,
        purpose,
      });
    } catch (error) {
      // 404: Guard holds no consent to withdraw; 409: already withdrawn. Either way it is off.
      if (!isApiError(error, 404) && !isApiError(error, 409)) throw error;
    }
    delete consentIds[purpose];
  });
  const results = await Promise.allSettled([...given, ...withdrawn]);
  const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
  if (failed) throw failed.reason;
  return {
    v: 1,
    anonymousId,
    noticeId: notice._id,
    noticeVersion: notice.version,
    purposes: { ...choices },
    consentIds,
    decidedAt: input.now,
  };
}
