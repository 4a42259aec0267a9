// GuardClient: typed methods over Guard's public, principal and service routes, on one transport
// that adds the family's headers, times out, and retries what is safe to repeat (the transport and
// the retry decision are sdks/typescript-shared/src/, which @guard/js runs too).
import { randomUUID } from "node:crypto";
import {
  checkMaxRetries,
  checkRequestOptions,
  checkTimeout,
  defaultSleep,
  rejectUnknown,
  REQUEST_OPTIONS,
  sendWithRetries,
  type FetchLike,
  type Method,
  type RequestOptions,
  type Sleeper,
  type Transport,
} from "../../typescript-shared/src/transport.js";
import {
  DEFAULT_MAX_RETRIES,
  DEFAULT_TIMEOUT_MS,
  RETRY_COUNT_HEADER,
} from "../../typescript-shared/src/retry.js";
import { GuardError, GuardMissingCredentialError } from "./errors.js";
import type {
  AnonymousConsent,
  AnonymousConsentInput,
  BannerConfig,
  BannerScope,
  Breach,
  BreachList,
  BrokeredToken,
  ConsentGateBypassAlert,
  ConsentGateDecision,
  ConsentGateVerdict,
  ConsentRecord,
  ConsentStatus,
  ConsentStatusQuery,
  CreateDsrRequestInput,
  CreateGrievanceInput,
  CrossBorderTransfer,
  CrossBorderTransferList,
  DsrRequest,
  DsrRequestList,
  DueRetention,
  DueRetentionList,
  ErasureExecution,
  ErasureExecutionInput,
  GateAlerts,
  GateDecisionList,
  Grievance,
  GrievanceList,
  IvrConsentArtifactInput,
  IvrConsentArtifactResult,
  LinkAnonymousConsentResult,
  Nomination,
  NominationInput,
  Notice,
  NoticeList,
  OfflineCaptureSession,
  OfflineCaptureSyncResult,
  OfflineConsentLink,
  CreateOfflineConsentLinkInput,
  Organization,
  PageParams,
  PosConsentRequest,
  PosConsentRequestInput,
  RecordConsentInput,
  RevokeNominationResult,
  WithdrawalByTokenResult,
} from "./types.js";
import { PACKAGE_NAME, VERSION } from "./version.js";

export type { FetchLike, RequestOptions, Sleeper };

export interface GuardClientOptions {
  /** Where Guard is served, e.g. `https://guard.example.com` (a trailing `/` is ignored). */
  baseUrl: string;
  /** Service API key (`gk_live_…`): server-side only, never in an app. */
  apiKey?: string | undefined;
  /** A principal access token, for principal calls without brokering first. */
  accessToken?: string | undefined;
  /** Default: the global fetch. */
  fetch?: FetchLike | undefined;
  /** Contract 1.6.0's name for `fetch`, still accepted. */
  fetchImpl?: FetchLike | undefined;
  /** Per attempt. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Retries after the first attempt. Default 2. */
  maxRetries?: number | undefined;
  /** Sent on every request (the SDK's own headers win). */
  defaultHeaders?: Record<string, string> | undefined;
  /** Advanced: how retries wait (tests inject one that records instead of sleeping). */
  sleep?: Sleeper | undefined;
  /** Advanced: the jitter source, in [0, 1). */
  random?: (() => number) | undefined;
  /** Advanced: the clock used to read an HTTP-date `Retry-After`, epoch ms. */
  now?: (() => number) | undefined;
}

/**
 * `brokerToken`'s options: the principal's `email` (contract 2.10.0) beside the per-request options,
 * in one object, so `brokerToken(id, { idempotencyKey })` keeps working.
 */
export interface BrokerTokenOptions extends RequestOptions {
  /**
   * The principal's email address, by which `recordConsent` and `getConsentStatus` find them.
   * Omitted, the stored address is left as it is; naming an address another principal of the
   * organisation holds moves it to this one.
   */
  email?: string | undefined;
}

