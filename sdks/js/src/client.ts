// GuardClient for a web page (or any fetch runtime): the contract's public routes and the routes a
// data principal may call with its own access token. It holds no service API key, brokers no token
// and verifies no webhook: those need a secret, and a secret in a page is a published secret. The
// app's server brokers the principal's token (@guard/server `brokerToken`) and hands it to the page.
//
// The transport is the module @guard/server runs too (sdks/typescript-shared/src/transport.ts:
// per-attempt timeout, retry decision, attempt count); the headers and idempotency keys are built
// as there, with fetch, AbortController and Web Crypto only.
import {
  checkMaxRetries,
  checkRequestOptions,
  checkTimeout,
  defaultSleep,
  rejectUnknown,
  sendWithRetries,
  type FetchLike,
  type Method,
  type RequestOptions,
  type Sleeper,
  type Transport,
} from "../../typescript-shared/src/transport.js";
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from "../../typescript-shared/src/retry.js";
import { GuardError, GuardMissingCredentialError } from "./errors.js";
import type {
  AnonymousConsent,
  AnonymousConsentInput,
  AnonymousWithdrawal,
  AnonymousWithdrawalInput,
  BannerConfig,
  BannerScope,
  CreateDsrRequestInput,
  CreateGrievanceInput,
  DsrRequest,
  DsrRequestList,
  Grievance,
  GrievanceList,
  LinkAnonymousConsentResult,
  Nomination,
  NominationInput,
  Notice,
  NoticeList,
  Organization,
  PageParams,
  RevokeNominationResult,
  WithdrawalByTokenResult,
} from "./types.js";
import { uuidV4 } from "./uuid.js";
import { PACKAGE_NAME, VERSION } from "./version.js";

export type { FetchLike, RequestOptions, Sleeper };

export interface GuardClientOptions {
  /** Where Guard is served, e.g. `https://guard.example.com` (a trailing `/` is ignored). */
  baseUrl: string;
  /** The data principal's access token, brokered by your server; needed for principal calls only. */
  accessToken?: string | undefined;
  /** Default: the global fetch. */
  fetch?: FetchLike | undefined;
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

const CLIENT_OPTIONS = [
  "baseUrl",
  "accessToken",
  "fetch",
  "timeoutMs",
  "maxRetries",
  "defaultHeaders",
  "sleep",
  "random",
  "now",
];
const PAGE_PARAMS = ["limit", "cursor"];
/**
 * Headers the SDK owns: a caller's value would break authentication or the attempt count. Literals
 * only: a call at module level (`RETRY_COUNT_HEADER.toLowerCase()`) is code a bundler must keep.
 */
const OWNED_HEADERS = ["authorization", "x-guard-sdk", "x-guard-retry-count"];

interface Operation {
  method: Method;
  path: string;
  /** A principal call: sends the access token, and fails locally without one. */
  principal?: boolean;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** A create call: it always carries an Idempotency-Key (the caller's, or one minted here). */
  create?: boolean;
  /** A write the contract declares idempotent by its natural key, so a repeat cannot act twice. */
  naturallyIdempotent?: boolean;
}

function checkPageParams(params: PageParams | undefined): PageParams {
  if (params === undefined || params === null) return {};
  if (typeof params !== "object") throw new TypeError("Page params must be an object: { limit?, cursor? }");
  rejectUnknown(params, PAGE_PARAMS, "page param");
  return params;
}

/** Every item of a list, page after page, following `nextCursor` from `params.cursor` on. */
async function* everyItem<Page extends { nextCursor: string | null }, Item>(
  params: PageParams,
  readPage: (params: PageParams) => Promise<Page>,
  itemsOf: (page: Page) => Item[],
): AsyncGenerator<Item, void, undefined> {
  let cursor = checkPageParams(params).cursor;
  for (;;) {
    const page = await readPage({ limit: params.limit, cursor });
    yield* itemsOf(page);
    if (page.nextCursor === null || page.nextCursor === undefined) return;
    // A server that hands back the cursor it was given would loop forever.
    if (page.nextCursor === cursor) throw new GuardError(`The list did not advance past cursor ${cursor}`);
    cursor = page.nextCursor;
  }
}

const segment = (value: string): string => encodeURIComponent(value);

export class GuardClient {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly maxRetries: number;
  private accessToken: string | undefined;
  private readonly defaultHeaders: Record<string, string>;
  /** How calls go out: fetch, and the sleep, clock and jitter the retries use. */
  private readonly transport: Transport;

