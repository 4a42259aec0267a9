// HTTP routes of the consent domain: anonymous capture, /cm/v1 create/read/withdraw, linking a
// guest's consents, consent status, inbound CM signals, parental verification, and the staff
// principal lookup and consent evidence export.
import type { FastifyBaseLogger } from "fastify";
import { principalOf, serviceOf, staffOf } from "../http/credentials.js";
import { findPrincipal } from "../accounts/principals.js";
import type { RouteModule } from "../http/app.js";
import { Failure, notFound, validationError } from "../lib/failure.js";
import { RateLimiter } from "../http/rate-limit.js";
import { isTrackingPurpose, isVerifiedChild } from "./children.js";
import { recordCmSignal } from "./cm-signals.js";
import { captureAnswerOf, consentWriteGroup } from "./consent-groups.js";
import { WriteGroup } from "../db/write-group.js";
import {
  assertAuditSafe,
  closeTrackingConsentsOfChild,
  giveConsent,
  linkAnonymousConsents,
  listConsentsOfPrincipal,
  resolveConsentNotice,
  withdrawConsent,
  withdrawConsents,
  withdrawGuestConsent,
  type ConsentDeps,
  type GiveConsentInput,
} from "./consents.js";
import {
  consentEvidenceCsv,
  countEvidenceRows,
  evidenceFileName,
  evidenceReadable,
  parseGivenRange,
} from "./evidence-export.js";
import { lookUpPrincipal, principalByQuery } from "./lookup.js";
import { consentEvidence, consentRecordBody, findConsent } from "./model.js";
import { parentalConsentVerifier, recordParentalVerification } from "./parental-verification.js";
import { readConsentSettings } from "./settings.js";

/**
 * The export's chunks, with a failure logged: once the header is out it cannot become a 4xx, so the
 * frame closes the connection (a truncated download) and this says why.
 */
async function* loggedExport(log: FastifyBaseLogger, chunks: AsyncGenerator<string>): AsyncGenerator<string> {
  let bytes = 0;
  try {
    for await (const chunk of chunks) {
      bytes += chunk.length;
      yield chunk;
    }
  } catch (error) {
    log.error(
      { err: error, charactersSent: bytes },
      "consent evidence export failed mid-stream; closing the connection",
    );
    throw error;
  }
}

