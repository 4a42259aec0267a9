// Routes of signed offline captures: the sync a device (or the server fronting a fleet) calls with
// the organisation's service key, and the staff review of quarantined sessions. All behind the
// `offline_agent_capture` capability (capabilities/capabilities.ts), checked centrally. The sync is
// not an Idempotency-Key route: each session's clientSessionId is its idempotency key.
import type { AppContext } from "../../app.js";
import { serviceOf, staffOf } from "../../http/credentials.js";
import type { RouteModule } from "../../http/app.js";
import { spendOfflineBudget } from "../routes.js";
import {
  captureDeps,
  captureToWire,
  pageCaptures,
  rejectCapture,
  releaseCapture,
  syncCaptures,
} from "./captures.js";

const WRITERS = ["admin", "dpo"] as const;

export const captureRoutes: RouteModule<AppContext> = ({ config, db, clock }) => {
  const deps = captureDeps(config);
  return [
    {
      operationId: "syncOfflineCaptures",
      handler: async (request) => {
        const credential = serviceOf(request);
        const now = clock.now();
        spendOfflineBudget(credential, "captures", now);
        const results = await syncCaptures(db, deps, credential.organizationId, request.body.sessions, now);
        return { results };
      },
    },
    {
      operationId: "listOfflineCaptures",
      handler: async (request) => {
        const page = await pageCaptures(db, staffOf(request).organizationId, request.query);
        return { captures: page.items.map(captureToWire), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "releaseOfflineCapture",
      roles: WRITERS,
      handler: async (request) => {
        const { organizationId, staffId } = staffOf(request);
        const now = clock.now();
        return db.transaction((tx) =>
          releaseCapture(
            tx,
            deps,
            { organizationId, reviewerId: staffId },
            { sessionId: request.params.sessionId, note: request.body.note },
            now,
          ),
        );
      },
    },
    {
      operationId: "rejectOfflineCapture",
      roles: WRITERS,
      handler: async (request) => {
        const { organizationId, staffId } = staffOf(request);
        const now = clock.now();
        const rejected = await db.transaction((tx) =>
          rejectCapture(
            tx,
            { organizationId, reviewerId: staffId },
            { sessionId: request.params.sessionId, note: request.body.note },
            now,
          ),
        );
        return captureToWire(rejected);
      },
    },
  ];
};
