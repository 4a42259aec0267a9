// Staff routes for capabilities: any role lists them; only an admin switches them. These routes
// are never gated themselves, or an organisation could switch off its way back.
import type { FastifyRequest } from "fastify";
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { notFound, validationError } from "../lib/failure.js";
import { builtCapabilities, listCapabilities, setCapabilities, type CapabilityName } from "./capabilities.js";

/** The capabilities built into this app: known once every route module has registered. */
const builtIn = (request: FastifyRequest): CapabilityName[] =>
  builtCapabilities(request.server.implementedOperations);

export const capabilityRoutes: RouteModule = ({ db }) => [
  {
    operationId: "listCapabilities",
    handler: async (request) => {
      const capabilities = await listCapabilities(db, staffOf(request).organizationId, builtIn(request));
      if (!capabilities) throw notFound("No such organisation");
      return { capabilities };
    },
  },
  {
    operationId: "setCapabilities",
    roles: ["admin"],
    handler: async (request) => {
      const built = builtIn(request);
      const changes: Partial<Record<CapabilityName, boolean>> = {};
      for (const [name, enabled] of Object.entries(request.body.capabilities)) {
        if (!(built as string[]).includes(name))
          throw validationError(`capabilities.${name}`, `capabilities.${name} is not a capability`);
        changes[name as CapabilityName] = enabled;
      }
      const organizationId = staffOf(request).organizationId;
      const capabilities = await db.transaction((tx) => setCapabilities(tx, organizationId, changes, built));
      if (!capabilities) throw notFound("No such organisation");
      return { capabilities };
    },
  },
];
