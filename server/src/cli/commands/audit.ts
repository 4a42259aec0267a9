// guard audit verify
import type { Command } from "commander";
import { verifyAuditChain } from "../../audit/verify.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

export function registerAuditCommands(program: Command, run: RunAction): void {
  const audit = program.command("audit").description("tamper-evident audit evidence");
  audit
    .command("verify")
    .description(
      "walk an organisation's audit chain and recompute every consent audit hash; exit 0 when intact, 1 with the first broken link",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const report = await verifyAuditChain(
          await ctx.db(),
          organization.organizationId,
          ctx.config.auditKeys,
        );
        ctx.out.result(report);
        if (!report.intact) {
          const broken = report.firstBrokenLink!;
          throw new CliError(
            `audit chain of ${options.org} is broken at seq ${broken.seq ?? "?"} (${broken.subjectId}): ${broken.reason}`,
          );
        }
        ctx.out.note(
          `Intact: ${report.entries} entries, ${report.consentsChecked} consents checked; head ${report.headHash}.`,
        );
      }),
    );
}
