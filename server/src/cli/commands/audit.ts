// guard audit verify
import type { Command } from "commander";
import { verifyAllAuditChains, verifyAuditChain, type AuditVerification } from "../../audit/verify.js";
import { CliError, type Output } from "../io.js";
import type { RunAction } from "../main.js";

/** Problems named on stderr per organisation; the JSON report lists up to its own cap. */
const NAMED_PROBLEMS = 20;

function brokenAt(report: AuditVerification, name: string): string {
  const first = report.firstBrokenLink!;
  return `audit chain of ${name} is broken at seq ${first.seq ?? "?"} (${first.table} ${first.recordId}): ${first.reason}`;
}

function describe(report: AuditVerification, name: string, out: Output): void {
  if (report.intact) {
    const { audit_entries: _entries, ...rows } = report.rowsChecked;
    const counts = Object.entries(rows).map(([table, n]) => `${table} ${n}`);
    out.note(
      `${name}: Intact: ${report.entries} entries; rows checked against them: ${counts.join(", ") || "none"}; head ${report.headHash}.`,
    );
    return;
  }
  out.note(`${name}: ${report.problemCount} problem(s):`);
  for (const problem of report.problems.slice(0, NAMED_PROBLEMS)) {
    out.note(
      `  ${problem.table} ${problem.recordId}${problem.seq === null ? "" : ` (seq ${problem.seq})`}: ${problem.reason}`,
    );
  }
  if (report.problemCount > NAMED_PROBLEMS)
    out.note(`  ... and ${report.problemCount - NAMED_PROBLEMS} more`);
}

export function registerAuditCommands(program: Command, run: RunAction): void {
  const audit = program.command("audit").description("tamper-evident audit evidence");
  audit
    .command("verify")
    .description(
      "walk an organisation's audit chain (or every organisation's, --all) and check every record it covers against it; exit 0 when intact, 1 naming each table and row that disagrees",
    )
    .option("--org <slug>", "organisation slug")
    .option("--all", "every organisation")
    .action(
      run(async (ctx, options: { org?: string; all?: boolean }) => {
        if ((options.org === undefined) === (options.all !== true)) {
          throw new CliError("name one organisation with --org <slug>, or every organisation with --all", 2);
        }
        const db = await ctx.db();
        if (options.org !== undefined) {
          const organization = await ctx.organization(options.org);
          const report = await verifyAuditChain(db, organization.organizationId, ctx.config.auditKeys);
          ctx.out.result(report);
          describe(report, options.org, ctx.out);
          if (!report.intact) throw new CliError(brokenAt(report, options.org));
          return;
        }
        const all = await verifyAllAuditChains(db, ctx.config.auditKeys);
        ctx.out.result(all);
        for (const report of all.organizations) describe(report, report.organizationId, ctx.out);
        const broken = all.organizations.filter((r) => !r.intact);
        if (broken.length > 0) {
          throw new CliError(
            `${broken.length} of ${all.organizations.length} audit chains are broken; first: ${brokenAt(broken[0]!, broken[0]!.organizationId)}`,
          );
        }
      }),
    );
}
