// HTTP routes of the organisation's settings: read them in force, change some of them. The
// organisation is always the credential's; nothing in the request can name another one.
import type { RouteModule } from "../http/app.js";
import { operatorOf } from "../http/credentials.js";
import { staffOrServiceActor } from "../lib/credentials.js";
import { notFound } from "../lib/failure.js";
import { readOrganizationSettings, updateOrganizationSettings } from "./organization-settings.js";

export const organizationSettingsRoutes: RouteModule = ({ db, clock }) => [
  {
    operationId: "staffGetOrganizationSettings",
    handler: async (request) => {
      const settings = await readOrganizationSettings(db, operatorOf(request).organizationId);
      // Only a deleted organisation with a live credential gets here.
      if (!settings) throw notFound("No such organisation");
      return settings;
    },
  },
  {
    operationId: "staffUpdateOrganizationSettings",
    roles: ["admin", "dpo"],
    handler: async (request) => {
      const operator = operatorOf(request);
      return db.transaction((tx) =>
        updateOrganizationSettings(
          tx,
          {
            organizationId: operator.organizationId,
            patch: request.body,
            actor: staffOrServiceActor(operator),
          },
          clock.now(),
        ),
      );
    },
  },
];
