// Every domain's route module, in one list. A domain adds its routes here when its issue lands;
// the served OpenAPI document advertises exactly the operations registered.
import { accountRoutes } from "./accounts/routes.js";
import { bannerRoutes } from "./banner/routes.js";
import type { RouteModule } from "./http/app.js";
import { noticeRoutes } from "./notices/routes.js";
import { systemRoutes } from "./system/routes.js";

export const ROUTE_MODULES: RouteModule[] = [systemRoutes, accountRoutes, noticeRoutes, bannerRoutes];
