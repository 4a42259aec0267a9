// guard offline captures list | release | reject: the staff review of signed offline capture
// sessions (offline/captures/README.md) from the command line, with the same rules as the staff
// routes; a review is recorded with the reviewer `cli:<OS user>` (on the session and on the audit
// chain). Like the other operator commands they do not consult capabilities.
import type { Command } from "commander";
import { MAX_PAGE_SIZE } from "../../lib/paging.js";
import {
  captureDeps,
  captureToWire,
  pageCaptures,
  rejectCapture,
  releaseCapture,
  type Reviewer,
} from "../../offline/captures/captures.js";
import type { CaptureRecord, CaptureStatus, ReviewStatus } from "../../offline/captures/store.js";
import { oneOf } from "../arguments.js";
import { cliActor } from "../context.js";
import type { RunAction } from "../main.js";

const CAPTURE_STATUSES: readonly CaptureStatus[] = ["verified", "quarantined", "rejected"];
const REVIEW_FILTERS: readonly (ReviewStatus | "pending")[] = ["pending", "released", "rejected_by_staff"];

interface ListFilter {
  status?: CaptureStatus;
  review?: ReviewStatus | "pending";
  device?: string;
}

/** Every session matching the filter, newest receipt first, walked page by page. */
async function allCaptures(
  db: Parameters<typeof pageCaptures>[0],
  organizationId: string,
  filter: ListFilter,
): Promise<CaptureRecord[]> {
  const captures: CaptureRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await pageCaptures(db, organizationId, {
      status: filter.status,
      reviewStatus: filter.review,
      deviceId: filter.device,
      cursor,
      limit: MAX_PAGE_SIZE,
    });
    captures.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return captures;
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
        const found = await allCaptures(await ctx.db(), organization.organizationId, options);
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
}
