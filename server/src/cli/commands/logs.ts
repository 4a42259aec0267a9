// guard logs policy show | policy set | purge: the organisation's log-retention policy and the
// retention job (log-retention/). `purge` runs what the background sweep runs, for one
// organisation or all, and --dry-run reports what would go without purging.
import type { Command } from "commander";
import {
  purgeOrganizationLogs,
  runLogRetentionSweep,
  type LogPurgeReport,
} from "../../log-retention/purge.js";
import {
  FIELD_OF,
  LOG_CLASSES,
  MINIMUM_LOG_RETENTION_DAYS,
  readLogRetentionPolicy,
  setLogRetentionPolicy,
  type LogRetentionPolicy,
} from "../../log-retention/policy.js";
import { cliActor } from "../context.js";
import { CliError, type Output } from "../io.js";
import type { RunAction } from "../main.js";

/** `--audit-entries` for `audit_entries`. */
const flagOf = (logClass: string) => `--${logClass.replace(/_/g, "-")}`;

const policyToWire = (policy: LogRetentionPolicy) =>
  Object.fromEntries(LOG_CLASSES.map((logClass) => [FIELD_OF[logClass], policy[logClass]]));

function describe(report: LogPurgeReport, name: string, out: Output): void {
  const verb = report.dryRun ? "would purge" : "purged";
  for (const [field, purge] of Object.entries(report.classes)) {
    if (purge.status === "kept_forever") continue;
    const say = (text: string) => out.note(`${name}: ${field}: ${text}.`);
    if (purge.status === "not_purged") {
      say(`not purged: ${purge.reason}`);
    } else if ("deliveriesPurged" in purge) {
      const dropped =
        purge.partitionsDropped.length === 0
          ? ""
          : `; ${report.dryRun ? "would drop" : "dropped"} ${purge.deliveriesDropped} with the month partitions ${purge.partitionsDropped.join(", ")}`;
      say(
        purge.status === "purged"
          ? `${verb} ${purge.deliveriesPurged} finished deliveries` +
              (report.dryRun ? "" : ` (${purge.attemptsPurged} attempts, ${purge.eventsPurged} events)`) +
              dropped
          : "nothing to purge",
      );
    } else if ("decisionsPurged" in purge) {
      const dropped =
        purge.partitionsDropped.length === 0
          ? ""
          : `; ${report.dryRun ? "would drop" : "dropped"} ${purge.decisionsDropped} with the month partitions ${purge.partitionsDropped.join(", ")}`;
      say(
        purge.status === "purged"
          ? `${verb} ${purge.decisionsPurged} decisions logged before ${new Date(purge.purgedBefore).toISOString()}${dropped}`
          : "nothing to purge",
      );
    } else if (purge.status === "purged" || purge.status === "nothing_to_purge") {
      const held =
        purge.heldFromSeq === null
          ? ""
          : `; entries from seq ${purge.heldFromSeq} are still needed by kept records`;
      const dropped =
        purge.partitionsDropped.length === 0
          ? ""
          : `; ${report.dryRun ? "would drop" : "dropped"} ${purge.entriesDropped} with the month partitions ${purge.partitionsDropped.join(", ")}`;
      say(
        purge.status === "purged"
          ? `${verb} entries ${purge.fromSeq}..${purge.throughSeq} (${purge.entriesPurged})${held}${dropped}`
          : `nothing to purge${held}${dropped}`,
      );
    } else if (purge.status === "busy") {
      say("the chain is busy; run again");
    } else {
      say("the audit chain does not verify, so nothing was purged; run guard audit verify");
    }
  }
}

export function registerLogCommands(program: Command, run: RunAction): void {
  const logs = program
    .command("logs")
    .description(
      `log retention: keep logs at least ${MINIMUM_LOG_RETENTION_DAYS} days, purge what the policy allows after`,
    );
  const policy = logs.command("policy").description("the organisation's log-retention policy");

  policy
    .command("show")
    .description("print the days each class of log is kept (null: forever, the default)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        ctx.out.result(
          policyToWire(await readLogRetentionPolicy(await ctx.db(), organization.organizationId)),
        );
      }),
    );

  const set = policy
    .command("set")
    .description(
      `set how long classes of log are kept: whole days from ${MINIMUM_LOG_RETENTION_DAYS} (DPDP Rules 2025 r.8(3)), or "forever"`,
    )
    .requiredOption("--org <slug>", "organisation slug");
  for (const logClass of LOG_CLASSES)
    set.option(`${flagOf(logClass)} <days>`, `days to keep ${logClass}, or forever`);
  set.action(
    run(async (ctx, options: Record<string, string | undefined> & { org: string }) => {
      const changes: Record<string, unknown> = {};
      for (const logClass of LOG_CLASSES) {
        const value = options[FIELD_OF[logClass]];
        if (value !== undefined) changes[FIELD_OF[logClass]] = value;
      }
      if (Object.keys(changes).length === 0) {
        throw new CliError(`name at least one class: ${LOG_CLASSES.map(flagOf).join(", ")}`, 2);
      }
      const organization = await ctx.organization(options.org);
      const updated = await (
        await ctx.db()
      ).transaction((tx) =>
        setLogRetentionPolicy(tx, organization.organizationId, changes, cliActor().id, Date.now()),
      );
      ctx.out.result(policyToWire(updated));
    }),
  );

  logs
    .command("purge")
    .description(
      "purge what the log-retention policy allows (never anything younger than a year), recording it on the audit chain; --dry-run only reports",
    )
    .option("--org <slug>", "organisation slug")
    .option("--all", "every organisation with a purge period set")
    .option("--dry-run", "report what would be purged; purge nothing")
    .action(
      run(async (ctx, options: { org?: string; all?: boolean; dryRun?: boolean }) => {
        if ((options.org === undefined) === (options.all !== true)) {
          throw new CliError("name one organisation with --org <slug>, or every organisation with --all", 2);
        }
        const db = await ctx.db();
        const now = Date.now();
        const keys = ctx.config.auditKeys;
        if (options.org !== undefined) {
          const organization = await ctx.organization(options.org);
          const report = await purgeOrganizationLogs(db, organization.organizationId, {
            now,
            keys,
            dryRun: options.dryRun === true,
          });
          ctx.out.result(report);
          describe(report, options.org, ctx.out);
          if (Object.values(report.classes).some((c) => c.status === "chain_broken")) {
            throw new CliError(
              `the audit chain of ${options.org} does not verify; nothing was purged from it`,
            );
          }
          return;
        }
        const reports = await runLogRetentionSweep(db, { now, keys, dryRun: options.dryRun === true });
        ctx.out.result({ organizations: reports });
        for (const report of reports) describe(report, report.organizationId, ctx.out);
        const broken = reports.filter((r) =>
          Object.values(r.classes).some((c) => c.status === "chain_broken"),
        );
        if (broken.length > 0) {
          throw new CliError(`${broken.length} audit chain(s) do not verify; nothing was purged from them`);
        }
      }),
    );
}
