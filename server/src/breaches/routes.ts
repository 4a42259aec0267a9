// HTTP routes of the breach register: the staff register (/api/v1/staff/breaches…, a staff session
// or the organisation's service key; writes need admin or dpo) and the partner route
// `GET /api/v1/breaches` (service key, drills excluded, behind the `breach_register_api`
// capability, checked centrally). Every read and write is scoped to the caller's organisation:
// another organisation's breach is a 404.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { operatorOf } from "../http/credentials.js";
import { staffOrServiceActor } from "../lib/credentials.js";
import { unauthorized } from "../lib/failure.js";
import { addAffectedPrincipals, notifyAffectedPrincipals } from "./principals.js";
import {
  getBreach,
  lockBreach,
  pageBreaches,
  partnerBreachToWire,
  recordBreach,
  staffBreach,
  staffBreachPage,
  updateBreachRecord,
} from "./register.js";

const WRITERS = ["admin", "dpo"] as const;

export const breachRoutes: RouteModule<AppContext> = ({ db, clock, notifier }) => [
  // ----- partner ---------------------------------------------------------------------------------
  {
    operationId: "listBreaches",
    handler: async (request) => {
      const credential = request.credential;
      if (credential?.kind !== "service") throw unauthorized();
      const page = await pageBreaches(
        db,
        credential.organizationId,
        { ...request.query, drill: false },
        clock.now(),
        "listBreaches",
      );
      return { breaches: page.items.map(partnerBreachToWire), nextCursor: page.nextCursor };
    },
  },
  // ----- staff -----------------------------------------------------------------------------------
  {
    operationId: "listStaffBreaches",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const now = clock.now();
      const page = await pageBreaches(db, organizationId, request.query, now);
      return { breaches: await staffBreachPage(db, organizationId, page, now), nextCursor: page.nextCursor };
    },
  },
  {
    operationId: "getStaffBreach",
    handler: async (request) => {
      const { organizationId } = operatorOf(request);
      const now = clock.now();
      return staffBreach(db, await getBreach(db, organizationId, request.params.breachId), now);
    },
  },
  {
    operationId: "recordBreach",
    roles: WRITERS,
    idempotency: true,
    handler: async (request, _reply, tools) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return tools.write(async (tx) => {
        const breach = await recordBreach(
          tx,
          { organizationId: operator.organizationId, ...request.body, actor: staffOrServiceActor(operator) },
          now,
        );
        return staffBreach(tx, breach, now);
      });
    },
  },
  {
    operationId: "updateBreach",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const breach = await updateBreachRecord(
          tx,
          {
            organizationId: operator.organizationId,
            breachId: request.params.breachId,
            ...request.body,
            actor: staffOrServiceActor(operator),
          },
          now,
        );
        return staffBreach(tx, breach, now);
      });
    },
  },
  {
    operationId: "addBreachPrincipals",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const now = clock.now();
      return db.transaction(async (tx) => {
        const added = await addAffectedPrincipals(
          tx,
          {
            organizationId: operator.organizationId,
            breachId: request.params.breachId,
            externalIds: request.body.externalIds,
            purposes: request.body.purposes,
            actor: staffOrServiceActor(operator),
          },
          now,
        );
        const breach = await lockBreach(tx, operator.organizationId, request.params.breachId);
        return { added, breach: await staffBreach(tx, breach, now) };
      });
    },
  },
  {
    operationId: "notifyBreachPrincipals",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      const result = await notifyAffectedPrincipals(
        db,
        notifier,
        {
          organizationId: operator.organizationId,
          breachId: request.params.breachId,
          ...request.body,
          actor: staffOrServiceActor(operator),
        },
        () => clock.now(),
      );
      return { notified: result.notified, breach: await staffBreach(db, result.breach, clock.now()) };
    },
  },
];
