// guard retention policies|presets|holds|events|erasures|sweep: the retention register from the
// command line, with the same rules as the staff routes (retention/); changes are recorded with the
// actor `system` / `cli:<OS user>`. Like the other operator commands they do not consult capabilities.
import { InvalidArgumentError, type Command } from "commander";
import { oneOf } from "../arguments.js";
import { everyItem } from "../paging.js";
import { WebhookRelayNotifier } from "../../notifications/notifier.js";
import {
  cancelByStaff,
  confirmExecuted,
  ERASURE_STATES,
  pageErasures,
  type ErasureWire,
} from "../../retention/erasures.js";
import { recordRetentionEvent } from "../../retention/events.js";
import { HOLD_STATES, holdsToWire, pageHolds, placeHold, releaseHold } from "../../retention/holds.js";
import {
  archivePolicy,
  changePolicy,
  createPolicy,
  getPolicy,
  pagePolicies,
  policyToWire,
  RETENTION_PRESETS,
} from "../../retention/policies.js";
import { ropaActivities } from "../../retention/activities.js";
import { sweepRetention } from "../../retention/sweep.js";
import { ANCHOR_EVENTS, PRESETS } from "../../retention/store/policies.js";
import { RETENTION_EVENT_KINDS } from "../../retention/store/events.js";
import { cliActor } from "../context.js";
import type { RunAction } from "../main.js";

const integer = (value: string): number => {
  if (!/^-?\d+$/.test(value)) throw new InvalidArgumentError("use a whole number");
  return Number(value);
};

/** A time: epoch milliseconds, or an ISO 8601 date or date-time. */
const time = (value: string): number => {
  if (/^\d+$/.test(value)) return Number(value);
  const parsed = Date.parse(value);
  if (Number.isNaN(parsed)) throw new InvalidArgumentError("use epoch milliseconds or an ISO 8601 date");
  return parsed;
};