export const consentRoutes: RouteModule = ({ config, db, clock }) => {
  const deps: ConsentDeps = { auditKeys: config.auditKeys };
  const verifier = parentalConsentVerifier(config);
  const captures = consentWriteGroup(db, clock, deps, captureAnswerOf);
  const recordedConsents = consentWriteGroup(db, clock, deps, consentRecordBody);
  const withdrawals = new WriteGroup(db, clock, {
    write: (tx, inputs: readonly { organizationId: string; consentId: string }[], now) =>
      withdrawConsents(tx, inputs, now),
  });

  /**
   * The public guest routes (capture and withdrawal) share one budget per client address and one
   * per organisation. Counted before anything else is looked up, so probing spends it too. Counted
   * in this instance's memory (http/rate-limit.ts says why): the budgets hold per instance.
   */
  const guestBudgets = new RateLimiter();
  async function spendGuestBudget(address: string, organizationId: string): Promise<void> {
    const settings = await readConsentSettings(db, organizationId);
    if (!settings) throw notFound("No such organisation");
    const { perAddress, perOrganization, windowMs } = settings.anonymousConsentRateLimit;
    const now = clock.now();
    guestBudgets.hit(
      { key: `anon-consent:address:${address}`, organizationId, limit: perAddress, windowMs },
      now,
    );
    guestBudgets.hit(
      { key: "anon-consent:organization", organizationId, limit: perOrganization, windowMs },
      now,
    );
  }

  return [
    {
      operationId: "giveConsentAnonymous",
      // Contract 1.6.0 answers a repeated anonymous consent with 400, not the catalog's 409.
      statuses: { ALREADY_CONSENTED: 400 },
      idempotency: { publicScope: (request) => request.body.organizationId },
      handler: async (request, _reply, tools) => {
        const body = request.body;
        assertAuditSafe(body);
        await spendGuestBudget(request.ip, body.organizationId);
        const notice = await resolveConsentNotice(db, body.organizationId, body.noticeId, body.purpose);
        const input: GiveConsentInput = {
          organizationId: body.organizationId,
          holder: { kind: "guest", anonymousId: body.anonymousId },
          notice: { noticeId: notice.noticeId, version: notice.version },
          purpose: body.purpose,
          dataTypes: body.dataTypes,
          source: "anonymous",
        };
        return tools.writeInGroup(captures, input, async (tx) =>
          captureAnswerOf(await giveConsent(tx, deps, input, clock.now())),
        );
      },
    },
    {
      operationId: "withdrawConsentAnonymous",
      idempotency: { publicScope: (request) => request.body.organizationId },
      handler: async (request, _reply, { write }) => {
        const body = request.body;
        await spendGuestBudget(request.ip, body.organizationId);
        // Failures are thrown inside the write: an idempotent answer is recorded only for a success.
        return write(async (tx) => {
          const result = await withdrawGuestConsent(
            tx,
            {
              organizationId: body.organizationId,
              anonymousId: body.anonymousId,
              noticeId: body.noticeId,
              purpose: body.purpose,
            },
            clock.now(),
          );
          if (result.outcome === "not_found")
            throw notFound("This guest holds no consent to that notice and purpose");
          if (result.outcome === "already_withdrawn")
            throw new Failure(
              "CONFLICT",
              "This guest's consent to that notice and purpose is already withdrawn",
            );
          return {
            consentId: result.consent.consentId,
            noticeId: result.consent.noticeId,
            purpose: result.consent.purpose,
            withdrawnAt: result.consent.withdrawnAt!,
          };
        });
      },
    },
    {
      operationId: "recordConsent",
      idempotency: true,
      handler: async (request, _reply, tools) => {
        const service = serviceOf(request);
        const body = request.body;
        const organizationId = service.organizationId;
        assertAuditSafe({ organizationId, ...body });
        const notice = await resolveConsentNotice(db, organizationId, body.noticeId, body.purpose);
        const principal = await findPrincipal(db, organizationId, { email: body.email });
        if (!principal) throw notFound("No data principal of this organisation has that email");
        const settings = await readConsentSettings(db, organizationId);
        if (
          settings?.blockTrackingForChildren &&
          isTrackingPurpose(notice.entry) &&
          (await isVerifiedChild(db, organizationId, principal.principalId))
        ) {
          throw new Failure(
            "MINOR_TRACKING_BLOCKED",
            "This purpose is tracking, behavioural monitoring or targeted advertising, and the principal is a verified child (DPDP s.9(3))",
          );
        }
        const input: GiveConsentInput = {
          organizationId,
          holder: { kind: "principal", principalId: principal.principalId, externalId: principal.externalId },
          notice: { noticeId: notice.noticeId, version: notice.version },
          purpose: body.purpose,
          dataTypes: body.dataTypes,
          source: "direct",
        };
        return tools.writeInGroup(recordedConsents, input, async (tx) =>
          consentRecordBody(await giveConsent(tx, deps, input, clock.now())),
        );
      },
    },
    {
      operationId: "getConsent",
      handler: async (request) => {
        const service = serviceOf(request);
        const { consentId } = request.params;
        const consent = await findConsent(db, service.organizationId, consentId);
        if (!consent) throw notFound("No such consent in this organisation");
        return consentRecordBody(consent);
      },
    },
    {
      operationId: "withdrawConsent",
      handler: async (request, _reply, tools) => {
        const service = serviceOf(request);
        const { consentId } = request.params;
        const result = await tools.writeInGroup(
          withdrawals,
          { organizationId: service.organizationId, consentId },
          (tx) => withdrawConsent(tx, { organizationId: service.organizationId, consentId }, clock.now()),
        );
        if (result.outcome === "not_found") throw notFound("No such consent in this organisation");
        if (result.outcome === "already_withdrawn") {
          throw new Failure("CONFLICT", "The consent is already withdrawn");
        }
        return consentRecordBody(result.consent);
      },
    },
    {
      operationId: "linkAnonymousConsent",
      handler: async (request, _reply, { write }) => {
        const principal = principalOf(request);
        const { anonymousId } = request.body;
        const settings = await readConsentSettings(db, principal.organizationId);
        return write((tx) =>
          linkAnonymousConsents(
            tx,
            deps,
            {
              organizationId: principal.organizationId,
              principalId: principal.principalId,
              externalId: principal.externalId,
              anonymousId,
              blockTrackingForChildren: settings?.blockTrackingForChildren ?? true,
            },
            clock.now(),
          ),
        );
      },
    },
    {
      operationId: "getConsentStatus",
      handler: async (request) => {
        const service = serviceOf(request);
        const principal = await principalByQuery(db, service.organizationId, request.query);
        const consents = await listConsentsOfPrincipal(db, service.organizationId, principal.principalId);
        return {
          principal,
          consents: consents.map((c) => ({
            consentId: c.consentId,
            noticeId: c.noticeId,
            noticeVersion: c.noticeVersion,
            purpose: c.purpose,
            status: c.withdrawnAt === null ? "active" : "withdrawn",
            givenAt: c.givenAt,
            withdrawnAt: c.withdrawnAt,
            ...consentEvidence(c),
          })),
        };
      },
    },
    {
      operationId: "staffLookUpPrincipal",
      handler: async (request) =>
        lookUpPrincipal(db, staffOf(request).organizationId, request.query, clock.now()),
    },
    {
      operationId: "staffExportConsentEvidence",
      handler: async (request, reply) => {
        const staff = staffOf(request);
        const range = parseGivenRange(request.query);
        const count = await countEvidenceRows(db, staff.organizationId, range);
        reply
          .type("text/csv; charset=utf-8")
          .header(
            "content-disposition",
            `attachment; filename="${evidenceFileName(staff.organizationSlug, range)}"`,
          )
          .header("x-guard-export-rows", String(count));
        return evidenceReadable(
          loggedExport(request.log, consentEvidenceCsv(db, staff.organizationId, range)),
        );
      },
    },
    {
      operationId: "receiveCmSignal",
      idempotency: true,
      handler: async (request, _reply, { write }) => {
        const service = serviceOf(request);
        return write((tx) => recordCmSignal(tx, service.organizationId, request.body, clock.now()));
      },
    },
    {
      operationId: "verifyParent",
      handler: async (request, _reply, { write }) => {
        const principal = principalOf(request);
        const { tokenFromProvider } = request.body;
        const now = clock.now();
        const result = await verifier.verify(tokenFromProvider, principal, now);
        if (!result.ok) {
          throw validationError(
            "tokenFromProvider",
            `The verification provider rejected the token: ${result.reason}`,
          );
        }
        const settings = await readConsentSettings(db, principal.organizationId);
        await write(async (tx) => {
          await recordParentalVerification(
            tx,
            {
              subject: principal,
              provider: result.provider,
              token: tokenFromProvider,
              parentReference: result.parentReference,
            },
            now,
          );
          if (settings?.blockTrackingForChildren ?? true) {
            await closeTrackingConsentsOfChild(
              tx,
              { organizationId: principal.organizationId, principalId: principal.principalId },
              now,
            );
          }
        });
        return { status: "ok" };
      },
    },
  ];
};
