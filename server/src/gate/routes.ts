// HTTP routes of the Consent Gate: verify (decide and log), the decision log, bypass alerts.
import { serviceOf } from "../accounts/routes.js";
import { requestCapabilityEnabled } from "../capabilities/enforce.js";
import type { RouteModule } from "../http/app.js";
import { notFound } from "../http/errors.js";
import { DEFAULT_DECISION_LIMIT, listBypassAlerts, listDecisions, verifyConsent } from "./gate.js";
import { readGateSettings } from "./settings.js";

export const gateRoutes: RouteModule = ({ db, clock }) => [
  {
    operationId: "verifyConsentGate",
    handler: async (request) => {
      const service = serviceOf(request);
      const { consentId } = request.body as { consentId: string };
      const record = await requestCapabilityEnabled(
        request,
        db,
        service.organizationId,
        "consent_gate_decision_audit",
      );
      const decision = await verifyConsent(
        db,
        { organizationId: service.organizationId, consentId, apiKeyId: service.apiKeyId, record },
        clock.now(),
      );
      if (!decision) throw notFound("No such consent in this organisation");
      const answer = { decision: decision.decision, reason: decision.reason, consentId };
      return decision.decisionId ? { ...answer, decisionId: decision.decisionId } : answer;
    },
  },
  {
    operationId: "listConsentGateDecisions",
    handler: async (request) => {
      const service = serviceOf(request);
      // The contract's schema already refused a limit that is not a positive integer.
      const { limit } = request.query as { limit?: number };
      return { decisions: await listDecisions(db, service.organizationId, limit ?? DEFAULT_DECISION_LIMIT) };
    },
  },
  {
    operationId: "listConsentGateBypassAlerts",
    handler: async (request) => {
      const service = serviceOf(request);
      const settings = await readGateSettings(db, service.organizationId);
      const detecting = await requestCapabilityEnabled(
        request,
        db,
        service.organizationId,
        "consent_gate_bypass_alerts",
      );
      const alerts = detecting
        ? await listBypassAlerts(db, service.organizationId, settings, clock.now())
        : [];
      return { alerts, windowMs: settings.windowMs, denyThreshold: settings.denyThreshold };
    },
  },
];
