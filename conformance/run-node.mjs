// The Node adapter of the conformance suite: runs every scenario in conformance/scenarios against
// the fixture server with @guard/server (imported from source, so run it with `node --import tsx`).
// The scenario format and the adapter contract are in conformance/README.md; the runner is runner.mjs.
import { runConformance } from "./runner.mjs";

const sdk = await import(new URL("../sdks/node/src/index.ts", import.meta.url).href);

await runConformance({
  name: "node",
  buildClient: (options) => new sdk.GuardClient(options),
  /** Client methods and how many positional arguments come before the per-request options. */
  clientMethods: {
    getOrganization: 1,
    getNotices: 1,
    getNotice: 1,
    getBannerConfig: 2,
    giveAnonymousConsent: 1,
    brokerToken: 1,
    setAccessToken: 1,
    linkAnonymousConsent: 1,
    listDsrRequests: 0,
    createDsrRequest: 1,
    listGrievances: 0,
    createGrievance: 1,
    getNomination: 0,
    upsertNomination: 1,
    revokeNomination: 0,
    recordConsent: 1,
    getConsent: 1,
    withdrawConsent: 1,
    getConsentStatus: 1,
    verifyConsent: 1,
    listGateDecisions: 1,
    listGateAlerts: 0,
    listDueRetentions: 1,
    listBreaches: 1,
    listCrossBorderTransfers: 1,
    confirmErasureExecuted: 2,
    createOfflineConsentLink: 1,
    syncOfflineCaptures: 1,
    createPosConsentRequest: 1,
    recordIvrConsentArtifact: 1,
    withdrawConsentByToken: 1,
  },
  call: (client, method, args) => client[method](...args),
  helpers: {
    hasConsent: sdk.hasConsent,
    verifyWebhookSignature: sdk.verifyWebhookSignature,
    verifyStandardWebhook: sdk.verifyStandardWebhook,
    canonicalizeAuditEvent: sdk.canonicalizeAuditEvent,
    computeAuditHash: sdk.computeAuditHash,
    canonicalizeCaptureArtifact: sdk.canonicalizeCaptureArtifact,
    verifyCaptureSignature: sdk.verifyCaptureSignature,
  },
});
