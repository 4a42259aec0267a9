// `guard`: the operator's command line. Each command group lives in ./commands; this file wires
// the global options (--json, --data-dir) and the error/exit-code conventions. main() writes only
// to the invocation's streams (CliIo), so a running server can run it for a CLI (cli-socket.ts).
import fs from "node:fs";
import { CONTRACT_VERSION } from "@guard/contract";
import { Command, CommanderError } from "commander";
import { DEFAULT_DATA_DIR } from "../config.js";
import { CliContext, type GlobalOptions } from "./context.js";
import { Failure } from "../lib/failure.js";
import { CliError, createOutput, processIo, runInvocation, type CliIo } from "./io.js";
import { RunThroughServer, runThroughServer, type CliHost } from "./cli-socket.js";
import { MigrationError } from "../db/migrate.js";
import { registerServeCommands } from "./commands/serve.js";
import { registerAccountCommands } from "./commands/accounts.js";
import { registerNoticeCommands } from "./commands/notices.js";
import { registerRightsCommands } from "./commands/rights.js";
import { registerWebhookCommands } from "./commands/webhooks.js";
import { registerAuditCommands } from "./commands/audit.js";
import { registerParentalCommands } from "./commands/parental.js";
import { registerDeviceCommands } from "./commands/devices.js";
import { registerOfflineCommands } from "./commands/offline.js";
import { registerBreachCommands } from "./commands/breaches.js";
import { registerLogCommands } from "./commands/logs.js";
import { registerRopaCommands } from "./commands/ropa.js";
import { registerRetentionCommands } from "./commands/retention.js";
import { registerDemoCommands } from "./commands/demo.js";
import { registerBackupCommands } from "./commands/backup.js";

/** Runs `action` with a context built from the global options, closing the database afterwards. */
export type RunAction = <A extends unknown[]>(
  action: (ctx: CliContext, ...args: A) => Promise<void>,
  options?: {
    keepOpen?: boolean;
    /** The command reads stdin (a secret): forwarded to a running server along with it. */
    readsStdin?: boolean;
  },
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

function buildProgram(argv: readonly string[], io: CliIo, host: CliHost | undefined): Command {
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
    // Before the commands are added: they copy it (help and usage errors go to the invocation's streams).
    .configureOutput({ writeOut: (text) => io.out.write(text), writeErr: (text) => io.err.write(text) })
    .exitOverride();
  program.on("option:version", () => {
    io.out.write(`${versionText(argv.includes("--json"))}\n`);
    throw new CommanderError(0, "commander.version", "version printed");
  });

  const run: RunAction =
    (action, options = {}) =>
    async (...args) => {
      const globals = program.opts<GlobalOptions>();
      const ctx = CliContext.create(globals, createOutput(Boolean(globals.json), io), {
        io,
        host,
        readsStdin: options.readsStdin,
      });
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
  registerOfflineCommands(program, run);
  registerBreachCommands(program, run);
  registerLogCommands(program, run);
  registerRopaCommands(program, run);
  registerRetentionCommands(program, run);
  registerDemoCommands(program, run);
  registerBackupCommands(program);
  return program;
}

/**
 * Parses and runs; resolves to the process exit code. `io` defaults to this process's streams;
 * `host` is the running server a forwarded invocation runs in (cli-socket.ts).
 */
export async function main(argv: string[], options: { io?: CliIo; host?: CliHost } = {}): Promise<number> {
  const io = options.io ?? processIo();
  return runInvocation(io, () => runMain(argv, io, options.host));
}

async function runMain(argv: string[], io: CliIo, host: CliHost | undefined): Promise<number> {
  const program = buildProgram(argv, io, host);
  try {
    await program.parseAsync(argv, { from: "user" });
    return 0;
  } catch (error) {
    if (error instanceof RunThroughServer) {
      if (host) {
        // Running inside that server already, a command that opens the directory itself (not
        // through its context's host database) would wait on its own socket: refused instead.
        io.err.write(
          `guard: this command needs the data directory to itself: stop the Guard server running on it (${host.url}) first\n`,
        );
        return 1;
      }
      // A server holds the embedded database: it runs the command and its answer is ours.
      return runThroughServer(error, argv, io);
    }
    if (error instanceof CommanderError) {
      // Help and version are "errors" to commander; a real usage error already printed its message.
      return error.code === "commander.helpDisplayed" || error.code === "commander.version" ? 0 : 2;
    }
    if (error instanceof Failure) {
      // A domain refusal (bad value, forbidden move, unknown id) is the operator's error.
      const field = error.field ? ` (${error.field})` : "";
      io.err.write(`guard: ${error.code}: ${error.message}${field}\n`);
      return 1;
    }
    if (error instanceof CliError) {
      io.err.write(`guard: ${error.message}\n`);
      return error.exitCode;
    }
    if (error instanceof MigrationError) {
      // A data directory the migrations refuse: the message says what to do.
      io.err.write(`guard: ${error.message}\n`);
      return 1;
    }
    io.err.write(
      `guard: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
