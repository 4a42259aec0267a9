// HTTP routes of the Consent Gate: verify (decide and log), the decision log, bypass alerts.
import type { FastifyRequest } from "fastify";
import { serviceOf } from "../http/credentials.js";
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import type { ServiceCredential, StaffCredential } from "../lib/credentials.js";
import { notFound, unauthorized } from "../lib/failure.js";
import { GroupCommit } from "../lib/group-commit.js";
import {
  listBypassAlerts,
  listDecisions,
  verifyConsents,
  type VerifyInput,
  type VerifyOutcome,
} from "./gate.js";
import { readGateSettings } from "./settings.js";

// Groups of up to 500 decisions, one group written at a time while the next one gathers: fewer,
// bigger groups mean fewer commits and less database CPU per decision (PGlite has one connection
// anyway). Figures: bench/README.md.
const GATE_GROUP_COMMIT = { maxGroupSize: 500, maxInFlight: 1 };

/**
 * The reader of the decision log and alerts: the organisation's service key, or (contract 2.13.0)
 * a staff session of any role. Either way only its own organisation's log is read.
 */
function readerOf(request: FastifyRequest): ServiceCredential | StaffCredential {
  const credential = request.credential;
  if (credential?.kind === "service" || credential?.kind === "staff") return credential;
  throw unauthorized();
}

export const gateRoutes: RouteModule<AppContext> = ({ db, clock, capabilities }) => {
  const decisions = new GroupCommit<VerifyInput, VerifyOutcome | undefined>(
    // One decision time per group: the moment its statement reads the consents.
    (inputs) => verifyConsents(db, inputs, clock.now()),
    GATE_GROUP_COMMIT,
  );
  return [
    {
      operationId: "verifyConsentGate",
      handler: async (request) => {
        const service = serviceOf(request);
        const { consentId } = request.body;
        // Known without a promise on every request but the rare one that reads the switches (the
        // access check has just cached them); an await on a plain value would still cost a microtask.
        const recording = capabilities.enabled(db, service.organizationId, "consent_gate_decision_audit");
        const record = typeof recording === "boolean" ? recording : await recording;
        const outcome = await decisions.submit({
          organizationId: service.organizationId,
          consentId,
          apiKeyId: service.apiKeyId,
          record,
        });
        if (!outcome) throw notFound("No such consent in this organisation");
        // Spelled out rather than spread (see verifyConsents); an undefined decisionId is left out
        // of the JSON.
        const { decision, reason, decisionId } = outcome;
        return { decision, reason, decisionId, consentId };
      },
    },
    {
      operationId: "listConsentGateDecisions",
      handler: async (request) => {
        const reader = readerOf(request);
        // The contract's schema already refused a limit that is not a positive integer.
        const page = await listDecisions(db, reader.organizationId, request.query);
        return { decisions: page.items, nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "listConsentGateBypassAlerts",
      handler: async (request) => {
        const reader = readerOf(request);
        const settings = await readGateSettings(db, reader.organizationId);
        const detecting = await capabilities.enabled(db, reader.organizationId, "consent_gate_bypass_alerts");
        const page = detecting
          ? await listBypassAlerts(db, reader.organizationId, settings, clock.now(), request.query)
          : { items: [], nextCursor: null };
        return {
          alerts: page.items,
          windowMs: settings.windowMs,
          denyThreshold: settings.denyThreshold,
          nextCursor: page.nextCursor,
        };
      },
    },
  ];
};