const CLIENT_OPTIONS = [
  "baseUrl",
  "apiKey",
  "accessToken",
  "fetch",
  "fetchImpl",
  "timeoutMs",
  "maxRetries",
  "defaultHeaders",
  "sleep",
  "random",
  "now",
];
const PAGE_PARAMS = ["limit", "cursor"];

/**
 * The (page params, request options) of a list method. Before paging these methods took the
 * options alone (`listDsrRequests({ timeoutMs })`): a lone object whose keys are all request-option
 * keys is still read as the options (the two key sets are disjoint, and `{}` means the same either
 * way).
 */
function pageArguments(
  params: PageParams | RequestOptions | undefined,
  options: RequestOptions | undefined,
): [PageParams, RequestOptions | undefined] {
  if (params === undefined || params === null) return [{}, options];
  if (typeof params !== "object") throw new TypeError("Page params must be an object: { limit?, cursor? }");
  const keys = Object.keys(params);
  if (options === undefined && keys.length > 0 && keys.every((key) => REQUEST_OPTIONS.includes(key))) {
    return [{}, params as RequestOptions];
  }
  rejectUnknown(params, PAGE_PARAMS, "page param");
  return [params as PageParams, options];
}

/** Every item of a list, page after page, following `nextCursor` from `params.cursor` on. */
async function* everyItem<Page extends { nextCursor: string | null }, Item>(
  params: PageParams,
  readPage: (params: PageParams) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
): AsyncGenerator<Item, void, undefined> {
  let cursor = params.cursor;
  for (;;) {
    const page = await readPage({ limit: params.limit, cursor });
    yield* itemsOf(page);
    if (page.nextCursor === null || page.nextCursor === undefined) return;
    // A server that hands back the cursor it was given would loop forever.
    if (page.nextCursor === cursor) throw new GuardError(`The list did not advance past cursor ${cursor}`);
    cursor = page.nextCursor;
  }
}
/** Headers the SDK owns: a caller's value would break authentication or the attempt count. */
const OWNED_HEADERS = new Set(["authorization", "x-guard-sdk", RETRY_COUNT_HEADER.toLowerCase()]);

type Credential = "none" | "apiKey" | "accessToken";

interface Operation {
  method: Method;
  path: string;
  credential: Credential;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A create call: it always carries an Idempotency-Key (the caller's, or one minted here). */
  create?: boolean;
  /** A write the contract declares idempotent by its natural key, so a repeat cannot act twice. */
  naturallyIdempotent?: boolean;
}

const segment = (value: string): string => encodeURIComponent(value);

export class GuardClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  private readonly apiKey: string | undefined;
  private accessToken: string | undefined;
  private readonly defaultHeaders: Record<string, string>;
  /** How calls go out: fetch, and the sleep, clock and jitter the retries use. */
  private readonly transport: Transport;

  constructor(options: GuardClientOptions) {
    if (options === null || typeof options !== "object") {
      throw new TypeError("new GuardClient({ baseUrl, apiKey }) takes an options object");
    }
    rejectUnknown(options, CLIENT_OPTIONS, "GuardClient option");
    if (typeof options.baseUrl !== "string" || !/^https?:\/\/[^/]/i.test(options.baseUrl)) {
      throw new TypeError("baseUrl must be an http(s) URL, e.g. https://guard.example.com");
    }
    if (options.fetch && options.fetchImpl) throw new TypeError("Pass fetch or fetchImpl, not both");
    checkTimeout(options.timeoutMs);
    checkMaxRetries(options.maxRetries);
    const fetchImpl = options.fetch ?? options.fetchImpl ?? globalThis.fetch;
    if (typeof fetchImpl !== "function") {
      throw new TypeError("No fetch available: pass one as the fetch option (Node 18+ has it built in)");
    }
    this.baseUrl = options.baseUrl.replace(/\/$/, "");
    this.apiKey = options.apiKey || undefined;
    this.accessToken = options.accessToken || undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.defaultHeaders = { ...options.defaultHeaders };
    this.transport = {
      fetch: fetchImpl,
      sleep: options.sleep ?? defaultSleep,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
    };
  }

