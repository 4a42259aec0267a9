// guard staff dsr list|show|transition|summary|deny, guard staff grievances list|show|respond,
// guard staff periods, guard staff sweep-clocks: what an operator scripts against the rights queues.
// They act as the organisation with the same rules as the staff routes (the state-machine tables,
// the 90-day ceiling); moves are recorded with the actor `system` / `cli:<OS user>`.
import { InvalidArgumentError, type Command } from "commander";
import { oneOf } from "../arguments.js";
import { sweepRightsClocks } from "../../rights/clocks.js";
import {
  completeWithSummary,
  denyWithStatutoryBasis,
  dsrToWire,
  findDsr,
  listDsrForOrganization,
  updateDsrStatus,
  type QueueFilter,
} from "../../rights/dsr.js";
import {
  findGrievance,
  grievanceToWire,
  listGrievancesForOrganization,
  respondToGrievance,
} from "../../rights/grievances.js";
import { listTransitions } from "../../rights/history.js";
import { getResponsePeriods, MAX_RESPONSE_DAYS, setResponsePeriods } from "../../rights/settings.js";
import { DSR_STATUSES, DSR_TYPES, GRIEVANCE_STATUSES, type DsrStatus } from "../../rights/state-machines.js";
import { buildPrincipalSummary } from "../../rights/summary.js";
import { cliActor } from "../context.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

/** Epoch milliseconds, or an ISO 8601 date/time. */
function parseInstant(value: string): number {
  const ms = /^\d+$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms))
    throw new InvalidArgumentError("give epoch milliseconds or an ISO date such as 2026-12-31");
  return ms;
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days)) throw new InvalidArgumentError("a whole number of days");
  return days;
}

function parseJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    throw new InvalidArgumentError("must be JSON");
  }
}

/** What commander parses from queueOptions (and the DSR list's --type): the filter, and --org. */
interface QueueOptions extends QueueFilter {
  org: string;
}

