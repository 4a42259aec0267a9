// Staff route of notifications sent to principals (/api/v1/staff/notifications), for a staff
// session (any role) or the organisation's service key; scoped to the caller's organisation.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { operatorOf } from "../http/credentials.js";
import { notificationToWire, pageNotifications } from "./notifications.js";

export const notificationRoutes: RouteModule<AppContext> = ({ db }) => [
  {
    operationId: "listPrincipalNotifications",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const page = await pageNotifications(db, organizationId, request.query);
      return { notifications: page.items.map(notificationToWire), nextCursor: page.nextCursor };
    },
  },
];