  /** Uses `token` for principal calls from now on (after re-brokering, or from your app's session). */
  setAccessToken(token: string | null | undefined): void {
    this.accessToken = token || undefined;
  }

  // ----- public (no credential) ------------------------------------------------------------------

  getOrganization(slug: string, options?: RequestOptions): Promise<Organization> {
    return this.request({ method: "GET", path: `/api/v1/org/${segment(slug)}`, credential: "none" }, options);
  }

  /** One page of the organisation's published notices, oldest first. */
  async getNotices(
    orgId: string,
    params?: PageParams | RequestOptions,
    options?: RequestOptions,
  ): Promise<NoticeList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: `/api/v1/org/${segment(orgId)}/notices`,
        credential: "none",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every published notice of the organisation, fetched a page (`params.limit`) at a time. */
  iterateNotices(orgId: string, params: PageParams = {}, options?: RequestOptions): AsyncGenerator<Notice> {
    return everyItem(
      params,
      (page) => this.getNotices(orgId, page, options),
      (page) => page.notices,
    );
  }

  getNotice(noticeId: string, options?: RequestOptions): Promise<Notice> {
    return this.request(
      { method: "GET", path: `/api/v1/notices/${segment(noticeId)}`, credential: "none" },
      options,
    );
  }

  /** `{ domain }` for a web page, `{ appId }` for a native app, `{}` for the organisation default. */
  getBannerConfig(orgId: string, scope: BannerScope = {}, options?: RequestOptions): Promise<BannerConfig> {
    return this.request(
      {
        method: "GET",
        path: `/api/v1/org/${segment(orgId)}/banner-config`,
        credential: "none",
        query: { domain: scope.domain, appId: scope.appId },
      },
      options,
    );
  }

  /** Records a guest's consent under a client-generated `anonymousId`; link it after sign-in. */
  giveAnonymousConsent(input: AnonymousConsentInput, options?: RequestOptions): Promise<AnonymousConsent> {
    return this.request(
      { method: "POST", path: "/api/v1/consents/anonymous", credential: "none", body: input, create: true },
      options,
    );
  }

  /**
   * Withdraws every consent an offline withdrawal token stands for (the token printed on a slip or
   * read out after an offline, QR, POS or IVR consent; DPDP s.6(4)). No credential: the token is
   * the proof. Idempotent (a repeat lists them under `alreadyWithdrawn`), so it is retried.
   */
  withdrawConsentByToken(
    withdrawalToken: string,
    options?: RequestOptions,
  ): Promise<WithdrawalByTokenResult> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/offline/withdrawals",
        credential: "none",
        body: { withdrawalToken },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  // ----- service API key -------------------------------------------------------------------------

  /**
   * Mints a short-lived principal access token for your user `externalId` and keeps it for this
   * client's principal calls. Hand `accessToken` to your app; broker again when it expires.
   * `{ email }` (contract 2.10.0) stores the user's email, by which `recordConsent` and
   * `getConsentStatus` find them; the same object takes the per-request options.
   */
  async brokerToken(externalId: string, options?: BrokerTokenOptions): Promise<BrokeredToken> {
    const { email, ...requestOptions } = options ?? {};
    if (email != null && typeof email !== "string") throw new TypeError("email must be a string");
    const token = await this.request<BrokeredToken>(
      {
        method: "POST",
        path: "/api/v1/auth/broker-token",
        credential: "apiKey",
        body: email == null ? { externalId } : { externalId, email },
      },
      requestOptions,
    );
    this.accessToken = token.accessToken;
    return token;
  }

  /** Records consent for a known principal, found by email (`POST /cm/v1/consent`). */
  recordConsent(input: RecordConsentInput, options?: RequestOptions): Promise<ConsentRecord> {
    return this.request(
      { method: "POST", path: "/cm/v1/consent", credential: "apiKey", body: input, create: true },
      options,
    );
  }

  getConsent(consentId: string, options?: RequestOptions): Promise<ConsentRecord> {
    return this.request(
      { method: "GET", path: `/cm/v1/consent/${segment(consentId)}`, credential: "apiKey" },
      options,
    );
  }