function queueOptions(command: Command, statuses: readonly string[]): Command {
  return command
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${statuses.join(", ")}`, oneOf(statuses))
    .option("--due-before <when>", "deadline before (epoch ms or ISO date)", parseInstant)
    .option("--due-after <when>", "deadline after (epoch ms or ISO date)", parseInstant)
    .option("--overdue", "only open items past their deadline")
    .option("--due-soon", "only open items with 80 % of their period elapsed, not yet overdue");
}

export function registerRightsCommands(program: Command, run: RunAction): void {
  // `guard staff create` lives in accounts.ts; the rights subcommands join the same command.
  const staff =
    program.commands.find((c) => c.name() === "staff") ?? program.command("staff").description("staff work");

  const dsr = staff
    .command("dsr")
    .description("the DSR queue (summary, processors, correction, erasure requests)");
  queueOptions(
    dsr.command("list").description("list the organisation's DSR requests, earliest deadline first"),
    DSR_STATUSES,
  )
    .option("--type <type>", `one of ${DSR_TYPES.join(", ")}`, oneOf(DSR_TYPES))
    .action(
      run(async (ctx, options: QueueOptions) => {
        const org = await ctx.organization(options.org);
        const now = Date.now();
        const records = await listDsrForOrganization(await ctx.db(), org.organizationId, options, now);
        ctx.out.result({ requests: records.map((r) => dsrToWire(r, now)) });
      }),
    );

  dsr
    .command("show")
    .description("one DSR request with its history (who moved it, when, why)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <requestId>", "the request id (dsr_…)")
    .action(
      run(async (ctx, options: { org: string; id: string }) => {
        const org = await ctx.organization(options.org);
        const db = await ctx.db();
        const record = await findDsr(db, org.organizationId, options.id);
        if (!record) throw new CliError(`No DSR request ${options.id} in organisation ${options.org}`);
        const transitions = await listTransitions(db, org.organizationId, "dsr", options.id);
        ctx.out.result({ request: dsrToWire(record, Date.now()), transitions });
      }),
    );

  dsr
    .command("transition")
    .description(
      "move a request one step: pending → in_progress → completed | rejected (completing an erasure erases)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <requestId>", "the request id (dsr_…)")
    .requiredOption("--to <status>", `one of ${DSR_STATUSES.join(", ")}`, oneOf(DSR_STATUSES))
    .option("--reason <text>", "why, kept in the request's history")
    .option("--response <json>", "the answer to the principal, as JSON", parseJson)
    .action(
      run(
        async (
          ctx,
          options: { org: string; id: string; to: DsrStatus; reason?: string; response?: unknown },
        ) => {
          const org = await ctx.organization(options.org);
          const result = await updateDsrStatus(
            await ctx.db(),
            {
              organizationId: org.organizationId,
              requestId: options.id,
              status: options.to,
              responsePayload: options.response,
              reason: options.reason,
              actor: cliActor(),
            },
            { pseudonymKey: ctx.config.secretsKey },
            Date.now(),
          );
          ctx.out.result({ requestId: options.id, status: options.to, ...result });
        },
      ),
    );

  dsr
    .command("summary")
    .description("generate the answer to a summary request and complete it")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <requestId>", "the request id (dsr_…)")
    .action(
      run(async (ctx, options: { org: string; id: string }) => {
        const org = await ctx.organization(options.org);
        const now = Date.now();
        const result = await completeWithSummary(
          await ctx.db(),
          { organizationId: org.organizationId, requestId: options.id, actor: cliActor() },
          (tx, record) => buildPrincipalSummary(tx, record, now),
          { pseudonymKey: ctx.config.secretsKey },
          now,
        );
        ctx.out.result({ requestId: options.id, status: "completed", ...result });
      }),
    );

  dsr
    .command("deny")
    .description(
      "deny an erasure request on a statutory basis (see GET /api/v1/staff/dsr/statutory-basis-suggestions)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <requestId>", "the request id (dsr_…)")
    .requiredOption("--statute <name>", 'the statute, e.g. "Companies Act, 2013"')
    .requiredOption("--citation <text>", 'the provision, e.g. "Section 128(5)"')
    .action(
      run(async (ctx, options: { org: string; id: string; statute: string; citation: string }) => {
        const org = await ctx.organization(options.org);
        const result = await denyWithStatutoryBasis(
          await ctx.db(),
          {
            organizationId: org.organizationId,
            requestId: options.id,
            denial: { statute: options.statute, citation: options.citation },
            actor: cliActor(),
          },
          { pseudonymKey: ctx.config.secretsKey },
          Date.now(),
        );
        ctx.out.result({ requestId: options.id, status: "rejected", ...result });
      }),
    );

  const grievances = staff.command("grievances").description("the grievance queue");
  queueOptions(
    grievances.command("list").description("list the organisation's grievances, earliest deadline first"),
    GRIEVANCE_STATUSES,
  ).action(
    run(async (ctx, options: QueueOptions) => {
      const org = await ctx.organization(options.org);
      const now = Date.now();
      const records = await listGrievancesForOrganization(await ctx.db(), org.organizationId, options, now);
      ctx.out.result({ grievances: records.map((g) => grievanceToWire(g, now)) });
    }),
  );

  grievances
    .command("show")
    .description("one grievance with its history (every response, who sent it and when)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <grievanceId>", "the grievance id (grv_…)")
    .action(
      run(async (ctx, options: { org: string; id: string }) => {
        const org = await ctx.organization(options.org);
        const db = await ctx.db();
        const record = await findGrievance(db, org.organizationId, options.id);
        if (!record) throw new CliError(`No grievance ${options.id} in organisation ${options.org}`);
        const transitions = await listTransitions(db, org.organizationId, "grievance", options.id);
        ctx.out.result({ grievance: grievanceToWire(record, Date.now()), transitions });
      }),
    );

  grievances
    .command("respond")
    .description("respond to a grievance and move it to in_progress or resolved")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--id <grievanceId>", "the grievance id (grv_…)")
    .requiredOption(
      "--status <status>",
      "in_progress or resolved",
      oneOf(["in_progress", "resolved"] as const),
    )
    .requiredOption("--response <text>", "the response to the principal")
    .action(
      run(
        async (
          ctx,
          options: { org: string; id: string; status: "in_progress" | "resolved"; response: string },
        ) => {
          const org = await ctx.organization(options.org);
          const result = await respondToGrievance(
            await ctx.db(),
            {
              organizationId: org.organizationId,
              grievanceId: options.id,
              status: options.status,
              response: options.response,
              actor: cliActor(),
            },
            Date.now(),
          );
          ctx.out.result({ grievanceId: options.id, status: options.status, ...result });
        },
      ),
    );

  staff
    .command("periods")
    .description(
      `show, or set, the response periods for DSRs and grievances (days, at most ${MAX_RESPONSE_DAYS})`,
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option("--dsr-days <days>", "days from filing to a DSR's deadline", parseDays)
    .option("--grievance-days <days>", "days from filing to a grievance's deadline", parseDays)
    .action(
      run(async (ctx, options: { org: string; dsrDays?: number; grievanceDays?: number }) => {
        const org = await ctx.organization(options.org);
        const db = await ctx.db();
        if (options.dsrDays !== undefined || options.grievanceDays !== undefined) {
          await db.transaction((tx) =>
            setResponsePeriods(
              tx,
              {
                organizationId: org.organizationId,
                dsrResponseDays: options.dsrDays,
                grievanceResponseDays: options.grievanceDays,
                actor: cliActor(),
              },
              Date.now(),
            ),
          );
        }
        const periods = await getResponsePeriods(db, org.organizationId);
        ctx.out.result({ organizationId: org.organizationId, ...periods });
      }),
    );

  staff
    .command("sweep-clocks")
    .description("raise the due_soon / overdue events now (a running server does this every minute)")
    .action(
      run(async (ctx) => {
        ctx.out.result(await sweepRightsClocks(await ctx.db(), Date.now()));
      }),
    );
}
