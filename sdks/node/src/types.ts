// Request and response types of the methods, derived from the generated contract types
// (generated/contract.ts, from contract/openapi/v1.yaml), so they cannot drift from the contract.
import type { components, operations } from "./generated/contract.js";

type Schemas = components["schemas"];
type JsonContent<T> = T extends { content: { "application/json": infer Body } } ? Body : never;
type ResponseBody<
  Op extends keyof operations,
  Status extends keyof operations[Op]["responses"],
> = JsonContent<operations[Op]["responses"][Status]>;
type RequestBody<Op extends keyof operations> = JsonContent<NonNullable<operations[Op]["requestBody"]>>;

/**
 * One page of a list: `limit` is the page size (the route's default when absent, clamped to its
 * maximum), `cursor` the previous page's `nextCursor`. Every list answer carries `nextCursor`, null
 * on the last page.
 */
export interface PageParams {
  limit?: number | undefined;
  cursor?: string | undefined;
}

export type Organization = ResponseBody<"getOrgBySlug", 200>;
export type Notice = Schemas["Notice"];
export type NoticeList = ResponseBody<"getNoticesForOrg", 200>;
export type BannerConfig = ResponseBody<"getBannerConfig", 200>;
/** Which banner configuration: a web domain, a native app, or (neither) the organisation default. */
export interface BannerScope {
  domain?: string;
  appId?: string;
}

export type AnonymousConsentInput = RequestBody<"giveConsentAnonymous">;
export type AnonymousConsent = ResponseBody<"giveConsentAnonymous", 201>;
export type BrokeredToken = ResponseBody<"brokerToken", 201>;
export type LinkAnonymousConsentResult = ResponseBody<"linkAnonymousConsent", 200>;

export type DsrRequest = Schemas["DsrRequest"];
export type DsrRequestList = ResponseBody<"listDsrRequestsForCurrentUser", 200>;
export type CreateDsrRequestInput = RequestBody<"createDsrRequest">;
export type Grievance = Schemas["Grievance"];
export type GrievanceList = ResponseBody<"listGrievancesForCurrentUser", 200>;
export type CreateGrievanceInput = RequestBody<"createGrievance">;
export type Nomination = Schemas["Nomination"];
export type NominationInput = RequestBody<"upsertNomination">;
export type RevokeNominationResult = ResponseBody<"revokeNomination", 200>;

export type RecordConsentInput = RequestBody<"recordConsent">;
export type ConsentRecord = Schemas["ConsentRecord"];
export type ConsentStatus = Schemas["ConsentStatus"];
/** Exactly one of the two identifiers. */
export type ConsentStatusQuery =
  { email: string; externalId?: never } | { externalId: string; email?: never };

/** The Consent Gate's answer to `verifyConsent`: `allow` or `deny`, and why. */
export type ConsentGateVerdict = Schemas["ConsentGateVerdict"];
/** @deprecated The same type as {@link ConsentGateVerdict}, the contract's name for the gate's answer. */
export type GateDecision = ConsentGateVerdict;
/** One row of the gate's decision log (`listGateDecisions`), not the answer `verifyConsent` gives. */
export type ConsentGateDecision = Schemas["ConsentGateDecision"];
export type GateDecisionList = ResponseBody<"listConsentGateDecisions", 200>;
export type GateAlerts = ResponseBody<"listConsentGateBypassAlerts", 200>;
export type ConsentGateBypassAlert = Schemas["ConsentGateBypassAlert"];

// ----- offline and assisted capture (contract 2.14.0) ----------------------------------------------

export type CreateOfflineConsentLinkInput = Schemas["CreateOfflineConsentLinkRequest"];
/** A QR consent link: render `/offline-consent/{token}` on the deployment's origin as a QR code. */
export type OfflineConsentLink = Schemas["OfflineConsentLink"];
/** One capture session as an enrolled device built and signed it; pass it through unchanged. */
export type OfflineCaptureSession = Schemas["OfflineCaptureSession"];
/** The outcome of one session: `verified`, `quarantined` or `rejected` (with a `reason`). */
export type OfflineCaptureResult = Schemas["OfflineCaptureResult"];
/** `{ results }`, one per session, in the order of the sessions sent. */
export type OfflineCaptureSyncResult = ResponseBody<"syncOfflineCaptures", 200>;
export type PosConsentRequestInput = RequestBody<"createPosConsentRequest">;
/** A pending point-of-sale request: not a consent until the customer confirms at `/consent/{token}`. */
export type PosConsentRequest = ResponseBody<"createPosConsentRequest", 201>;
/** An IVR consent artefact from a telephony partner. */
export type IvrConsentArtifactInput = Schemas["IvrConsentArtifact"];
/** The stored artefact: `accepted` with its `consentId`, or a refusal kept as evidence. */
export type IvrConsentArtifactResult = ResponseBody<"recordIvrConsentArtifact", 201>;
/** `{ withdrawn, alreadyWithdrawn }`: the token's consents withdrawn now, and those withdrawn before. */
export type WithdrawalByTokenResult = ResponseBody<"withdrawConsentByToken", 200>;

// ----- registers (contract 2.15.0, tag `registers`) ------------------------------------------------

/** A scheduled erasure whose retention window has elapsed: erase the principal's data, then confirm. */
export type DueRetention = Schemas["DueRetention"];
/** `{ due, nextCursor }`. */
export type DueRetentionList = ResponseBody<"listDueRetentions", 200>;
/** One entry of the breach register (drills excluded). */
export type Breach = Schemas["Breach"];
/** `{ breaches, nextCursor }`. */
export type BreachList = ResponseBody<"listBreaches", 200>;
/** An active processing activity declared as crossing borders. */
export type CrossBorderTransfer = Schemas["CrossBorderTransfer"];
/** `{ transfers, nextCursor }`. */
export type CrossBorderTransferList = ResponseBody<"listCrossBorderTransfers", 200>;
/** `{ executedAt? }`: when the data was erased (epoch ms; default the server's now). */
export type ErasureExecutionInput = RequestBody<"confirmRetentionErasureExecuted">;
/** `{ scheduledErasureId, status: "executed", executedAt }`, the first confirmation on a repeat. */
export type ErasureExecution = ResponseBody<"confirmRetentionErasureExecuted", 200>;
