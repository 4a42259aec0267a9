// The `guard:consent` DOM event: how the page learns of a decision (to load its own tags, or to
// stop work a withdrawn purpose covered; a script that already ran cannot be unrun by the banner).
import type { ConsentEventDetail, StoredDecision } from "./types.js";

/**
 * The event's detail. `purposes` is the visitor's choice per purpose; `granted` and `denied` are
 * the Consent Mode types of the update sent with it, so a page without a tag manager can read the
 * same signal.
 */
export function consentDetail(
  decision: Pick<StoredDecision, "purposes" | "noticeId" | "noticeVersion" | "anonymousId">,
  consentMode: Record<string, "granted" | "denied">,
  reason: ConsentEventDetail["reason"],
): ConsentEventDetail {
  const types = Object.keys(consentMode);
  return {
    purposes: { ...decision.purposes },
    granted: types.filter((type) => consentMode[type] === "granted"),
    denied: types.filter((type) => consentMode[type] !== "granted"),
    noticeId: decision.noticeId,
    noticeVersion: decision.noticeVersion,
    anonymousId: decision.anonymousId,
    reason,
  };
}

export function dispatchConsent(doc: Document, detail: ConsentEventDetail): void {
  doc.dispatchEvent(new CustomEvent("guard:consent", { detail }));
}
