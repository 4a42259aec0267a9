// HTTP routes of the retention register: the partner routes the fiduciary's backend calls with its
// service key (GET /api/v1/retention/due, the execution confirmation; both behind the
// `retention_api` capability) and the staff routes (policies, presets, legal holds, reported
// events, the erasure schedule and its cancellation by hand) for a staff session (writes: admin or dpo) or the service key.
// Every read and write is scoped to the credential's organisation: another organisation's id is 404.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { operatorOf, serviceOf } from "../http/credentials.js";
import { staffOrServiceActor } from "../lib/credentials.js";
import { ropaActivities } from "./activities.js";
import { cancelByStaff, confirmExecuted, pageDueErasures, pageErasures } from "./erasures.js";
import { recordRetentionEvent } from "./events.js";
import { holdsToWire, pageHolds, placeHold, releaseHold } from "./holds.js";
import {
  archivePolicy,
  changePolicy,
  createPolicy,
  getPolicy,
  pagePolicies,
  policyToWire,
  RETENTION_PRESETS,
} from "./policies.js";

const WRITERS = ["admin", "dpo"] as const;

export const retentionRoutes: RouteModule<AppContext> = ({ db, clock }) => [
  // ----- partner routes (service key) -------------------------------------------------------------
  {
    operationId: "listDueRetentions",
    handler: async (request) => {
      const service = serviceOf(request);
      const page = await pageDueErasures(db, service.organizationId, request.query, clock.now());
      return { due: page.items, nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "confirmRetentionErasureExecuted",
    handler: async (request) => {
      const service = serviceOf(request);
      const now = clock.now();
      return db.transaction((tx) =>
        confirmExecuted(
          tx,
          {
            organizationId: service.organizationId,
            scheduledErasureId: request.params.scheduledErasureId,
            executedAt: request.body.executedAt,
            actor: staffOrServiceActor(service),
          },
          now,
        ),
      );
    },
  },
  // ----- staff: policies --------------------------------------------------------------------------
  {
    operationId: "listRetentionPolicies",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const page = await pagePolicies(db, organizationId, request.query);
      return { policies: page.items.map(policyToWire), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "createRetentionPolicy",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return tools.write(async (tx) =>
        policyToWire(
          await createPolicy(
            tx,
            {
              organizationId: operator.organizationId,
              body: request.body,
              actor: staffOrServiceActor(operator),
            },
            ropaActivities,
            now,
          ),
        ),
      );
    },
  },
  {
    operationId: "getRetentionPolicy",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      return policyToWire(await getPolicy(db, organizationId, request.params.policyId));
    },
  },
  {
    operationId: "updateRetentionPolicy",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) =>
        policyToWire(
          await changePolicy(
            tx,
            {
              organizationId: operator.organizationId,
              policyId: request.params.policyId,
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
    operationId: "archiveRetentionPolicy",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) =>
        policyToWire(
          await archivePolicy(
            tx,
            {
              organizationId: operator.organizationId,
              policyId: request.params.policyId,
              actor: staffOrServiceActor(operator),
            },
            now,
          ),
        ),
      );
    },
  },
  {
    operationId: "listRetentionPresets",
    handler: async (request) => {
      operatorOf(request);
      return { presets: Object.values(RETENTION_PRESETS) };
    },
  },
  // ----- staff: legal holds -----------------------------------------------------------------------
  {
    operationId: "listLegalHolds",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const now = clock.now();
      const page = await pageHolds(db, organizationId, request.query, now);
      return { holds: await holdsToWire(db, organizationId, page.items, now), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "placeLegalHold",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return tools.write(async (tx) => {
        const hold = await placeHold(
          tx,
          {
            organizationId: operator.organizationId,
            body: request.body,
            actor: staffOrServiceActor(operator),
          },
          now,
        );
        return (await holdsToWire(tx, operator.organizationId, [hold], now))[0]!;
      });
    },
  },
  {
    operationId: "releaseLegalHold",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const hold = await releaseHold(
          tx,
          {
            organizationId: operator.organizationId,
            holdId: request.params.holdId,
            reason: request.body.reason,
            actor: staffOrServiceActor(operator),
          },
          now,
        );
        return (await holdsToWire(tx, operator.organizationId, [hold], now))[0]!;
      });
    },
  },
  // ----- staff: reported events and the schedule --------------------------------------------------
  {
    operationId: "recordRetentionEvent",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return tools.write((tx) =>
        recordRetentionEvent(
          tx,
          {
            organizationId: operator.organizationId,
            body: request.body,
            actor: staffOrServiceActor(operator),
          },
          now,
        ),
      );
    },
  },
  {
    operationId: "listScheduledErasures",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const { query } = request;
      const page = await pageErasures(
        db,
        organizationId,
        { ...query, externalId: query.userId },
        clock.now(),
      );
      return { erasures: page.items, nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "cancelScheduledErasure",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction((tx) =>
        cancelByStaff(
          tx,
          {
            organizationId: operator.organizationId,
            scheduledErasureId: request.params.scheduledErasureId,
            reason: request.body.reason,
            actor: staffOrServiceActor(operator),
          },
          now,
        ),
      );
    },
  },
];
