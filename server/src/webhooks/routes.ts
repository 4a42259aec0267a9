// Staff routes for webhook endpoints and their deliveries (/api/v1/staff/webhooks…). Every read and
// write is scoped to the session's organisation: another organisation's endpoint or delivery is a
// 404, never a 403. Writes need admin or dpo.
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { pageInMemory, pageScope } from "../lib/paging.js";
import { getDelivery, listDeliveries, resendDelivery } from "./deliveries.js";
import { createEndpoint, deleteEndpoint, getEndpoint, listEndpoints, updateEndpoint } from "./endpoints.js";
import { SecretBox } from "../lib/secret-box.js";

const WRITERS = ["admin", "dpo"] as const;

export const webhookRoutes: RouteModule = ({ config, db, clock }) => {
  const box = new SecretBox(config.secretsKey);
  const endpointOptions = () => ({ now: clock.now(), production: config.production });

  return [
    {
      operationId: "listWebhookEndpoints",
      handler: async (request) => {
        const { organizationId } = staffOf(request);
        const { includeDeleted, ...pageRequest } = request.query;
        const endpoints = await listEndpoints(db, organizationId, {
          includeDeleted: includeDeleted ?? false,
        });
        // Endpoints are registered by hand, so they are few: the list is read whole and paged here.
        const page = pageInMemory(endpoints, pageRequest, {
          scope: pageScope("listWebhookEndpoints", organizationId),
          shape: ["number", "string"],
          keyOf: (endpoint) => [endpoint.createdAt, endpoint.endpointId],
          descending: true,
        });
        return { endpoints: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "createWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) => {
        const staff = staffOf(request);
        // In one transaction with its cache invalidation (webhooks/subscriptions.ts).
        return db.transaction((tx) =>
          createEndpoint(
            tx,
            box,
            { ...request.body, organizationId: staff.organizationId, createdBy: staff.staffId },
            endpointOptions(),
          ),
        );
      },
    },
    {
      operationId: "getWebhookEndpoint",
      handler: async (request) => getEndpoint(db, staffOf(request).organizationId, request.params.endpointId),
    },
    {
      operationId: "updateWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) =>
        db.transaction((tx) =>
          updateEndpoint(
            tx,
            staffOf(request).organizationId,
            request.params.endpointId,
            request.body,
            endpointOptions(),
          ),
        ),
    },
    {
      operationId: "deleteWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) => {
        const organizationId = staffOf(request).organizationId;
        return db.transaction((tx) =>
          deleteEndpoint(tx, organizationId, request.params.endpointId, clock.now()),
        );
      },
    },
    {
      operationId: "listWebhookDeliveries",
      handler: async (request) =>
        listDeliveries(db, {
          organizationId: staffOf(request).organizationId,
          endpointId: request.params.endpointId,
          status: request.query.status,
          limit: request.query.limit,
          cursor: request.query.cursor,
        }),
    },
    {
      operationId: "getWebhookDelivery",
      handler: async (request) =>
        getDelivery(db, { organizationId: staffOf(request).organizationId, ...request.params }),
    },
    {
      operationId: "resendWebhookDelivery",
      roles: WRITERS,
      handler: async (request) =>
        resendDelivery(
          db,
          { organizationId: staffOf(request).organizationId, ...request.params },
          clock.now(),
        ),
    },
  ];
};
