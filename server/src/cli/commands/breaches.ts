// guard breaches list | show | record | update | principals | notify | sweep-clocks: the breach
// register (breaches/README.md) with the same rules as the staff routes; changes are recorded with
// the actor `system` / `cli:<OS user>`. Principals are told through the shipped notifier (the
// webhook relay), as a server without another notifier configured does.
import { InvalidArgumentError, type Command } from "commander";
import { oneOf } from "../arguments.js";
import { sweepBreachClocks } from "../../breaches/clocks.js";
import { addAffectedPrincipals, notifyAffectedPrincipals } from "../../breaches/principals.js";
import {
  getBreach,
  pageBreaches,
  recordBreach,
  staffBreach,
  staffBreachPage,
  updateBreachRecord,
  type StaffBreachWire,
} from "../../breaches/register.js";
import { BREACH_STATUSES, DUE_STATES } from "../../breaches/store/breaches.js";
import { MAX_PAGE_SIZE } from "../../lib/paging.js";
import { WebhookRelayNotifier } from "../../notifications/notifier.js";
import { cliActor } from "../context.js";
import type { RunAction } from "../main.js";

/** An instant: epoch milliseconds, or an ISO 8601 date-time with its offset (2026-05-01T09:30:00+05:30). */
export function instantArgument(value: string): number {
  if (/^\d+$/.test(value)) return Number(value);
  if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(value))
    throw new InvalidArgumentError(
      "give epoch milliseconds or an ISO 8601 time with its offset (Z or +05:30)",
    );
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new InvalidArgumentError("not a date-time");
  return parsed;
}

const integerArgument = (value: string): number => {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("give a whole number");
  return Number(value);
};

const collect = (value: string, previous: string[] = []) => [...previous, value];