  constructor(options: GuardClientOptions) {
    if (options === null || typeof options !== "object") {
      throw new TypeError("new GuardClient({ baseUrl, accessToken? }) takes an options object");
    }
    // A service key here would be readable by every visitor of the page: refuse it by name.
    if ("apiKey" in options) {
      throw new TypeError("@guard/js never holds a service API key: keep it on your server (@guard/server)");
    }
    rejectUnknown(options, CLIENT_OPTIONS, "GuardClient option");
    if (typeof options.baseUrl !== "string" || !/^https?:\/\/[^/]/i.test(options.baseUrl)) {
      throw new TypeError("baseUrl must be an http(s) URL, e.g. https://guard.example.com");
    }
    checkTimeout(options.timeoutMs);
    checkMaxRetries(options.maxRetries);
    if (options.fetch === undefined && typeof globalThis.fetch !== "function") {
      throw new TypeError("No fetch available: pass one as the fetch option");
    }
    this.baseUrl = options.baseUrl.replace(/\/$/, "");
    this.accessToken = options.accessToken || undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    this.defaultHeaders = { ...options.defaultHeaders };
    this.transport = {
      // Browsers throw "Illegal invocation" when fetch is called detached from its global, so the
      // default is a wrapper, not a stored reference.
      fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
      sleep: options.sleep ?? defaultSleep,
      now: options.now ?? Date.now,
      random: options.random ?? Math.random,
    };
  }

  /** Uses `token` for principal calls from now on (after sign-in, or when your server re-brokers it). */
  setAccessToken(token: string | null | undefined): void {
    this.accessToken = token || undefined;
  }

  // ----- public (no credential) ------------------------------------------------------------------

  getOrganization(slug: string, options?: RequestOptions): Promise<Organization> {
    return this.request({ method: "GET", path: `/api/v1/org/${segment(slug)}` }, options);
  }

