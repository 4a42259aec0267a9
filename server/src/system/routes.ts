// Liveness, readiness, and the served contract.
import { isMigrated } from "../db/migrate.js";
import type { RouteModule } from "../http/app.js";
import { Failure } from "../lib/failure.js";

export const systemRoutes: RouteModule = ({ db, state }) => [
  { operationId: "getHealth", handler: async () => ({ status: "ok" }) },
  // The contract limited to the operations this server implements (see http/contract.ts).
  { operationId: "getOpenApiDocument", handler: async (request) => request.server.servedDocument },
  {
    operationId: "getReadiness",
    handler: async (request) => {
      const ready =
        state.ready &&
        (await isMigrated(db).catch((error: unknown) => {
          request.log.warn({ err: error }, "readiness check: database unreachable");
          return false;
        }));
      if (!ready)
        throw new Failure("UNAVAILABLE", "Not ready: the database is unreachable or migrations are pending");
      return { status: "ok" };
    },
  },
];
