// The composition root: the frame (http/) knows no domain, so this is where the domains' shared
// services (the per-instance caches and the invalidation feed that keeps them honest) are made, and
// where the frame is handed the access check and the browser-access (CORS) policy (access/) and the
// route modules. `guard serve` (server.ts) and the tests build the application here.
import type { FastifyInstance } from "fastify";
import { createAccessPolicy } from "./access/access.js";
import { createCorsPolicy } from "./access/cors.js";
import { ApiKeyCache } from "./accounts/api-keys.js";
import { CapabilityCache } from "./capabilities/capabilities.js";
import type { Config } from "./config.js";
import type { Database } from "./db/database.js";
import { InvalidationFeed } from "./db/invalidation.js";
import { buildApp, type RouteContext, type RouteModule } from "./http/app.js";
import { systemClock, type Clock } from "./lib/clock.js";
import { WebhookRelayNotifier, type Notifier } from "./notifications/notifier.js";
import { loadBannerScript, type BannerScript } from "./banner/script.js";
import { registerBannerScript } from "./web/banner-script.js";
import { loadDashboard, registerDashboard, type DashboardBuild } from "./web/dashboard.js";
import { registerDemoShop } from "./web/demo-shop.js";
import { registerOfflinePages } from "./offline/pages/modules.js";

/** What every route module receives: the frame's context and the domains' shared services. */
export interface AppContext extends RouteContext {
  /** Per-instance caches of what every authenticated request reads (kept honest by invalidations). */
  apiKeys: ApiKeyCache;
  /** Organisations' capability switches; `capabilities.enabled` answers "is X on for this organisation". */
  capabilities: CapabilityCache;
  /** The hosted banner script this build serves; undefined when `banner/` has not been built. */
  bannerScript: BannerScript | undefined;
  /** How principals are told what the DPDP Rules require (notifications/notifier.ts). */
  notifier: Notifier;
}

export interface AppOptions {
  config: Config;
  db: Database;
  clock?: Clock;
  routes: RouteModule<AppContext>[];
  /** Check every response body against its contract schema and fail loudly (tests). */
  checkResponses?: boolean;
  /** Compile every route's schemas at start-up rather than on first use (http/app.ts). */
  compileSchemasEagerly?: boolean;
  /** A pino destination for logs (tests capture them); default stdout. */
  logStream?: { write(line: string): void };
  /** The banner script to serve; default: the build in banner/dist; null serves none. */
  bannerScript?: BannerScript | null;
  /** Serve the demo shop page (`/demo/shop`), as `guard serve --seed-demo` does. */
  demoShop?: boolean;
  /** The dashboard to serve under /dashboard; default: the build in dashboard/dist; null serves none. */
  dashboard?: DashboardBuild | null;
  /** How principals are notified; default: the webhook relay. */
  notifier?: Notifier;
}

export async function createApp(options: AppOptions): Promise<FastifyInstance> {
  const { config, db } = options;
  const invalidations = await InvalidationFeed.open(db);
  try {
    const context: AppContext = {
      config,
      db,
      clock: options.clock ?? systemClock,
      state: { ready: true },
      apiKeys: new ApiKeyCache(invalidations),
      capabilities: new CapabilityCache(invalidations),
      bannerScript: options.bannerScript === null ? undefined : (options.bannerScript ?? loadBannerScript()),
      notifier: options.notifier ?? new WebhookRelayNotifier(),
    };
    const app = await buildApp({
      context,
      access: createAccessPolicy(context),
      cors: createCorsPolicy(context, invalidations),
      routes: options.routes,
      checkResponses: options.checkResponses,
      compileSchemasEagerly: options.compileSchemasEagerly,
      logStream: options.logStream,
    });
    if (context.bannerScript) registerBannerScript(app, context.bannerScript);
    if (options.demoShop) registerDemoShop(app);
    // The offline domain's principal-facing pages (QR link, POS request, withdrawal): offline/pages/.
    registerOfflinePages(app, context);
    const dashboard = options.dashboard === null ? undefined : (options.dashboard ?? loadDashboard());
    if (dashboard) registerDashboard(app, dashboard);
    app.addHook("onClose", () => invalidations.close());
    return app;
  } catch (error) {
    await invalidations.close();
    throw error;
  }
}