export function registerBreachCommands(program: Command, run: RunAction): void {
  const breaches = program
    .command("breaches")
    .description("the breach register: record breaches, their Board and CERT-In reports, tell principals");

  breaches
    .command("list")
    .description("list the organisation's breaches (drills included), newest discovery first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${BREACH_STATUSES.join(", ")}`, oneOf(BREACH_STATUSES))
    .option("--due-state <state>", `either clock in ${DUE_STATES.join(", ")}`, oneOf(DUE_STATES))
    .option("--drill", "drills only")
    .option("--no-drill", "real breaches only")
    .action(
      run(async (ctx, options: { org: string; status?: string; dueState?: string; drill?: boolean }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const now = Date.now();
        const found: StaffBreachWire[] = [];
        let cursor: string | undefined;
        do {
          const page = await pageBreaches(
            db,
            organization.organizationId,
            {
              status: options.status,
              dueState: options.dueState,
              drill: options.drill,
              cursor,
              limit: MAX_PAGE_SIZE,
            },
            now,
          );
          found.push(...(await staffBreachPage(db, organization.organizationId, page, now)));
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        ctx.out.result({ breaches: found });
      }),
    );

  breaches
    .command("show")
    .description("one breach with its clocks and affected-principal counts")
    .argument("<breachId>", "the breach id (brc_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, breachId: string, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        ctx.out.result(
          await staffBreach(db, await getBreach(db, organization.organizationId, breachId), Date.now()),
        );
      }),
    );

  breaches
    .command("record")
    .description("record a breach (or --drill); its clocks start at --discovered-at")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--description <text>", "what happened (told to the affected principals)")
    .requiredOption(
      "--discovered-at <time>",
      "when the organisation became aware (epoch ms or ISO 8601)",
      instantArgument,
    )
    .option("--occurred-at <time>", "when it occurred, if known", instantArgument)
    .option("--purpose <purpose>", "an affected purpose (repeatable)", collect)
    .option("--data-category <category>", "an affected personal-data category (repeatable)", collect)
    .option("--mitigation <text>", "measures taken or being taken")
    .option("--drill", "a rehearsal: off the partner route, no events, nobody told")
    .option(
      "--window-hours <hours>",
      "hours to tell the principals in (default 24, at most 72)",
      integerArgument,
    )
    .action(
      run(
        async (
          ctx,
          options: {
            org: string;
            description: string;
            discoveredAt: number;
            occurredAt?: number;
            purpose?: string[];
            dataCategory?: string[];
            mitigation?: string;
            drill?: boolean;
            windowHours?: number;
          },
        ) => {
          const organization = await ctx.organization(options.org);
          const db = await ctx.db();
          const now = Date.now();
          const wire = await db.transaction(async (tx) =>
            staffBreach(
              tx,
              await recordBreach(
                tx,
                {
                  organizationId: organization.organizationId,
                  description: options.description,
                  discoveredAt: options.discoveredAt,
                  occurredAt: options.occurredAt,
                  affectedPurposes: options.purpose,
                  affectedDataCategories: options.dataCategory,
                  mitigation: options.mitigation,
                  drill: options.drill === true,
                  principalNotificationWindowHours: options.windowHours,
                  actor: cliActor(),
                },
                now,
              ),
              now,
            ),
          );
          ctx.out.result(wire);
        },
      ),
    );

  breaches
    .command("update")
    .description("change a breach's text, or record its Board and CERT-In reports (a recorded time is kept)")
    .argument("<breachId>", "the breach id (brc_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--description <text>", "what happened")
    .option("--mitigation <text>", "measures taken or being taken")
    .option("--purpose <purpose>", "replace the affected purposes (repeatable)", collect)
    .option("--data-category <category>", "replace the affected data categories (repeatable)", collect)
    .option("--board-reported-at <time>", "first intimation to the Board", instantArgument)
    .option("--detailed-report-at <time>", "detailed report submitted to the Board", instantArgument)
    .option("--cert-in-reported-at <time>", "incident reported to CERT-In", instantArgument)
    .action(
      run(
        async (
          ctx,
          breachId: string,
          options: {
            org: string;
            description?: string;
            mitigation?: string;
            purpose?: string[];
            dataCategory?: string[];
            boardReportedAt?: number;
            detailedReportAt?: number;
            certInReportedAt?: number;
          },
        ) => {
          const organization = await ctx.organization(options.org);
          const db = await ctx.db();
          const now = Date.now();
          const wire = await db.transaction(async (tx) =>
            staffBreach(
              tx,
              await updateBreachRecord(
                tx,
                {
                  organizationId: organization.organizationId,
                  breachId,
                  description: options.description,
                  mitigation: options.mitigation,
                  affectedPurposes: options.purpose,
                  affectedDataCategories: options.dataCategory,
                  reportedToBoardAt: options.boardReportedAt,
                  detailedReportSubmittedAt: options.detailedReportAt,
                  certInReportSubmittedAt: options.certInReportedAt,
                  actor: cliActor(),
                },
                now,
              ),
              now,
            ),
          );
          ctx.out.result(wire);
        },
      ),
    );

  breaches
    .command("principals")
    .description(
      "add the principals a breach affected: by --external-id, or everyone consenting to a --purpose",
    )
    .argument("<breachId>", "the breach id (brc_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--external-id <id>", "a principal's id at the organisation (repeatable)", collect)
    .option(
      "--purpose <purpose>",
      "principals with an active or withdrawn consent to it (repeatable)",
      collect,
    )
    .action(
      run(
        async (
          ctx,
          breachId: string,
          options: { org: string; externalId?: string[]; purpose?: string[] },
        ) => {
          const organization = await ctx.organization(options.org);
          const db = await ctx.db();
          const now = Date.now();
          const result = await db.transaction(async (tx) => {
            const added = await addAffectedPrincipals(
              tx,
              {
                organizationId: organization.organizationId,
                breachId,
                externalIds: options.externalId,
                purposes: options.purpose,
                actor: cliActor(),
              },
              now,
            );
            return {
              added,
              breach: await staffBreach(tx, await getBreach(tx, organization.organizationId, breachId), now),
            };
          });
          ctx.out.result(result);
        },
      ),
    );

  breaches
    .command("notify")
    .description("tell every affected principal not yet told (r.7(1)); sets reportedToUserAt once all are")
    .argument("<breachId>", "the breach id (brc_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--consequences <text>", "the consequences likely to arise for the principal")
    .requiredOption("--safety-measures <text>", "what the principal may do to reduce the risk")
    .requiredOption("--contact <text>", "who can answer on the organisation's behalf")
    .action(
      run(
        async (
          ctx,
          breachId: string,
          options: { org: string; consequences: string; safetyMeasures: string; contact: string },
        ) => {
          const organization = await ctx.organization(options.org);
          const db = await ctx.db();
          const result = await notifyAffectedPrincipals(
            db,
            new WebhookRelayNotifier(),
            {
              organizationId: organization.organizationId,
              breachId,
              consequences: options.consequences,
              safetyMeasures: options.safetyMeasures,
              contact: options.contact,
              actor: cliActor(),
            },
            () => Date.now(),
          );
          ctx.out.result({
            notified: result.notified,
            breach: await staffBreach(db, result.breach, Date.now()),
          });
        },
      ),
    );

  breaches
    .command("sweep-clocks")
    .description(
      "raise the breach clocks' due_soon / overdue events now (a running server does this every minute)",
    )
    .action(
      run(async (ctx) => {
        ctx.out.result(await sweepBreachClocks(await ctx.db(), Date.now()));
      }),
    );
}
