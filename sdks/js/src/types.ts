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
  domain?: string | undefined;
  appId?: string | undefined;
}

export type AnonymousConsentInput = RequestBody<"giveConsentAnonymous">;
export type AnonymousConsent = ResponseBody<"giveConsentAnonymous", 201>;
export type AnonymousWithdrawalInput = RequestBody<"withdrawConsentAnonymous">;
export type AnonymousWithdrawal = ResponseBody<"withdrawConsentAnonymous", 200>;
export type LinkAnonymousConsentResult = ResponseBody<"linkAnonymousConsent", 200>;
export type WithdrawalByTokenResult = ResponseBody<"withdrawConsentByToken", 200>;

export type DsrRequest = Schemas["DsrRequest"];
export type DsrRequestList = ResponseBody<"listDsrRequestsForCurrentUser", 200>;
export type CreateDsrRequestInput = RequestBody<"createDsrRequest">;
export type Grievance = Schemas["Grievance"];
export type GrievanceList = ResponseBody<"listGrievancesForCurrentUser", 200>;
export type CreateGrievanceInput = RequestBody<"createGrievance">;
export type Nomination = Schemas["Nomination"];
export type NominationInput = RequestBody<"upsertNomination">;
export type RevokeNominationResult = ResponseBody<"revokeNomination", 200>;
