// Staff routes of enrolled devices (/api/v1/staff/devices…), for a staff session or the
// organisation's service key (a server managing a device fleet). Every read and write is scoped to
// the caller's organisation: another organisation's device is a 404. Writes need admin or dpo (a
// service key may write). All three are behind the `offline_agent_capture` capability
// (capabilities/capabilities.ts), checked centrally before a handler runs.
import type { AppContext } from "../../app.js";
import type { RouteModule } from "../../http/app.js";
import { operatorOf } from "../../http/credentials.js";
import { staffOrServiceActor } from "../../lib/credentials.js";
import { deviceToWire, enrolDevice, pageDevices, revokeDevice } from "./devices.js";

const WRITERS = ["admin", "dpo"] as const;

export const deviceRoutes: RouteModule<AppContext> = ({ db, clock }) => [
  {
    operationId: "listDevices",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const page = await pageDevices(db, organizationId, request.query);
      return { devices: page.items.map(deviceToWire), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "enrollDevice",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return tools.write(async (tx) =>
        deviceToWire(
          await enrolDevice(
            tx,
            {
              organizationId: operator.organizationId,
              ...request.body,
              actor: staffOrServiceActor(operator),
            },
            now,
          ),
        ),
      );
    },
  },
  {
    operationId: "revokeDevice",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) =>
        deviceToWire(
          await revokeDevice(
            tx,
            {
              organizationId: operator.organizationId,
              deviceId: request.params.deviceId,
              reason: request.body.reason,
              actor: staffOrServiceActor(operator),
            },
            now,
          ),
        ),
      );
    },
  },
];
