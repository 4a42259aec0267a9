// guard notice publish
import fs from "node:fs";
import type { Command } from "commander";
import {
  assertPublishable,
  NoticeValidationError,
  parseNoticeDraft,
  publishNotice,
} from "../../notices/notices.js";
import { CliError, operatorPath } from "../io.js";
import type { RunAction } from "../main.js";

export function registerNoticeCommands(program: Command, run: RunAction): void {
  const notice = program.command("notice").description("privacy notices");
  notice
    .command("publish")
    .description(
      "publish a notice from a JSON file ({key?, itemized, content: {<lang>: {title, body, withdrawal, rights, complaint}}}); changed content makes a new version",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--file <path>", "notice JSON file")
    .action(
      run(async (ctx, options: { org: string; file: string }) => {
        let raw: unknown;
        try {
          raw = JSON.parse(fs.readFileSync(operatorPath(options.file), "utf8"));
        } catch (error) {
          throw new CliError(`Cannot read ${options.file} as JSON: ${(error as Error).message}`);
        }
        let draft;
        try {
          draft = parseNoticeDraft(raw);
          // Every language must carry the DPDP Rule 3 texts before it can be published.
          assertPublishable(draft);
        } catch (error) {
          if (error instanceof NoticeValidationError) throw new CliError(`${options.file}: ${error.message}`);
          throw error;
        }
        const organization = await ctx.organization(options.org);
        const published = await publishNotice(await ctx.db(), organization.organizationId, draft, Date.now());
        ctx.out.result({ noticeId: published.noticeId, version: published.version });
        ctx.out.note(
          published.created
            ? `Published version ${published.version}.`
            : "Unchanged: the published version already has this content.",
        );
      }),
    );
}
