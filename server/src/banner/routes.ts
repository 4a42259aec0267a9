import { findOrganizationById } from "../accounts/organizations.js";
import type { RouteModule } from "../http/app.js";
import { notFound } from "../http/errors.js";
import { resolveBannerConfig, type BannerScope } from "./banner-config.js";

export const bannerRoutes: RouteModule = ({ db }) => [
  {
    operationId: "getBannerConfig",
    handler: async (request) => {
      const { orgId } = request.params as { orgId: string };
      const { domain, appId } = request.query as { domain?: string; appId?: string };
      if (!(await findOrganizationById(db, orgId))) throw notFound("No such organisation");
      // Both given: the web scope wins (documented in the contract).
      const scope: BannerScope =
        domain !== undefined
          ? { kind: "domain", domain }
          : appId !== undefined
            ? { kind: "app", appId }
            : { kind: "default" };
      const config = await resolveBannerConfig(db, orgId, scope);
      if (!config)
        throw notFound(
          scope.kind === "app"
            ? "This app is not registered to the organisation"
            : "This domain is not registered to the organisation",
        );
      return config;
    },
  },
];