  /** Withdraws a consent; withdrawing a withdrawn one is `409 CONFLICT`, so this is never retried. */
  withdrawConsent(consentId: string, options?: RequestOptions): Promise<ConsentRecord> {
    return this.request(
      { method: "DELETE", path: `/cm/v1/consent/${segment(consentId)}`, credential: "apiKey" },
      options,
    );
  }

  /** Every consent of one principal, found by `{ email }` or `{ externalId }`. */
  getConsentStatus(query: ConsentStatusQuery, options?: RequestOptions): Promise<ConsentStatus> {
    return this.request(
      {
        method: "GET",
        path: "/api/v1/consent-status",
        credential: "apiKey",
        query: { email: query.email, externalId: query.externalId },
      },
      options,
    );
  }

  /** Consent Gate: ask before processing that depends on a consent; `deny` means stop. */
  verifyConsent(consentId: string, options?: RequestOptions): Promise<ConsentGateVerdict> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/consent/verify",
        credential: "apiKey",
        body: { consentId },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  /** One page of the gate's decision log, newest first (default 50, at most 200 a page). */
  async listGateDecisions(
    params?: PageParams | RequestOptions,
    options?: RequestOptions,
  ): Promise<GateDecisionList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/consent/gate/decisions",
        credential: "apiKey",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** The whole decision log, newest first, fetched a page (`params.limit`) at a time. */
  iterateGateDecisions(
    params: PageParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<ConsentGateDecision> {
    return everyItem(
      params,
      (page) => this.listGateDecisions(page, options),
      (page) => page.decisions,
    );
  }

  /**
   * One page of the consents denied repeatedly inside the rolling window (processing that ignores
   * the gate), most recently denied first.
   */
  async listGateAlerts(params?: PageParams | RequestOptions, options?: RequestOptions): Promise<GateAlerts> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/consent/gate/alerts",
        credential: "apiKey",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every current bypass alert, fetched a page (`params.limit`) at a time. */
  iterateGateAlerts(
    params: PageParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<ConsentGateBypassAlert> {
    return everyItem(
      params,
      (page) => this.listGateAlerts(page, options),
      (page) => page.alerts,
    );
  }

  // ----- offline and assisted capture (service API key) --------------------------------------------

  /**
   * Mints a QR consent link for a published notice; render `/offline-consent/{token}` on Guard's
   * origin as a QR code. A create call (Idempotency-Key).
   */
  createOfflineConsentLink(
    input: CreateOfflineConsentLinkInput,
    options?: RequestOptions,
  ): Promise<OfflineConsentLink> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/offline-consent/links",
        credential: "apiKey",
        body: input,
        create: true,
      },
      options,
    );
  }

  /**
   * Forwards 1–200 capture sessions, exactly as the devices built and signed them, for a server
   * fronting a fleet. Partial success is normal: read each result's `status`. Safe to repeat: a
   * re-synced `clientSessionId` returns its first result and writes nothing.
   */
  syncOfflineCaptures(
    sessions: readonly OfflineCaptureSession[],
    options?: RequestOptions,
  ): Promise<OfflineCaptureSyncResult> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/offline/captures",
        credential: "apiKey",
        body: { sessions },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  /**
   * Starts a point-of-sale consent request for a phone number keyed in at a till. The answer is not
   * a consent: none exists until the customer confirms at `/consent/{token}`. A create call.
   */
  createPosConsentRequest(
    input: PosConsentRequestInput,
    options?: RequestOptions,
  ): Promise<PosConsentRequest> {
    return this.request(
      { method: "POST", path: "/api/v1/offline/pos", credential: "apiKey", body: input, create: true },
      options,
    );
  }

  /**
   * Stores an IVR consent artefact from a telephony partner: a `dtmfSequence` starting with `1`
   * records a consent, anything else a refusal kept as evidence. A create call; `partnerCallId` also
   * makes a resubmission return the original artefact.
   */
  recordIvrConsentArtifact(
    input: IvrConsentArtifactInput,
    options?: RequestOptions,
  ): Promise<IvrConsentArtifactResult> {
    return this.request(
      { method: "POST", path: "/api/v1/offline/ivr", credential: "apiKey", body: input, create: true },
      options,
    );
  }

  // ----- registers (service API key, contract 2.15.0) ----------------------------------------------

  /**
   * One page of the scheduled erasures whose retention window has elapsed (DPDP s.8(7), r.8): the
   * principal was told at least 48 hours before, and your backend now erases their data.
   */
  async listDueRetentions(params?: PageParams, options?: RequestOptions): Promise<DueRetentionList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/retention/due",
        credential: "apiKey",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every due retention, fetched a page (`params.limit`) at a time. */
  iterateDueRetentions(params: PageParams = {}, options?: RequestOptions): AsyncGenerator<DueRetention> {
    return everyItem(
      params,
      (page) => this.listDueRetentions(page, options),
      (page) => page.due,
    );
  }

  /** One page of the breach register (s.8(6)); drills are never listed. */
  async listBreaches(params?: PageParams, options?: RequestOptions): Promise<BreachList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/breaches",
        credential: "apiKey",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every breach in the register, fetched a page (`params.limit`) at a time. */
  iterateBreaches(params: PageParams = {}, options?: RequestOptions): AsyncGenerator<Breach> {
    return everyItem(
      params,
      (page) => this.listBreaches(page, options),
      (page) => page.breaches,
    );
  }

  /**
   * One page of the active processing activities declared as crossing borders (s.16); archived
   * activities are not listed.
   */
  async listCrossBorderTransfers(
    params?: PageParams,
    options?: RequestOptions,
  ): Promise<CrossBorderTransferList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/cross-border/transfers",
        credential: "apiKey",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every active cross-border entry, fetched a page (`params.limit`) at a time. */
  iterateCrossBorderTransfers(
    params: PageParams = {},
    options?: RequestOptions,
  ): AsyncGenerator<CrossBorderTransfer> {
    return everyItem(
      params,
      (page) => this.listCrossBorderTransfers(page, options),
      (page) => page.transfers,
    );
  }

  /**
   * Confirms that your backend erased the data of a due retention (from `listDueRetentions`): on
   * the audit chain and as the `retention.erasure_executed` webhook event. `executedAt` defaults to
   * the server's now. Safe to repeat: a repeat answers the first confirmation. A cancelled, held or
   * not-yet-due erasure is `409 CONFLICT`; an unknown id `404`.
   */
  confirmErasureExecuted(
    scheduledErasureId: string,
    input: ErasureExecutionInput = {},
    options?: RequestOptions,
  ): Promise<ErasureExecution> {
    return this.request(
      {
        method: "POST",
        path: `/api/v1/retention/erasures/${segment(scheduledErasureId)}/executed`,
        credential: "apiKey",
        body: input,
        naturallyIdempotent: true,
      },
      options,
    );
  }

  // ----- principal access token ------------------------------------------------------------------

  /** Moves a guest's anonymous consents to the signed-in principal. Idempotent. */
  linkAnonymousConsent(anonymousId: string, options?: RequestOptions): Promise<LinkAnonymousConsentResult> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/link-anonymous-consent",
        credential: "accessToken",
        body: { anonymousId },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  /** One page of the principal's own requests, newest first. */
  async listDsrRequests(
    params?: PageParams | RequestOptions,
    options?: RequestOptions,
  ): Promise<DsrRequestList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/dsr",
        credential: "accessToken",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every request of the principal, newest first, fetched a page (`params.limit`) at a time. */
  iterateDsrRequests(params: PageParams = {}, options?: RequestOptions): AsyncGenerator<DsrRequest> {
    return everyItem(
      params,
      (page) => this.listDsrRequests(page, options),
      (page) => page.requests,
    );
  }

  /**
   * Files a data-subject request. The second argument is the per-request options, or (as in
   * contract 1.6.0) the idempotency key itself.
   */
  createDsrRequest(input: CreateDsrRequestInput, options?: RequestOptions | string): Promise<DsrRequest> {
    const requestOptions = typeof options === "string" ? { idempotencyKey: options } : options;
    return this.request(
      { method: "POST", path: "/api/v1/dsr", credential: "accessToken", body: input, create: true },
      requestOptions,
    );
  }

  /** One page of the principal's own grievances, newest first. */
  async listGrievances(
    params?: PageParams | RequestOptions,
    options?: RequestOptions,
  ): Promise<GrievanceList> {
    const [page, requestOptions] = pageArguments(params, options);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/grievances",
        credential: "accessToken",
        query: { limit: page.limit, cursor: page.cursor },
      },
      requestOptions,
    );
  }

  /** Every grievance of the principal, newest first, fetched a page (`params.limit`) at a time. */
  iterateGrievances(params: PageParams = {}, options?: RequestOptions): AsyncGenerator<Grievance> {
    return everyItem(
      params,
      (page) => this.listGrievances(page, options),
      (page) => page.grievances,
    );
  }

  createGrievance(input: CreateGrievanceInput, options?: RequestOptions): Promise<Grievance> {
    return this.request(
      { method: "POST", path: "/api/v1/grievances", credential: "accessToken", body: input, create: true },
      options,
    );
  }

  /** The active nomination, or null. */
  getNomination(options?: RequestOptions): Promise<Nomination | null> {
    return this.request({ method: "GET", path: "/api/v1/nomination", credential: "accessToken" }, options);
  }

  upsertNomination(input: NominationInput, options?: RequestOptions): Promise<Nomination> {
    return this.request(
      {
        method: "PUT",
        path: "/api/v1/nomination",
        credential: "accessToken",
        body: input,
        naturallyIdempotent: true,
      },
      options,
    );
  }

  revokeNomination(options?: RequestOptions): Promise<RevokeNominationResult> {
    return this.request(
      { method: "DELETE", path: "/api/v1/nomination", credential: "accessToken", naturallyIdempotent: true },
      options,
    );
  }

  // ----- transport -------------------------------------------------------------------------------

  private credentialHeader(credential: Credential): string | undefined {
    if (credential === "none") return undefined;
    const secret = credential === "apiKey" ? this.apiKey : this.accessToken;
    if (!secret) throw new GuardMissingCredentialError(credential);
    return `Bearer ${secret}`;
  }

  private url(operation: Operation): string {
    const query = new URLSearchParams();
    for (const [name, value] of Object.entries(operation.query ?? {})) {
      if (value !== undefined && value !== null && value !== "") query.set(name, String(value));
    }
    const search = query.toString();
    return `${this.baseUrl}${operation.path}${search ? `?${search}` : ""}`;
  }

  private headers(operation: Operation, options: RequestOptions): Headers {
    const headers = new Headers();
    for (const source of [this.defaultHeaders, options.headers ?? {}]) {
      for (const [name, value] of Object.entries(source)) {
        if (!OWNED_HEADERS.has(name.toLowerCase())) headers.set(name, value);
      }
    }
    headers.set("Accept", "application/json");
    headers.set("X-Guard-SDK", `${PACKAGE_NAME}/${VERSION}`);
    const authorization = this.credentialHeader(operation.credential);
    if (authorization) headers.set("Authorization", authorization);
    if (operation.body !== undefined) headers.set("Content-Type", "application/json");
    else headers.delete("Content-Type");
    // One key per logical call, minted before the first attempt, so every retry replays it.
    const key = options.idempotencyKey ?? (operation.create ? randomUUID() : undefined);
    if (key !== undefined) headers.set("Idempotency-Key", key);
    return headers;
  }

  private async request<T>(operation: Operation, options: RequestOptions = {}): Promise<T> {
    checkRequestOptions(options);
    const headers = this.headers(operation, options);
    return sendWithRetries<T>(
      {
        url: this.url(operation),
        method: operation.method,
        headers,
        json: operation.body,
        naturallyIdempotent: operation.naturallyIdempotent === true,
        timeoutMs: options.timeoutMs ?? this.timeoutMs,
        maxRetries: options.maxRetries ?? this.maxRetries,
        signal: options.signal,
      },
      this.transport,
    );
  }
}