  /** One page of the organisation's published notices, oldest first. */
  async getNotices(orgId: string, params?: PageParams, options?: RequestOptions): Promise<NoticeList> {
    const page = checkPageParams(params);
    return this.request(
      {
        method: "GET",
        path: `/api/v1/org/${segment(orgId)}/notices`,
        query: { limit: page.limit, cursor: page.cursor },
      },
      options,
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
    return this.request({ method: "GET", path: `/api/v1/notices/${segment(noticeId)}` }, options);
  }

  /** `{ domain }` for a web page (e.g. `location.hostname`), `{ appId }` for an app, `{}` for the default. */
  getBannerConfig(orgId: string, scope: BannerScope = {}, options?: RequestOptions): Promise<BannerConfig> {
    return this.request(
      {
        method: "GET",
        path: `/api/v1/org/${segment(orgId)}/banner-config`,
        query: { domain: scope.domain, appId: scope.appId },
      },
      options,
    );
  }

  /**
   * Records a visitor's consent under a client-generated `anonymousId` (keep it, e.g. in
   * localStorage, to link it after sign-in). A lost response is retried with the same
   * Idempotency-Key, so it records once.
   */
  giveAnonymousConsent(input: AnonymousConsentInput, options?: RequestOptions): Promise<AnonymousConsent> {
    return this.request(
      { method: "POST", path: "/api/v1/consents/anonymous", body: input, create: true },
      options,
    );
  }

  /**
   * Withdraws the visitor's consent to `purpose` under `noticeId`, given under `anonymousId`:
   * withdrawing is as easy as giving. A `GuardApiError` with status 404 means that visitor never
   * consented to it, 409 that the consent is already withdrawn. Retried with one Idempotency-Key.
   */
  withdrawAnonymousConsent(
    input: AnonymousWithdrawalInput,
    options?: RequestOptions,
  ): Promise<AnonymousWithdrawal> {
    return this.request(
      { method: "POST", path: "/api/v1/consents/anonymous/withdraw", body: input, create: true },
      options,
    );
  }

  /**
   * Withdraws every consent an offline withdrawal token stands for: the token printed on a slip or
   * read out after a consent given on a device, a QR page, at a point of sale or on a call (DPDP
   * s.6(4): withdrawing as easy as giving). No credential: the token is the proof, so a page that
   * asks the visitor for it can withdraw from the browser. Idempotent (a repeat lists the consents
   * under `alreadyWithdrawn`), so it is retried; an unknown token is a `GuardApiError` with status 404.
   */
  withdrawConsentByToken(
    withdrawalToken: string,
    options?: RequestOptions,
  ): Promise<WithdrawalByTokenResult> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/offline/withdrawals",
        body: { withdrawalToken },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  // ----- principal access token ------------------------------------------------------------------

  /** Moves the visitor's anonymous consents to the signed-in principal. Idempotent. */
  linkAnonymousConsent(anonymousId: string, options?: RequestOptions): Promise<LinkAnonymousConsentResult> {
    return this.request(
      {
        method: "POST",
        path: "/api/v1/link-anonymous-consent",
        principal: true,
        body: { anonymousId },
        naturallyIdempotent: true,
      },
      options,
    );
  }

  /** One page of the principal's own requests, newest first. */
  async listDsrRequests(params?: PageParams, options?: RequestOptions): Promise<DsrRequestList> {
    const page = checkPageParams(params);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/dsr",
        principal: true,
        query: { limit: page.limit, cursor: page.cursor },
      },
      options,
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

  /** Files a data-subject request (access, correction, erasure, …). */
  createDsrRequest(input: CreateDsrRequestInput, options?: RequestOptions): Promise<DsrRequest> {
    return this.request(
      { method: "POST", path: "/api/v1/dsr", principal: true, body: input, create: true },
      options,
    );
  }

  /** One page of the principal's own grievances, newest first. */
  async listGrievances(params?: PageParams, options?: RequestOptions): Promise<GrievanceList> {
    const page = checkPageParams(params);
    return this.request(
      {
        method: "GET",
        path: "/api/v1/grievances",
        principal: true,
        query: { limit: page.limit, cursor: page.cursor },
      },
      options,
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
      { method: "POST", path: "/api/v1/grievances", principal: true, body: input, create: true },
      options,
    );
  }

  /** The active nomination, or null. */
  getNomination(options?: RequestOptions): Promise<Nomination | null> {
    return this.request({ method: "GET", path: "/api/v1/nomination", principal: true }, options);
  }

  upsertNomination(input: NominationInput, options?: RequestOptions): Promise<Nomination> {
    return this.request(
      { method: "PUT", path: "/api/v1/nomination", principal: true, body: input, naturallyIdempotent: true },
      options,
    );
  }

  revokeNomination(options?: RequestOptions): Promise<RevokeNominationResult> {
    return this.request(
      { method: "DELETE", path: "/api/v1/nomination", principal: true, naturallyIdempotent: true },
      options,
    );
  }

  // ----- transport -------------------------------------------------------------------------------

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
        if (!OWNED_HEADERS.includes(name.toLowerCase())) headers.set(name, value);
      }
    }
    headers.set("Accept", "application/json");
    headers.set("X-Guard-SDK", `${PACKAGE_NAME}/${VERSION}`);
    if (operation.principal) {
      if (!this.accessToken) throw new GuardMissingCredentialError();
      headers.set("Authorization", `Bearer ${this.accessToken}`);
    }
    if (operation.body !== undefined) headers.set("Content-Type", "application/json");
    else headers.delete("Content-Type");
    // One key per logical call, minted before the first attempt, so every retry replays it.
    const key = options.idempotencyKey ?? (operation.create ? uuidV4() : undefined);
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
