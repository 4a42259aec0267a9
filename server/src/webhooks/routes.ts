// Staff routes for webhook endpoints and their deliveries (/api/v1/staff/webhooks…). Every read and
// write is scoped to the session's organisation: another organisation's endpoint or delivery is a
// 404, never a 403. Writes need admin or dpo.
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { getDelivery, listDeliveries, resendDelivery, type DeliveryStatus } from "./deliveries.js";
import {
  createEndpoint,
  deleteEndpoint,
  EndpointDeletedError,
  getEndpoint,
  listEndpoints,
  updateEndpoint,
  WebhookInputError,
  type WebhookEndpoint,
} from "./endpoints.js";
import { wakeWorkers } from "./outbox.js";
import { SecretBox } from "./secret-box.js";

const WRITERS = ["admin", "dpo"] as const;
const DEFAULT_PAGE = 50;
const MAX_PAGE = 200;

/** Domain input errors become VALIDATION_ERROR naming the field; a deleted endpoint is a CONFLICT. */
async function asApiInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookInputError) throw validationError(error.field, error.message);
    if (error instanceof EndpointDeletedError) throw new Failure("CONFLICT", error.message);
    throw error;
  }
}

const endpointNotFound = () => notFound("No such webhook endpoint in this organisation");

export const webhookRoutes: RouteModule = ({ config, db, clock }) => {
  const box = new SecretBox(config.secretsKey);

  /** The endpoint of the caller's organisation; 404 otherwise. */
  const ownEndpoint = async (organizationId: string, endpointId: string): Promise<WebhookEndpoint> => {
    const endpoint = await getEndpoint(db, organizationId, endpointId);
    if (!endpoint) throw endpointNotFound();
    return endpoint;
  };

  return [
    {
      operationId: "listWebhookEndpoints",
      handler: async (request) => {
        const { includeDeleted } = request.query as { includeDeleted?: boolean };
        const endpoints = await listEndpoints(db, staffOf(request).organizationId, {
          includeDeleted: includeDeleted ?? false,
        });
        return { endpoints };
      },
    },
    {
      operationId: "createWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) => {
        const staff = staffOf(request);
        const body = request.body as { url: string; events: string[]; enabled?: boolean };
        return asApiInput(() =>
          createEndpoint(
            db,
            box,
            {
              organizationId: staff.organizationId,
              url: body.url,
              events: body.events,
              ...(body.enabled === undefined ? {} : { enabled: body.enabled }),
              createdBy: staff.staffId,
            },
            { now: clock.now(), production: config.production },
          ),
        );
      },
    },
    {
      operationId: "getWebhookEndpoint",
      handler: async (request) => {
        const { endpointId } = request.params as { endpointId: string };
        return ownEndpoint(staffOf(request).organizationId, endpointId);
      },
    },
    {
      operationId: "updateWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) => {
        const { endpointId } = request.params as { endpointId: string };
        const body = request.body as { url?: string; events?: string[]; enabled?: boolean };
        const updated = await asApiInput(() =>
          updateEndpoint(db, staffOf(request).organizationId, endpointId, body, {
            now: clock.now(),
            production: config.production,
          }),
        );
        if (!updated) throw endpointNotFound();
        // Re-enabling may have made waiting deliveries due.
        if (body.enabled) wakeWorkers();
        return updated;
      },
    },
    {
      operationId: "deleteWebhookEndpoint",
      roles: WRITERS,
      handler: async (request) => {
        const { endpointId } = request.params as { endpointId: string };
        const organizationId = staffOf(request).organizationId;
        const result = await db.transaction((tx) =>
          deleteEndpoint(tx, organizationId, endpointId, clock.now()),
        );
        if (!result) throw endpointNotFound();
        return result;
      },
    },
    {
      operationId: "listWebhookDeliveries",
      handler: async (request) => {
        const { endpointId } = request.params as { endpointId: string };
        const query = request.query as { status?: DeliveryStatus; limit?: number; cursor?: string };
        const organizationId = staffOf(request).organizationId;
        await ownEndpoint(organizationId, endpointId);
        return asApiInput(() =>
          listDeliveries(db, {
            organizationId,
            endpointId,
            limit: Math.min(query.limit ?? DEFAULT_PAGE, MAX_PAGE),
            ...(query.status === undefined ? {} : { status: query.status }),
            ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
          }),
        );
      },
    },
    {
      operationId: "getWebhookDelivery",
      handler: async (request) => {
        const { endpointId, deliveryId } = request.params as { endpointId: string; deliveryId: string };
        const organizationId = staffOf(request).organizationId;
        await ownEndpoint(organizationId, endpointId);
        const delivery = await getDelivery(db, { organizationId, endpointId, deliveryId });
        if (!delivery) throw notFound("No such delivery for this webhook endpoint");
        return delivery;
      },
    },
    {
      operationId: "resendWebhookDelivery",
      roles: WRITERS,
      handler: async (request) => {
        const { endpointId, deliveryId } = request.params as { endpointId: string; deliveryId: string };
        const organizationId = staffOf(request).organizationId;
        const endpoint = await ownEndpoint(organizationId, endpointId);
        if (endpoint.deletedAt !== null) {
          throw new Failure(
            "CONFLICT",
            "This webhook endpoint was deleted; its deliveries cannot be re-sent",
          );
        }
        const delivery = await resendDelivery(db, { organizationId, endpointId, deliveryId }, clock.now());
        if (!delivery) throw notFound("No such delivery for this webhook endpoint");
        wakeWorkers();
        return delivery;
      },
    },
  ];
};
