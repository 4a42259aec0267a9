// The offline domain's route modules, combined into the one module server/src/routes.ts lists, and
// the per-API-key budgets of the four offline routes (contract: 429 RATE_LIMITED with Retry-After).
// Counted in this instance's memory, like the guest routes' budgets (http/rate-limit.ts says why
// and what "approximate" means). One budget per key and route, so a busy till cannot starve a
// device fleet's sync behind the same key.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { RateLimiter } from "../http/rate-limit.js";
import { captureRoutes } from "./captures/routes.js";
import { deviceRoutes } from "./devices/routes.js";
import { ivrRoutes } from "./ivr/routes.js";
import { linkRoutes } from "./links/routes.js";
import { posRoutes } from "./pos/routes.js";
import { withdrawalRoutes } from "./withdrawal/routes.js";

/** Each sub-area's routes (devices/, captures/, links/, pos/, ivr/, withdrawal/). */
const OFFLINE_ROUTE_MODULES: RouteModule<AppContext>[] = [
  linkRoutes,
  captureRoutes,
  deviceRoutes,
  ivrRoutes,
  withdrawalRoutes,
  posRoutes,
];

export const offlineRoutes: RouteModule<AppContext> = (ctx) =>
  OFFLINE_ROUTE_MODULES.flatMap((module) => module(ctx));

/** Requests per key, route and window: generous for a fleet's sync, a stop for a runaway loop. */
export const OFFLINE_ROUTE_BUDGET = { limit: 600, windowMs: 60_000 } as const;

const limiter = new RateLimiter();

/** Spends one request of the key's budget on `route`; throws 429 RATE_LIMITED when it is spent. */
export function spendOfflineBudget(
  credential: { organizationId: string; apiKeyId: string },
  route: "links" | "captures" | "pos" | "ivr",
  now: number,
): void {
  limiter.hit(
    {
      key: `offline:${route}:${credential.apiKeyId}`,
      organizationId: credential.organizationId,
      ...OFFLINE_ROUTE_BUDGET,
    },
    now,
  );
}
