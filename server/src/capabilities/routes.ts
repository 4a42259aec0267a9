// Staff routes for capabilities: any role lists them; only an admin switches them. These routes
// are never gated themselves, or an organisation could switch off its way back.
import { staffOf } from "../http/credentials.js";
import type { RouteModule } from "../http/app.js";
import { notFound, validationError } from "../lib/failure.js";
import {
  describeCapabilities,
  isCapabilityName,
  readCapabilityOverrides,
  setCapabilities,
  type CapabilityName,
} from "./capabilities.js";

export const capabilityRoutes: RouteModule = ({ db }) => [
  {
    operationId: "listCapabilities",
    handler: async (request) => {
      const overrides = await readCapabilityOverrides(db, staffOf(request).organizationId);
      if (!overrides) throw notFound("No such organisation");
      return { capabilities: describeCapabilities(overrides) };
    },
  },
  {
    operationId: "setCapabilities",
    roles: ["admin"],
    handler: async (request) => {
      const { capabilities } = request.body as { capabilities: Record<string, boolean> };
      const changes: Partial<Record<CapabilityName, boolean>> = {};
      for (const [name, enabled] of Object.entries(capabilities)) {
        if (!isCapabilityName(name))
          throw validationError(`capabilities.${name}`, `capabilities.${name} is not a capability`);
        changes[name] = enabled;
      }
      const organizationId = staffOf(request).organizationId;
      const overrides = await db.transaction((tx) => setCapabilities(tx, organizationId, changes));
      if (!overrides) throw notFound("No such organisation");
      return { capabilities: describeCapabilities(overrides) };
    },
  },
];
