// The HTTP edge of withdrawal by token: POST /api/v1/offline/withdrawals (withdrawConsentByToken)
// and the principal page's routes (/withdraw, /withdraw/{token}; page.ts renders them). Public, like
// the guest withdrawal. No capability gates either: withdrawal must stay possible after an
// organisation switches an offline capability off (DPDP s.6(4)), and the token names no
// organisation before it is looked up.
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../../app.js";
import type { RouteModule } from "../../http/app.js";
import { RateLimiter } from "../../http/rate-limit.js";
import { notFound } from "../../lib/failure.js";
import {
  failurePage,
  formFields,
  queryParam,
  type PageResult,
  type PrincipalPageModule,
} from "../pages/index.js";
import {
  confirmationPage,
  outcomePage,
  pageLanguage,
  tokenFormPage,
  typedToken,
  unknownTokenText,
} from "./page.js";
import { previewWithdrawalToken, withdrawByToken } from "./withdraw.js";

/**
 * Requests per client address and window, shared by the API route and the page's token lookups
 * and confirmations: plenty for a family withdrawing a handful of slips, a stop for a flood.
 * Counted in this instance's memory (http/rate-limit.ts says why and what "approximate" means).
 * Guessing is not what it stops: a token has about 190 random bits.
 */
export const WITHDRAWAL_BUDGET = { limit: 20, windowMs: 60_000 } as const;

const limiter = new RateLimiter();

/** Spends one request of `address`'s budget; throws 429 RATE_LIMITED (Retry-After) when it is spent. */
export function spendWithdrawalBudget(address: string, now: number): void {
  limiter.hit(
    { key: `offline-withdrawal:address:${address}`, organizationId: "", ...WITHDRAWAL_BUDGET },
    now,
  );
}

/** One answer for an unknown token and a malformed one: the route is no oracle of token shapes. */
export const unknownToken = () => notFound("No such withdrawal token");

export const withdrawalRoutes: RouteModule<AppContext> = ({ clock }) => [
  {
    operationId: "withdrawConsentByToken",
    handler: async (request, _reply, { write }) => {
      spendWithdrawalBudget(request.ip, clock.now());
      const result = await write((tx) => withdrawByToken(tx, request.body.withdrawalToken, clock.now()));
      if (!result) throw unknownToken();
      return result;
    },
  },
];

/** The page's routes, registered by ../pages/modules.ts. Lookups and withdrawals spend the budget. */
export const withdrawalPages: PrincipalPageModule = ({ db, clock }) => {
  const languageOf = (request: FastifyRequest) =>
    pageLanguage({ lang: queryParam(request, "lang"), acceptLanguage: request.headers["accept-language"] });

  /** What a token stands for, or the "unknown" answer (the same for a malformed token). */
  async function preview(request: FastifyRequest, token: string, via: "path" | "typed"): Promise<PageResult> {
    const lang = languageOf(request);
    spendWithdrawalBudget(request.ip, clock.now());
    const found = await previewWithdrawalToken(db, token);
    if (!found)
      return via === "typed" ? tokenFormPage(lang, unknownTokenText(lang)) : failurePage(request, 404);
    return confirmationPage(lang, token, found, via);
  }

  async function withdraw(request: FastifyRequest, token: string): Promise<PageResult> {
    const lang = languageOf(request);
    spendWithdrawalBudget(request.ip, clock.now());
    const now = clock.now();
    const result = await db.transaction((tx) => withdrawByToken(tx, token, now));
    if (!result) return tokenFormPage(lang, unknownTokenText(lang));
    return outcomePage(lang, result, await previewWithdrawalToken(db, token));
  }

  const pathToken = (request: FastifyRequest) => (request.params as { token: string }).token;

  return [
    { method: "GET", url: "/withdraw", handler: async (request) => tokenFormPage(languageOf(request)) },
    {
      method: "POST",
      url: "/withdraw",
      handler: async (request) => {
        const fields = formFields(request);
        const token = typedToken(fields.token);
        if (token === "") return tokenFormPage(languageOf(request), unknownTokenText(languageOf(request)));
        return fields.confirm === "yes" ? withdraw(request, token) : preview(request, token, "typed");
      },
    },
    {
      method: "GET",
      url: "/withdraw/:token",
      handler: (request) => preview(request, pathToken(request), "path"),
    },
    { method: "POST", url: "/withdraw/:token", handler: (request) => withdraw(request, pathToken(request)) },
  ];
};
