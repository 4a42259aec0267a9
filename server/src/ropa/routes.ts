// The records of processing activities over HTTP: the staff routes (/api/v1/staff/ropa/activities…)
// for a staff session or the organisation's service key, and the partner route
// GET /api/v1/cross-border/transfers (service key; the `cross_border_api` capability, checked
// centrally before a handler runs). Every read and write is scoped to the caller's organisation:
// another organisation's activity is a 404. Writes need admin or dpo (a service key may write).
import type { FastifyRequest } from "fastify";
import type { AppContext } from "../app.js";
import { operatorOf, serviceOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { staffOrServiceActor } from "../lib/credentials.js";
import {
  activityToWire,
  createActivity,
  getActivity,
  pageActivities,
  pageCrossBorderTransfers,
  setActivityArchived,
  transferToWire,
  updateActivity,
} from "./activities.js";

const WRITERS = ["admin", "dpo"] as const;

export const ropaRoutes: RouteModule<AppContext> = ({ db, clock }) => {
  const setArchived = (request: FastifyRequest & { params: { activityId: string } }, archived: boolean) => {
    const operator = operatorOf(request);
    const now = clock.now();
    return db.transaction(async (tx) =>
      activityToWire(
        await setActivityArchived(
          tx,
          {
            organizationId: operator.organizationId,
            activityId: request.params.activityId,
            actor: staffOrServiceActor(operator),
            archived,
          },
          now,
        ),
      ),
    );
  };
  return [
    {
      operationId: "listProcessingActivities",
      handler: async (request) => {
        const { organizationId } = operatorOf(request);
        const page = await pageActivities(db, organizationId, request.query);
        return { activities: page.items.map(activityToWire), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "createProcessingActivity",
      roles: WRITERS,
      idempotency: true,
      handler: async (request, _reply, tools) => {
        const operator = operatorOf(request);
        const now = clock.now();
        return tools.write(async (tx) =>
          activityToWire(
            await createActivity(
              tx,
              {
                organizationId: operator.organizationId,
                body: request.body,
                actor: staffOrServiceActor(operator),
              },
              now,
            ),
          ),
        );
      },
    },
    {
      operationId: "getProcessingActivity",
      handler: async (request) => {
        const { organizationId } = operatorOf(request);
        return activityToWire(await getActivity(db, organizationId, request.params.activityId));
      },
    },
    {
      operationId: "updateProcessingActivity",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const now = clock.now();
        return db.transaction(async (tx) =>
          activityToWire(
            await updateActivity(
              tx,
              {
                organizationId: operator.organizationId,
                activityId: request.params.activityId,
                patch: request.body,
                actor: staffOrServiceActor(operator),
              },
              now,
            ),
          ),
        );
      },
    },
    {
      operationId: "archiveProcessingActivity",
      roles: WRITERS,
      handler: (request) => setArchived(request, true),
    },
    {
      operationId: "restoreProcessingActivity",
      roles: WRITERS,
      handler: (request) => setArchived(request, false),
    },
    {
      operationId: "listCrossBorderTransfers",
      handler: async (request) => {
        const { organizationId } = serviceOf(request);
        const page = await pageCrossBorderTransfers(db, organizationId, request.query);
        return { transfers: page.items.map(transferToWire), nextCursor: page.nextCursor };
      },
    },
  ];
};
