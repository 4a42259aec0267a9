// The one API client: openapi-fetch typed by schema.ts (generated from contract/openapi/v1.yaml),
// same-origin cookies (the `guard_session` cookie is httpOnly), and middleware that
// - sends `X-CSRF-Token` (the session's csrfToken) on every non-GET request, as the contract requires
//   of cookie-authenticated writes;
// - gives POSTs whose operation takes an `Idempotency-Key` one, unless the caller passed its own
//   (forms pass `useIdempotencyKey()`'s, so a retried submission reuses its key);
// - turns every non-2xx answer into a thrown ApiError, so `await api.GET(...)` either has data or throws;
// - reports a 401 on any call but the session's own as "the session is gone" (SessionProvider then
//   clears it and sends the user to sign-in, and back afterwards).
import createClient, { type Middleware } from "openapi-fetch";
import { apiErrorFrom, networkError } from "./errors.js";
import type { paths } from "./schema.js";

export type { paths, components, operations } from "./schema.js";
export type Schemas = import("./schema.js").components["schemas"];

type PostPathsTakingIdempotencyKey = {
  [P in keyof paths]: paths[P] extends { post: { parameters: { header?: infer H } } }
    ? // A route without header parameters has `header?: never`, and keyof never is every key.
      [NonNullable<H>] extends [never]
      ? never
      : "Idempotency-Key" extends keyof NonNullable<H>
        ? P
        : never
    : never;
}[keyof paths];

/** The POST routes whose operation declares the `Idempotency-Key` header (checked against the contract below). */
export const IDEMPOTENT_POSTS = [
  "/api/v1/staff/notices",
  "/api/v1/staff/domain-groups",
  "/api/v1/consents/anonymous",
  "/api/v1/consents/anonymous/withdraw",
  "/cm/v1/consent",
  "/api/v1/cm/signal",
  "/api/v1/dsr",
  "/api/v1/grievances",
  "/api/v1/offline-consent/links",
  "/api/v1/offline/pos",
  "/api/v1/offline/ivr",
  "/api/v1/staff/devices",
  "/api/v1/staff/ropa/activities",
  "/api/v1/staff/breaches",
  "/api/v1/staff/retention/policies",
  "/api/v1/staff/retention/holds",
  "/api/v1/staff/retention/events",
  "/api/v1/operator/organizations",
] as const satisfies readonly PostPathsTakingIdempotencyKey[];

// Fails to compile when the contract gains an idempotent POST this list lacks (`npm run generate`).
type MissingIdempotentPosts = Exclude<PostPathsTakingIdempotencyKey, (typeof IDEMPOTENT_POSTS)[number]>;
const _everyIdempotentPostListed: [MissingIdempotentPosts] extends [never] ? true : MissingIdempotentPosts =
  true;
void _everyIdempotentPostListed;

const IDEMPOTENT = new Set<string>(IDEMPOTENT_POSTS);
const SESSION_PATH = "/api/v1/staff/session";
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

let csrfToken: string | null = null;
let onSessionLost: (() => void) | null = null;

/** Set by SessionProvider whenever the session changes (null when signed out). */
export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** SessionProvider's handler for a 401 on any call except the session routes themselves. */
export function setSessionLostHandler(handler: (() => void) | null): void {
  onSessionLost = handler;
}

/** A fresh key for one user action; reuse it when retrying that same action. */
export function newIdempotencyKey(): string {
  return crypto.randomUUID();
}

const guardMiddleware: Middleware = {
  onRequest({ request, schemaPath }) {
    if (!READS.has(request.method) && csrfToken) request.headers.set("X-CSRF-Token", csrfToken);
    if (request.method === "POST" && IDEMPOTENT.has(schemaPath) && !request.headers.has("Idempotency-Key")) {
      request.headers.set("Idempotency-Key", newIdempotencyKey());
    }
    return request;
  },
  async onResponse({ response, schemaPath }) {
    if (response.ok) return response;
    const error = apiErrorFrom(response.status, await response.clone().text(), response.headers);
    if (response.status === 401 && schemaPath !== SESSION_PATH) onSessionLost?.();
    throw error;
  },
  onError({ error }) {
    // fetch itself failed (offline, server down): an ApiError too, so pages handle one kind of error.
    return networkError(error);
  },
};

/** A client with Guard's middleware; `api` below is the app's, the tests make their own over a fake fetch. */
export function createGuardClient(options: { baseUrl?: string; fetch?: typeof fetch } = {}) {
  const client = createClient<paths>({
    baseUrl: options.baseUrl ?? "",
    credentials: "same-origin",
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  client.use(guardMiddleware);
  return client;
}

/** The dashboard's API client: same origin as the page (Guard serves both). */
export const api = createGuardClient();

/**
 * The data of a call, for code that wants a plain value: errors were already thrown as ApiError by
 * the middleware, so a missing `data` here means the route answers no body.
 */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data } = await call;
  return data as T;
}
