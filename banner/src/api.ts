// `window.Guard`: the small API a page uses (BANNER-SPEC "Events and window.Guard"). Frozen, so a
// script on the page cannot swap a method for one that records a choice the visitor never made.
import type { Controller } from "./controller.js";
import type { Choices, StoredDecision } from "./types.js";
import { VERSION } from "./version.js";

export interface GuardApi {
  readonly version: string;
  /** Resolves once the configuration is loaded or known missing; never rejects. */
  readonly ready: Promise<{ shown: boolean }>;
  /** This browser's anonymous id with the organisation (link it after sign-in). */
  readonly anonymousId: string;
  getConsent(): StoredDecision | null;
  hasConsent(purpose: string): boolean;
  acceptAll(): Promise<void>;
  rejectAll(): Promise<void>;
  setConsent(choices: Choices): Promise<void>;
  openPreferences(): void;
  closePreferences(): void;
}

const copy = (decision: StoredDecision | null): StoredDecision | null =>
  decision && { ...decision, purposes: { ...decision.purposes }, consentIds: { ...decision.consentIds } };

export function createApi(controller: Controller): GuardApi {
  return Object.freeze({
    version: VERSION,
    ready: controller.ready,
    get anonymousId() {
      return controller.anonymousId;
    },
    getConsent: () => copy(controller.decision),
    hasConsent: (purpose: string) => controller.decision?.purposes[purpose] === true,
    acceptAll: () => controller.acceptAll(),
    rejectAll: () => controller.rejectAll(),
    setConsent: (choices: Choices) => controller.setConsent(choices),
    openPreferences: () => controller.openPreferences(),
    closePreferences: () => controller.closePreferences(),
  });
}
