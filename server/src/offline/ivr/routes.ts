// POST /api/v1/offline/ivr (recordIvrConsentArtifact): a telephony partner reports a call; GET
// /api/v1/staff/offline/ivr (listIvrConsentArtifacts): staff read what was reported. The access
// check has already applied the `offline_async_consent` capability (404 when off).
import type { FastifyReply } from "fastify";
import type { AppContext } from "../../app.js";
import { assertAuditSafe } from "../../consent/consents.js";
import type { RouteModule } from "../../http/app.js";
import { serviceOf, staffOf } from "../../http/credentials.js";
import { SecretBox } from "../../lib/secret-box.js";
import { spendOfflineBudget } from "../routes.js";
import {
  answerOfStored,
  findArtifactOfCall,
  IvrCallAlreadyRecorded,
  ivrArtifactToWire,
  pageIvrArtifacts,
  recordIvrArtifact,
  resolveIvrNotice,
  type IvrAnswer,
  type IvrDeps,
} from "./artifacts.js";

/** A resubmission's answer is the original's, marked as the Idempotency-Key replays are. */
function replayed(reply: FastifyReply, answer: IvrAnswer): IvrAnswer {
  reply.header("idempotent-replayed", "true");
  return answer;
}

export const ivrRoutes: RouteModule<AppContext> = ({ config, db, clock }) => {
  const deps: IvrDeps = { auditKeys: config.auditKeys, box: new SecretBox(config.secretsKey) };
  return [
    {
      operationId: "recordIvrConsentArtifact",
      idempotency: true,
      handler: async (request, reply, { write }) => {
        const service = serviceOf(request);
        spendOfflineBudget(service, "ivr", clock.now());
        const submission = request.body;
        const organizationId = service.organizationId;
        // A resubmission answers the stored artefact before anything else is checked: the notice
        // may have changed since, and the call was recorded against what was published then.
        const stored = await findArtifactOfCall(db, organizationId, submission.partnerCallId);
        if (stored) return replayed(reply, answerOfStored(deps, stored, submission));
        assertAuditSafe({ organizationId, ...submission });
        const notice = await resolveIvrNotice(db, organizationId, submission);
        try {
          return await write((tx) =>
            recordIvrArtifact(
              tx,
              deps,
              { organizationId, apiKeyId: service.apiKeyId, notice, submission },
              clock.now(),
            ),
          );
        } catch (error) {
          if (!(error instanceof IvrCallAlreadyRecorded)) throw error;
          // A concurrent submission of the call committed first; this one rolled back whole.
          const first = await findArtifactOfCall(db, organizationId, submission.partnerCallId);
          if (!first) throw error;
          return replayed(reply, answerOfStored(deps, first, submission));
        }
      },
    },
    {
      operationId: "listIvrConsentArtifacts",
      handler: async (request) => {
        const { organizationId } = staffOf(request);
        const page = await pageIvrArtifacts(db, organizationId, request.query);
        return { artifacts: page.items.map(ivrArtifactToWire), nextCursor: page.nextCursor };
      },
    },
  ];
};
