// HTTP edge of log retention: the staff routes that read and set the organisation's policy
// (policy.ts). Purging is the job's (purge.ts) and the CLI's, not a request's: it verifies the
// organisation's audit chain, which takes time.
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { operatorOf } from "../http/credentials.js";
import type { ServiceCredential, StaffCredential } from "../lib/credentials.js";
import {
  LOG_CLASSES,
  MINIMUM_LOG_RETENTION_DAYS,
  readLogRetentionPolicy,
  setLogRetentionPolicy,
  type LogRetentionPolicy,
} from "./policy.js";

const WRITERS = ["admin", "dpo"] as const;

/** Who set a period: the staff member, or the service key. */
const actorId = (operator: StaffCredential | ServiceCredential) =>
  operator.kind === "staff" ? operator.staffId : operator.apiKeyId;

function policyToWire(policy: LogRetentionPolicy) {
  const classOf = (logClass: (typeof LOG_CLASSES)[number]) => policy[logClass];
  return {
    auditEntries: classOf("audit_entries"),
    consentEvents: classOf("consent_events"),
    gateDecisions: classOf("gate_decisions"),
    webhookDeliveries: classOf("webhook_deliveries"),
    minimumRetainDays: MINIMUM_LOG_RETENTION_DAYS,
  };
}

export const logRetentionRoutes: RouteModule<AppContext> = ({ db, clock }) => [
  {
    operationId: "staffGetLogRetentionPolicy",
    handler: async (request) =>
      policyToWire(await readLogRetentionPolicy(db, operatorOf(request).organizationId)),
  },
  {
    operationId: "staffUpdateLogRetentionPolicy",
    roles: WRITERS,
    handler: async (request) => {
      const operator = operatorOf(request);
      // Every property goes to the rules, so an unknown class is refused naming it.
      const changes: Record<string, unknown> = { ...request.body };
      const policy = await db.transaction((tx) =>
        setLogRetentionPolicy(tx, operator.organizationId, changes, actorId(operator), clock.now()),
      );
      return policyToWire(policy);
    },
  },
];
