// `guard`: the operator's command line. Each command group lives in ./commands; this file wires
// the global options (--json, --data-dir) and the error/exit-code conventions.
import fs from "node:fs";
import { CONTRACT_VERSION } from "@guard/contract";
import { Command, CommanderError } from "commander";
import { DEFAULT_DATA_DIR } from "../config.js";
import { CliContext, type GlobalOptions } from "./context.js";
import { Failure } from "../lib/failure.js";
import { CliError, createOutput } from "./io.js";
import { MigrationError } from "../db/migrate.js";
import { registerServeCommands } from "./commands/serve.js";
import { registerAccountCommands } from "./commands/accounts.js";
import { registerNoticeCommands } from "./commands/notices.js";
import { registerRightsCommands } from "./commands/rights.js";
import { registerWebhookCommands } from "./commands/webhooks.js";
import { registerAuditCommands } from "./commands/audit.js";
import { registerParentalCommands } from "./commands/parental.js";
import { registerDeviceCommands } from "./commands/devices.js";
import { registerDemoCommands } from "./commands/demo.js";
import { registerBackupCommands } from "./commands/backup.js";

/** Runs `action` with a context built from the global options, closing the database afterwards. */
export type RunAction = <A extends unknown[]>(
  action: (ctx: CliContext, ...args: A) => Promise<void>,
  options?: { keepOpen?: boolean },
) => (...args: A) => Promise<void>;

/** `guard --version`: this server package's version and the contract version it serves. */
function versionText(json: boolean): string {
  const pkg = JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return json
    ? JSON.stringify({ version: pkg.version, contractVersion: CONTRACT_VERSION })
    : `guard ${pkg.version} (contract ${CONTRACT_VERSION})`;
}

function buildProgram(argv: readonly string[]): Command {
  const program = new Command("guard")
    .description("Guard: consent and data-principal rights service for India's DPDP Act")
    .option("--json", "print results as one line of JSON")
    .option(
      "--data-dir <dir>",
      `embedded database directory (env GUARD_DATA_DIR, default ${DEFAULT_DATA_DIR})`,
    )
    // Not commander's .version(): its text is fixed before --json (which may follow) is parsed.
    .option("-V, --version", "print Guard's version and its contract version")
    .showHelpAfterError()
    .exitOverride();
  program.on("option:version", () => {
    process.stdout.write(`${versionText(argv.includes("--json"))}\n`);
    throw new CommanderError(0, "commander.version", "version printed");
  });

  const run: RunAction =
    (action, options = {}) =>
    async (...args) => {
      const globals = program.opts<GlobalOptions>();
      const ctx = CliContext.create(globals, createOutput(Boolean(globals.json)));
      try {
        await action(ctx, ...args);
      } catch (error) {
        throw ctx.operatorError(error);
      } finally {
        if (!options.keepOpen) await ctx.close();
      }
    };

  registerServeCommands(program, run);
  registerAccountCommands(program, run);
  registerNoticeCommands(program, run);
  registerRightsCommands(program, run);
  registerWebhookCommands(program, run);
  registerAuditCommands(program, run);
  registerParentalCommands(program, run);
  registerDeviceCommands(program, run);
  registerDemoCommands(program, run);
  registerBackupCommands(program);
  return program;
}

/** Parses and runs; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram(argv);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; a real usage error already printed its message.
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" ? 0 : 2;
    }
    if (error instanceof Failure) {
      // A domain refusal (bad value, forbidden move, unknown id) is the operator's error.
      const field = error.field ? ` (${error.field})` : "";
      process.stderr.write(`guard: ${error.code}: ${error.message}${field}\n`);
      return 1;
    }
    if (error instanceof CliError) {
      process.stderr.write(`guard: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof MigrationError) {
      // A data directory the migrations refuse: the message says what to do.
      process.stderr.write(`guard: ${error.message}\n`);
      return 1;
    }
    process.stderr.write(
      `guard: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
