// HTTP routes of the rights domain: the principal's DSRs, grievances and nomination, and the staff
// queues and actions. Tenant isolation: every query takes the organisation from the credential; a
// body or query `organizationId` that differs is NOT_ASSOCIATED_WITH_ORG (contract 1.6.0), and an
// id of another organisation's record is 404.
import { findOrganizationById } from "../accounts/organizations.js";
import { operatorOf, principalOf } from "../http/credentials.js";
import type { AppContext } from "../app.js";
import type { RouteModule } from "../http/app.js";
import { batchWriteGroup } from "../db/write-group.js";
import type { PrincipalCredential, ServiceCredential, StaffCredential } from "../lib/credentials.js";
import { Failure, notFound } from "../lib/failure.js";
import {
  completeWithSummary,
  checkDsrFiling,
  createDsr,
  createDsrs,
  denyWithStatutoryBasis,
  dsrToWire,
  findDsr,
  listDsrForPrincipal,
  pageDsrForOrganization,
  updateDsrStatus,
  type DsrFiling,
} from "./dsr.js";
import type { ErasureContext } from "./erasure.js";
import {
  checkGrievanceFiling,
  createGrievance,
  createGrievances,
  findGrievance,
  grievanceToWire,
  listGrievancesForPrincipal,
  pageGrievancesForOrganization,
  respondToGrievance,
  type GrievanceFiling,
} from "./grievances.js";
import { actorOf, listTransitions, type Transition } from "./history.js";
import { getActiveNomination, revokeNomination, upsertNomination } from "./nominations.js";
import { getResponsePeriods, MAX_RESPONSE_DAYS, setResponsePeriods } from "./settings.js";
import { statutoryBasisSuggestions } from "./statutory-bases.js";
import { buildPrincipalSummary } from "./summary.js";

const WRITERS = ["admin", "dpo"] as const;

/** A principal or operator may act only for its own organisation (contract 1.6.0: a 400). */
function assertOwnOrganization(
  credential: PrincipalCredential | StaffCredential | ServiceCredential,
  organizationId: string,
  field: string,
): void {
  if (credential.organizationId === organizationId) return;
  const who = credential.kind === "principal" ? "The principal" : "The caller";
  throw new Failure(
    "NOT_ASSOCIATED_WITH_ORG",
    `${who} is not associated with organisation ${organizationId}`,
    { field },
  );
}

const transitionsToWire = (transitions: Transition[]) =>
  transitions.map((t) => ({
    from: t.from,
    to: t.to,
    actorKind: t.actorKind,
    actorId: t.actorId,
    reason: t.reason,
    at: t.at,
  }));

const periodsToWire = async (db: Parameters<typeof getResponsePeriods>[0], organizationId: string) => {
  const periods = await getResponsePeriods(db, organizationId);
  return {
    organizationId,
    dsrResponseDays: periods.dsrResponseDays,
    grievanceResponseDays: periods.grievanceResponseDays,
    maxResponseDays: MAX_RESPONSE_DAYS,
    updatedAt: periods.updatedAt,
  };
};

