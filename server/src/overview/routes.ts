// HTTP route of the staff overview: any staff role, the session's organisation only.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { staffOf } from "../http/credentials.js";
import { buildOverview } from "./overview.js";

export const overviewRoutes: RouteModule<AppContext> = ({ db, clock }) => [
  {
    operationId: "staffGetOverview",
    handler: async (request) => {
      const staff = staffOf(request);
      // The contract's schema has applied the defaults and bounds of both parameters.
      const { days = 30, utcOffsetMinutes = 0 } = request.query;
      return buildOverview(db, staff.organizationId, { days, utcOffsetMinutes }, clock.now());
    },
  },
];
