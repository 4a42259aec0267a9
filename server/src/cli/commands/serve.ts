// guard serve | guard migrate
import { InvalidArgumentError, type Command } from "commander";
import { INTEGER_SETTINGS, integerInRange, type Config } from "../../config.js";
import { seedDemo } from "../../demo/seed.js";
import { startServer } from "../../server.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

const PORT = INTEGER_SETTINGS.port;

function parsePort(value: string): number {
  const port = integerInRange(PORT, value);
  if (port === undefined) throw new InvalidArgumentError(`a port number from ${PORT.min} to ${PORT.max}`);
  return port;
}

/**
 * Starts listening, or says in one line why the address cannot be had (in use, or a privileged
 * port) and what to do, instead of a stack trace.
 */
async function listenOrExplain<T>(config: Config, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const where = `${config.host}:${config.port}`;
    if (code === "EADDRINUSE") {
      throw new CliError(
        `${where} is in use by another program: stop it, or choose another port with ${PORT.env}=<n> or --port <n>`,
      );
    }
    if (code === "EACCES") {
      throw new CliError(
        `${where} needs privileges to listen on: choose a port above 1023 with ${PORT.env}=<n>`,
      );
    }
    if (code === "EADDRNOTAVAIL") {
      throw new CliError(`${config.host} is not an address of this machine: check GUARD_HOST`);
    }
    if (code === "ENOTFOUND" || code === "EAI_AGAIN") {
      throw new CliError(
        `GUARD_HOST "${config.host}" is not a host name this machine resolves: set an address of this machine (127.0.0.1, or 0.0.0.0 for every interface)`,
      );
    }
    throw error;
  }
}

export function registerServeCommands(program: Command, run: RunAction): void {
  program
    .command("serve")
    .description("run the HTTP service (embedded database unless DATABASE_URL is set)")
    .option("--port <n>", `listen port (env ${PORT.env}, default ${PORT.default})`, parsePort)
    .option("--seed-demo", "create the demo organisation on first start")
    .action(async (options: { port?: number; seedDemo?: boolean }) => {
      await run(
        async (ctx) => {
          if (ctx.host) {
            throw new CliError(
              `Guard is already running on this data directory at ${ctx.host.url} (pid ${process.pid}); stop it first to start another server on it`,
            );
          }
          const db = await ctx.db({ serving: true });
          // --port overrides PORT; 0 picks a free port (tests, several local servers).
          const config = options.port === undefined ? ctx.config : { ...ctx.config, port: options.port };
          const server = await listenOrExplain(config, () =>
            startServer(config, { db, demoShop: options.seedDemo === true, cliSocket: true }),
          );
          // Seeded once the port is ours: a start that cannot listen must not spend the demo's
          // one-time credentials on a process that exits before printing them.
          const demo = options.seedDemo ? await seedDemo(db, Date.now()) : undefined;
          const base = server.url;
          const lines = [
            `Guard is running at ${base} (${ctx.config.databaseUrl ? "PostgreSQL server" : `embedded database in ${ctx.config.dataDir}`})`,
            `  API base:       ${base}/api/v1`,
            `  API reference:  ${base}/docs`,
            `  OpenAPI:        ${base}/api/v1/openapi.json`,
            server.app.hasRoute({ method: "GET", url: "/dashboard" })
              ? `  Dashboard:      ${base}/dashboard`
              : "  Dashboard:      not built: run `npm run build -w dashboard` (or `npm start`, which builds it), then restart",
            "  Next:           docs/getting-started.md (a consent, the Consent Gate, a withdrawal, a rights request)",
          ];
          if (demo) {
            lines.push(
              "",
              "Demo organisation created (slug: demo). These secrets are shown once and stored only as hashes:",
              `  staff admin:    ${demo.adminEmail} / ${demo.adminPassword}`,
              `  dashboard:      ${base}/dashboard, sign in with organisation \`demo\`, ${demo.adminEmail} / ${demo.adminPassword}`,
              `  service key:    ${demo.apiKey}`,
              `  try:            curl ${base}/api/v1/org/demo`,
              "  lost them?      npx guard demo reset-credentials (new ones, with Guard running or not)",
            );
          }
          if (options.seedDemo && !demo) {
            lines.push(
              "",
              "Demo organisation (slug: demo): its credentials were shown once, on its first start. New ones:",
              "  run: npx guard demo reset-credentials",
            );
          }
          if (options.seedDemo) {
            // The demo organisation registers localhost and 127.0.0.1, so either host shows the banner.
            lines.push(
              `  Demo shop:      ${base.replace("127.0.0.1", "localhost")}/demo/shop (the hosted consent banner)`,
            );
            if (!server.app.hasRoute({ method: "GET", url: "/banner/v1/guard.js" }))
              lines.push("  (no banner script: run `npm run build -w banner`, then restart)");
          }
          ctx.out.note(lines.join("\n"));
          if (ctx.out.json) ctx.out.result({ url: base, demo: demo ?? null });
          await new Promise<void>((resolve) => {
            const shutdown = (signal: string) => {
              ctx.out.note(`${signal}: shutting down`);
              server.stop().then(resolve, resolve);
            };
            process.once("SIGINT", () => shutdown("SIGINT"));
            process.once("SIGTERM", () => shutdown("SIGTERM"));
          });
        },
        { keepOpen: true },
      )();
    });

  program
    .command("migrate")
    .description("apply pending database migrations (the server also applies them at start)")
    .action(
      run(async (ctx) => {
        await ctx.db({ migrateOnOpen: false });
        const applied = await ctx.migrate();
        ctx.out.result({ applied });
      }),
    );
}