export function registerRetentionCommands(program: Command, run: RunAction): void {
  const retention = program
    .command("retention")
    .description("retention policies, legal holds and the erasure schedule (DPDP s.8(7), Rules r.8)");

  // ----- policies ---------------------------------------------------------------------------------
  const policies = retention.command("policies").description("retention policies");
  policies
    .command("list")
    .description("list the organisation's policies, newest first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--all", "include archived policies")
    .action(
      run(async (ctx, options: { org: string; all?: boolean }) => {
        const { organizationId } = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pagePolicies(db, organizationId, { ...request, includeArchived: options.all === true }),
        );
        ctx.out.result({ policies: found.map(policyToWire) });
      }),
    );
  policies
    .command("show")
    .description("show one policy")
    .argument("<policyId>", "the policy id (rtp_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, policyId: string, options: { org: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        ctx.out.result(policyToWire(await getPolicy(await ctx.db(), organizationId, policyId)));
      }),
    );
  policies
    .command("create")
    .description(
      "create a policy for a purpose or a RoPA activity (--preset fills in a Third-Schedule template)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option("--name <name>", "the policy's name (defaults to the preset's)")
    .option("--purpose <purpose>", "the consent purpose covered")
    .option("--activity <activityId>", "the RoPA processing activity covered (its purpose is taken)")
    .option("--preset <preset>", `one of ${PRESETS.join(", ")}`, oneOf(PRESETS))
    .option("--anchor <event>", `one of ${ANCHOR_EVENTS.join(", ")}`, oneOf(ANCHOR_EVENTS))
    .option("--days <days>", "the window, in days after the anchor event", integer)
    .option("--notice-hours <hours>", "hours of notice before erasure (at least 48)", integer)
    .option("--floor <time>", "no window starts before this (epoch ms or ISO date)", time)
    .action(
      run(
        async (
          ctx,
          options: {
            org: string;
            name?: string;
            purpose?: string;
            activity?: string;
            preset?: string;
            anchor?: string;
            days?: number;
            noticeHours?: number;
            floor?: number;
          },
        ) => {
          const { organizationId } = await ctx.organization(options.org);
          const policy = await (
            await ctx.db()
          ).transaction((tx) =>
            createPolicy(
              tx,
              {
                organizationId,
                body: {
                  name: options.name,
                  purpose: options.purpose,
                  activityId: options.activity,
                  preset: options.preset,
                  anchorEvent: options.anchor,
                  durationDays: options.days,
                  noticeHours: options.noticeHours,
                  windowFloorAt: options.floor,
                },
                actor: cliActor(),
              },
              ropaActivities,
              Date.now(),
            ),
          );
          ctx.out.result(policyToWire(policy));
        },
      ),
    );
  policies
    .command("update")
    .description("change a policy's name or terms (a new duration or floor reschedules its open erasures)")
    .argument("<policyId>", "the policy id (rtp_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--name <name>", "the new name")
    .option("--days <days>", "the new window, in days", integer)
    .option("--notice-hours <hours>", "the new notice (at least 48 hours)", integer)
    .option("--floor <time>", "the new floor (epoch ms or ISO date)", time)
    .option("--no-floor", "remove the floor")
    .action(
      run(
        async (
          ctx,
          policyId: string,
          options: {
            org: string;
            name?: string;
            days?: number;
            noticeHours?: number;
            floor?: number | false;
          },
        ) => {
          const { organizationId } = await ctx.organization(options.org);
          const policy = await (
            await ctx.db()
          ).transaction((tx) =>
            changePolicy(
              tx,
              {
                organizationId,
                policyId,
                body: {
                  name: options.name,
                  durationDays: options.days,
                  noticeHours: options.noticeHours,
                  windowFloorAt: options.floor === false ? null : options.floor,
                },
                actor: cliActor(),
              },
              Date.now(),
            ),
          );
          ctx.out.result(policyToWire(policy));
        },
      ),
    );
  policies
    .command("archive")
    .description("archive a policy: it schedules nothing more and its open erasures are cancelled")
    .argument("<policyId>", "the policy id (rtp_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, policyId: string, options: { org: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        const policy = await (
          await ctx.db()
        ).transaction((tx) => archivePolicy(tx, { organizationId, policyId, actor: cliActor() }, Date.now()));
        ctx.out.result(policyToWire(policy));
      }),
    );
  retention
    .command("presets")
    .description("the DPDP Rules 2025 Third-Schedule presets")
    .action(
      run(async (ctx) => {
        ctx.out.result({ presets: Object.values(RETENTION_PRESETS) });
      }),
    );

  // ----- legal holds ------------------------------------------------------------------------------
  const holds = retention.command("holds").description("legal holds that suspend erasure");
  holds
    .command("list")
    .description("list the organisation's holds, newest first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${HOLD_STATES.join(", ")}`, oneOf(HOLD_STATES))
    .action(
      run(async (ctx, options: { org: string; status?: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        const db = await ctx.db();
        const now = Date.now();
        const found = await everyItem((request) =>
          pageHolds(db, organizationId, { ...request, status: options.status }, now),
        );
        ctx.out.result({ holds: await holdsToWire(db, organizationId, found, now) });
      }),
    );
  holds
    .command("place")
    .description("place a hold on a principal, a policy, or a principal under a policy")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--user <externalId>", "the principal held")
    .option("--policy <policyId>", "the policy held")
    .requiredOption("--statute <statute>", "the law relied on")
    .requiredOption("--citation <text>", "the provision or order, as cited")
    .option("--ends-at <time>", "when the hold lapses (epoch ms or ISO date)", time)
    .action(
      run(
        async (
          ctx,
          options: {
            org: string;
            user?: string;
            policy?: string;
            statute: string;
            citation: string;
            endsAt?: number;
          },
        ) => {
          const { organizationId } = await ctx.organization(options.org);
          const db = await ctx.db();
          const now = Date.now();
          const hold = await db.transaction((tx) =>
            placeHold(
              tx,
              {
                organizationId,
                body: {
                  userId: options.user,
                  policyId: options.policy,
                  statute: options.statute,
                  citation: options.citation,
                  endsAt: options.endsAt,
                },
                actor: cliActor(),
              },
              now,
            ),
          );
          ctx.out.result((await holdsToWire(db, organizationId, [hold], now))[0]);
        },
      ),
    );
  holds
    .command("release")
    .description("release a hold: the erasures it suspended proceed")
    .argument("<holdId>", "the hold id (rlh_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--reason <reason>", "why, kept on the audit chain")
    .action(
      run(async (ctx, holdId: string, options: { org: string; reason: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        const db = await ctx.db();
        const now = Date.now();
        const hold = await db.transaction((tx) =>
          releaseHold(tx, { organizationId, holdId, reason: options.reason, actor: cliActor() }, now),
        );
        ctx.out.result((await holdsToWire(db, organizationId, [hold], now))[0]);
      }),
    );

  // ----- reported events, the schedule, the sweep -------------------------------------------------
  retention
    .command("event")
    .description("report an account closure, a purpose served, or an interaction (a log-in, a contact)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--user <externalId>", "the principal")
    .requiredOption(
      "--kind <kind>",
      `one of ${RETENTION_EVENT_KINDS.join(", ")}`,
      oneOf(RETENTION_EVENT_KINDS),
    )
    .option("--purpose <purpose>", "the purpose served (with --kind purpose_served)")
    .option("--occurred-at <time>", "when (epoch ms or ISO date; default now)", time)
    .action(
      run(
        async (
          ctx,
          options: { org: string; user: string; kind: string; purpose?: string; occurredAt?: number },
        ) => {
          const { organizationId } = await ctx.organization(options.org);
          const event = await (
            await ctx.db()
          ).transaction((tx) =>
            recordRetentionEvent(
              tx,
              {
                organizationId,
                body: {
                  userId: options.user,
                  kind: options.kind,
                  purpose: options.purpose,
                  occurredAt: options.occurredAt,
                },
                actor: cliActor(),
              },
              Date.now(),
            ),
          );
          ctx.out.result(event);
        },
      ),
    );
  const erasures = retention.command("erasures").description("the erasure schedule");
  erasures
    .command("list")
    .description("list scheduled erasures in every state, newest first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--status <status>", `one of ${ERASURE_STATES.join(", ")}`, oneOf(ERASURE_STATES))
    .option("--policy <policyId>", "only this policy's")
    .option("--user <externalId>", "only this principal's")
    .action(
      run(async (ctx, options: { org: string; status?: string; policy?: string; user?: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        const db = await ctx.db();
        const now = Date.now();
        const found: ErasureWire[] = await everyItem((request) =>
          pageErasures(
            db,
            organizationId,
            { ...request, status: options.status, policyId: options.policy, externalId: options.user },
            now,
          ),
        );
        ctx.out.result({ erasures: found });
      }),
    );
  erasures
    .command("executed")
    .description("confirm a due erasure was executed (as the backend's POST …/executed does)")
    .argument("<scheduledErasureId>", "the erasure id (rse_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--executed-at <time>", "when (epoch ms or ISO date; default now)", time)
    .action(
      run(async (ctx, scheduledErasureId: string, options: { org: string; executedAt?: number }) => {
        const { organizationId } = await ctx.organization(options.org);
        const answer = await (
          await ctx.db()
        ).transaction((tx) =>
          confirmExecuted(
            tx,
            { organizationId, scheduledErasureId, executedAt: options.executedAt, actor: cliActor() },
            Date.now(),
          ),
        );
        ctx.out.result(answer);
      }),
    );
  erasures
    .command("cancel")
    .description(
      "cancel an erasure by hand, saying why (as POST /api/v1/staff/retention/erasures/{id}/cancel does)",
    )
    .argument("<scheduledErasureId>", "the erasure id (rse_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--reason <text>", "why it must not go ahead (kept on the audit chain)")
    .action(
      run(async (ctx, scheduledErasureId: string, options: { org: string; reason: string }) => {
        const { organizationId } = await ctx.organization(options.org);
        const answer = await (
          await ctx.db()
        ).transaction((tx) =>
          cancelByStaff(
            tx,
            { organizationId, scheduledErasureId, reason: options.reason, actor: cliActor() },
            Date.now(),
          ),
        );
        ctx.out.result(answer);
      }),
    );
  retention
    .command("sweep")
    .description("schedule, notify and cancel erasures now (a running server does this every 5 minutes)")
    .action(
      run(async (ctx) => {
        ctx.out.result(await sweepRetention(await ctx.db(), new WebhookRelayNotifier(), Date.now()));
      }),
    );
}
