// Every domain's route module, in one list. A domain adds its routes here when its issue lands;
// the served OpenAPI document advertises exactly the operations registered.
import { accountRoutes } from "./accounts/routes.js";
import { auditRoutes } from "./audit/routes.js";
import { bannerRoutes } from "./banner/routes.js";
import { breachRoutes } from "./breaches/routes.js";
import { capabilityRoutes } from "./capabilities/routes.js";
import { consentRoutes } from "./consent/routes.js";
import { gateRoutes } from "./gate/routes.js";
import type { RouteModule } from "./http/app.js";
import type { AppContext } from "./app.js";
import { logRetentionRoutes } from "./log-retention/routes.js";
import { noticeRoutes } from "./notices/routes.js";
import { notificationRoutes } from "./notifications/routes.js";
import { offlineRoutes } from "./offline/routes.js";
import { overviewRoutes } from "./overview/routes.js";
import { retentionRoutes } from "./retention/routes.js";
import { rightsRoutes } from "./rights/routes.js";
import { ropaRoutes } from "./ropa/routes.js";
import { organizationSettingsRoutes } from "./settings/routes.js";
import { systemRoutes } from "./system/routes.js";
import { webhookRoutes } from "./webhooks/routes.js";

export const ROUTE_MODULES: RouteModule<AppContext>[] = [
  systemRoutes,
  accountRoutes,
  noticeRoutes,
  bannerRoutes,
  webhookRoutes,
  rightsRoutes,
  consentRoutes,
  gateRoutes,
  capabilityRoutes,
  organizationSettingsRoutes,
  overviewRoutes,
  auditRoutes,
  offlineRoutes,
  breachRoutes,
  ropaRoutes,
  notificationRoutes,
  retentionRoutes,
  logRetentionRoutes,
];
