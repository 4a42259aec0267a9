// guard offline captures | links | pos | ivr: the staff side of offline and assisted capture
// (offline/README.md) from the command line, with the same rules as the staff routes: the review of
// quarantined capture sessions, the QR consent links' list and disabling, the point-of-sale
// queue of expired requests, and the IVR artefacts partners reported. Changes are recorded as made by `cli:<OS user>` (on the record and on
// the audit chain). Like the other operator commands they do not consult capabilities.
import type { Command } from "commander";
import {
  captureDeps,
  captureToWire,
  pageCaptures,
  rejectCapture,
  releaseCapture,
  type Reviewer,
} from "../../offline/captures/captures.js";
import {
  CAPTURE_STATUSES,
  REVIEW_STATUSES,
  type CaptureStatus,
  type ReviewStatus,
} from "../../offline/captures/store.js";
import {
  IVR_OUTCOMES,
  ivrArtifactToWire,
  pageIvrArtifacts,
  type IvrOutcome,
} from "../../offline/ivr/artifacts.js";
import { disableLink, LINK_STATUSES, pageLinks, type LinkStatus } from "../../offline/links/links.js";
import { closePosRequest, listPosRequestsPage, posRequestToWire } from "../../offline/pos/requests.js";
import { POS_REQUEST_STATUSES, type PosRequestStatus } from "../../offline/pos/store.js";
import { oneOf } from "../arguments.js";
import { everyItem } from "../paging.js";
import { cliActor, cliUser } from "../context.js";
import type { RunAction } from "../main.js";

// `pending`: not reviewed yet (the staff route's filter).
const REVIEW_FILTERS = ["pending", ...REVIEW_STATUSES] as const;

interface ListFilter {
  status?: CaptureStatus;
  review?: ReviewStatus | "pending";
  device?: string;
}

const cliReviewer = (organizationId: string): Reviewer => ({ organizationId, reviewerId: cliActor().id });

export function registerOfflineCommands(program: Command, run: RunAction): void {
  const offline = program.command("offline").description("offline and assisted consent capture");
  const captures = offline
    .command("captures")
    .description("signed sessions synced by enrolled devices, and the review of quarantined ones");

  captures
    .command("list")
    .description("list the organisation's sessions, newest receipt first (the staff route's filters)")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${CAPTURE_STATUSES.join(", ")}`, oneOf(CAPTURE_STATUSES))
    .option(
      "--review <state>",
      `one of ${REVIEW_FILTERS.join(", ")} (pending: not reviewed yet; with --status quarantined, the review queue)`,
      oneOf(REVIEW_FILTERS),
    )
    .option("--device <deviceId>", "only this device's sessions (dev_…)")
    .action(
      run(async (ctx, options: { org: string } & ListFilter) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pageCaptures(db, organization.organizationId, {
            ...request,
            status: options.status,
            reviewStatus: options.review,
            deviceId: options.device,
          }),
        );
        ctx.out.result({ captures: found.map(captureToWire) });
      }),
    );

  captures
    .command("release")
    .description(
      "release a clock_skew or notice_superseded session: its consents are given now; prints the " +
        "session's result with its withdrawal code, shown once",
    )
    .argument("<sessionId>", "Guard's id of the session (ocs_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--note <text>", "why it is released (kept on the session and the audit chain)")
    .action(
      run(async (ctx, sessionId: string, options: { org: string; note: string }) => {
        const organization = await ctx.organization(options.org);
        const released = await (
          await ctx.db()
        ).transaction((tx) =>
          releaseCapture(
            tx,
            captureDeps(ctx.config),
            cliReviewer(organization.organizationId),
            { sessionId, note: options.note },
            Date.now(),
          ),
        );
        ctx.out.result(released);
      }),
    );

  captures
    .command("reject")
    .description("close a quarantined session's review without a consent; it stays stored as evidence")
    .argument("<sessionId>", "Guard's id of the session (ocs_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--note <text>", "why it is rejected (kept on the session and the audit chain)")
    .action(
      run(async (ctx, sessionId: string, options: { org: string; note: string }) => {
        const organization = await ctx.organization(options.org);
        const rejected = await (
          await ctx.db()
        ).transaction((tx) =>
          rejectCapture(
            tx,
            cliReviewer(organization.organizationId),
            { sessionId, note: options.note },
            Date.now(),
          ),
        );
        ctx.out.result(captureToWire(rejected));
      }),
    );

  const links = offline
    .command("links")
    .description("QR consent links (minted with the service key's POST /api/v1/offline-consent/links)");

  links
    .command("list")
    .description("list the organisation's links, newest first, with their agreed / declined counts")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${LINK_STATUSES.join(", ")}`, oneOf(LINK_STATUSES))
    .action(
      run(async (ctx, options: { org: string; status?: LinkStatus }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pageLinks(db, organization.organizationId, { ...request, status: options.status }),
        );
        ctx.out.result({ links: found });
      }),
    );

  links
    .command("disable")
    .description("disable a link: its page answers 410 Gone from now on; answers already given stay")
    .argument("<linkId>", "the link id (lnk_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, linkId: string, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const disabled = await (
          await ctx.db()
        ).transaction((tx) =>
          disableLink(
            tx,
            { organizationId: organization.organizationId, linkId, actor: { kind: "cli", id: cliUser() } },
            Date.now(),
          ),
        );
        ctx.out.result(disabled);
      }),
    );

  const pos = offline
    .command("pos")
    .description("point-of-sale consent requests (created by a till with POST /api/v1/offline/pos)");

  pos
    .command("list")
    .description(
      "list requests of one status, earliest deadline first (default: expired, the follow-up queue; a running server marks unanswered requests expired when their 72 hours end)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option(
      "--status <status>",
      `one of ${POS_REQUEST_STATUSES.join(", ")}`,
      oneOf(POS_REQUEST_STATUSES),
      "expired",
    )
    .action(
      run(async (ctx, options: { org: string; status: PosRequestStatus }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          listPosRequestsPage(db, organization.organizationId, options.status, request),
        );
        ctx.out.result({ requests: found.map(posRequestToWire) });
      }),
    );

  pos
    .command("close")
    .description("close an expired request with a note (the customer never answered; no consent exists)")
    .argument("<requestId>", "the request id (pos_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--note <text>", "what was done (kept on the request and the audit chain)")
    .action(
      run(async (ctx, requestId: string, options: { org: string; note: string }) => {
        const organization = await ctx.organization(options.org);
        const closed = await (
          await ctx.db()
        ).transaction((tx) =>
          closePosRequest(
            tx,
            {
              organizationId: organization.organizationId,
              requestId,
              closedBy: cliActor().id,
              note: options.note,
            },
            Date.now(),
          ),
        );
        ctx.out.result(posRequestToWire(closed));
      }),
    );

  offline
    .command("ivr")
    .description("IVR consent artefacts (reported by a telephony partner with POST /api/v1/offline/ivr)")
    .command("list")
    .description(
      "list the artefacts as stored, newest receipt first (never the withdrawal code read out to the caller)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option("--outcome <outcome>", `one of ${IVR_OUTCOMES.join(", ")}`, oneOf(IVR_OUTCOMES))
    .option("--call <partnerCallId>", "only the artefact of this partner call id")
    .action(
      run(async (ctx, options: { org: string; outcome?: IvrOutcome; call?: string }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pageIvrArtifacts(db, organization.organizationId, {
            ...request,
            outcome: options.outcome,
            partnerCallId: options.call,
          }),
        );
        ctx.out.result({ artifacts: found.map(ivrArtifactToWire) });
      }),
    );
}