export const rightsRoutes: RouteModule<AppContext> = ({ config, db, clock, capabilities }) => {
  const erasure: ErasureContext = { pseudonymKey: config.secretsKey };
  // A principal's DSR and grievance filings, written in group commits (db/write-group.ts).
  const dsrFilings = batchWriteGroup(
    db,
    clock,
    checkDsrFiling,
    async (tx, inputs: readonly DsrFiling[], now) =>
      (await createDsrs(tx, inputs, now)).map((record) => dsrToWire(record, now)),
  );
  const grievanceFilings = batchWriteGroup(
    db,
    clock,
    checkGrievanceFiling,
    async (tx, inputs: readonly GrievanceFiling[], now) =>
      (await createGrievances(tx, inputs, now)).map((record) => grievanceToWire(record, now)),
  );

  return [
    // ----- principal self-service ------------------------------------------------------------------
    {
      operationId: "listDsrRequestsForCurrentUser",
      handler: async (request) => {
        const principal = principalOf(request);
        const now = clock.now();
        const page = await listDsrForPrincipal(
          db,
          principal.organizationId,
          principal.principalId,
          request.query,
        );
        return { requests: page.items.map((r) => dsrToWire(r, now)), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "createDsrRequest",
      idempotency: true,
      handler: async (request, _reply, tools) => {
        const principal = principalOf(request);
        const { body } = request;
        assertOwnOrganization(principal, body.organizationId, "organizationId");
        const filing: DsrFiling = {
          organizationId: principal.organizationId,
          principalId: principal.principalId,
          externalId: principal.externalId,
          type: body.type,
          details: body.details,
          actor: actorOf(principal),
        };
        return tools.writeInGroup(dsrFilings, filing, async (tx) => {
          const now = clock.now();
          return dsrToWire(await createDsr(tx, filing, now), now);
        });
      },
    },
    {
      operationId: "listGrievancesForCurrentUser",
      handler: async (request) => {
        const principal = principalOf(request);
        const now = clock.now();
        const page = await listGrievancesForPrincipal(
          db,
          principal.organizationId,
          principal.principalId,
          request.query,
        );
        return { grievances: page.items.map((r) => grievanceToWire(r, now)), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "createGrievance",
      idempotency: true,
      handler: async (request, _reply, tools) => {
        const principal = principalOf(request);
        const { body } = request;
        assertOwnOrganization(principal, body.organizationId, "organizationId");
        const filing: GrievanceFiling = {
          organizationId: principal.organizationId,
          principalId: principal.principalId,
          externalId: principal.externalId,
          subject: body.subject,
          description: body.description,
          actor: actorOf(principal),
        };
        return tools.writeInGroup(grievanceFilings, filing, async (tx) => {
          const now = clock.now();
          return grievanceToWire(await createGrievance(tx, filing, now), now);
        });
      },
    },
    {
      operationId: "getNomination",
      handler: async (request) => {
        const principal = principalOf(request);
        return getActiveNomination(db, principal.organizationId, principal.principalId);
      },
    },
    {
      operationId: "upsertNomination",
      handler: async (request) => {
        const principal = principalOf(request);
        return upsertNomination(db, principal, request.body, actorOf(principal), clock.now());
      },
    },
    {
      operationId: "revokeNomination",
      handler: async (request) => {
        const principal = principalOf(request);
        return revokeNomination(db, principal, actorOf(principal), clock.now());
      },
    },
    {
      operationId: "getResponsePeriods",
      handler: async (request) => {
        const { orgId } = request.params;
        const org = await findOrganizationById(db, orgId);
        if (!org) throw notFound("No such organisation");
        const periods = await periodsToWire(db, org.organizationId);
        return {
          organizationId: periods.organizationId,
          dsrResponseDays: periods.dsrResponseDays,
          grievanceResponseDays: periods.grievanceResponseDays,
        };
      },
    },

    // ----- staff queues and actions ----------------------------------------------------------------
    {
      operationId: "staffListDsrRequests",
      handler: async (request) => {
        const operator = operatorOf(request);
        const { query } = request;
        assertOwnOrganization(operator, query.organizationId, "organizationId");
        const now = clock.now();
        const page = await pageDsrForOrganization(db, operator.organizationId, query, now, query);
        return { requests: page.items.map((r) => dsrToWire(r, now)), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "staffGetDsrRequest",
      handler: async (request) => {
        const operator = operatorOf(request);
        const { requestId } = request.params;
        const record = await findDsr(db, operator.organizationId, requestId);
        if (!record) throw notFound("No such DSR request in this organisation");
        const transitions = await listTransitions(db, operator.organizationId, "dsr", requestId);
        return { request: dsrToWire(record, clock.now()), transitions: transitionsToWire(transitions) };
      },
    },
    {
      operationId: "staffListStatutoryBasisSuggestions",
      handler: async (request) => {
        const operator = operatorOf(request);
        const { sector } = request.query;
        const enabled = await capabilities.enabled(db, operator.organizationId, "dsr_statutory_denial");
        return { suggestions: enabled ? statutoryBasisSuggestions(sector) : [] };
      },
    },
    {
      operationId: "staffUpdateDsrStatus",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const { requestId } = request.params;
        const { body } = request;
        return updateDsrStatus(
          db,
          {
            organizationId: operator.organizationId,
            requestId,
            status: body.status,
            responsePayload: body.responsePayload,
            reason: body.reason,
            actor: actorOf(operator),
          },
          erasure,
          clock.now(),
        );
      },
    },
    {
      operationId: "staffGenerateDsrSummary",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const { requestId } = request.params;
        const now = clock.now();
        return completeWithSummary(
          db,
          { organizationId: operator.organizationId, requestId, actor: actorOf(operator) },
          (tx, record) => buildPrincipalSummary(tx, record, now),
          erasure,
          now,
        );
      },
    },
    {
      operationId: "staffRejectDsrWithStatutoryBasis",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const { requestId } = request.params;
        const { body } = request;
        const enabled = await capabilities.enabled(db, operator.organizationId, "dsr_statutory_denial");
        if (!enabled) {
          // Contract 1.6.0 answers 400 here while the capability is off, not 404.
          throw new Failure(
            "VALIDATION_ERROR",
            "Statutory denial is switched off for this organisation (capability dsr_statutory_denial)",
          );
        }
        return denyWithStatutoryBasis(
          db,
          {
            organizationId: operator.organizationId,
            requestId,
            denial: body,
            actor: actorOf(operator),
          },
          erasure,
          clock.now(),
        );
      },
    },
    {
      operationId: "staffListGrievances",
      handler: async (request) => {
        const operator = operatorOf(request);
        const { query } = request;
        assertOwnOrganization(operator, query.organizationId, "organizationId");
        const now = clock.now();
        const page = await pageGrievancesForOrganization(db, operator.organizationId, query, now, query);
        return { grievances: page.items.map((r) => grievanceToWire(r, now)), nextCursor: page.nextCursor };
      },
    },
    {
      operationId: "staffGetGrievance",
      handler: async (request) => {
        const operator = operatorOf(request);
        const { grievanceId } = request.params;
        const record = await findGrievance(db, operator.organizationId, grievanceId);
        if (!record) throw notFound("No such grievance in this organisation");
        const transitions = await listTransitions(db, operator.organizationId, "grievance", grievanceId);
        return {
          grievance: grievanceToWire(record, clock.now()),
          transitions: transitionsToWire(transitions),
        };
      },
    },
    {
      operationId: "staffRespondToGrievance",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const { grievanceId } = request.params;
        const { body } = request;
        return respondToGrievance(
          db,
          {
            organizationId: operator.organizationId,
            grievanceId,
            status: body.status,
            response: body.response,
            actor: actorOf(operator),
          },
          clock.now(),
        );
      },
    },
    {
      operationId: "staffGetRightsSettings",
      handler: async (request) => periodsToWire(db, operatorOf(request).organizationId),
    },
    {
      operationId: "staffUpdateRightsSettings",
      roles: WRITERS,
      handler: async (request) => {
        const operator = operatorOf(request);
        const { body } = request;
        const actor = actorOf(operator);
        await db.transaction((tx) =>
          setResponsePeriods(tx, { organizationId: operator.organizationId, ...body, actor }, clock.now()),
        );
        return periodsToWire(db, operator.organizationId);
      },
    },
  ];
};
