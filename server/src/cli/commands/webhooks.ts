// guard webhooks create | list | disable | enable | delete, with the staff routes' rules; every
// change commits with its announcement, so running instances stop (or start) sending at once.
import type { Command } from "commander";
import { createEndpoint, deleteEndpoint, listEndpoints, updateEndpoint } from "../../webhooks/endpoints.js";
import { SecretBox } from "../../lib/secret-box.js";
import { WEBHOOK_EVENT_TYPES } from "../../webhooks/outbox.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

/** `a,b` → ["a", "b"]; blanks dropped, so `--events ""` or `--events ,` is an empty list (refused). */
const splitList = (value: string): string[] =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

export function registerWebhookCommands(program: Command, run: RunAction): void {
  const webhooks = program.command("webhooks").description("webhook endpoints");
  webhooks
    .command("create")
    .description("register a webhook endpoint; its signing secret is printed once")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--url <url>", "https URL (http only to localhost outside production)")
    .requiredOption("--events <list>", `comma-separated event types: ${WEBHOOK_EVENT_TYPES.join(", ")}`)
    .action(
      run(async (ctx, options: { org: string; url: string; events: string }) => {
        const organization = await ctx.organization(options.org);
        // In one transaction with its cache invalidation (webhooks/subscriptions.ts).
        const endpoint = await (
          await ctx.db()
        ).transaction((tx) =>
          createEndpoint(
            tx,
            new SecretBox(ctx.config.secretsKey),
            {
              organizationId: organization.organizationId,
              url: options.url,
              events: splitList(options.events),
              createdBy: null,
            },
            { now: Date.now(), production: ctx.config.production },
          ),
        );
        ctx.out.result({ endpointId: endpoint.endpointId, secret: endpoint.secret });
        ctx.out.note("Store the secret now: it is shown this once.");
      }),
    );

  webhooks
    .command("list")
    .description("list the organisation's webhook endpoints (never their secrets), newest first")
    .requiredOption("--org <slug>", "organisation slug")
    .option("--include-deleted", "list deleted endpoints too")
    .action(
      run(async (ctx, options: { org: string; includeDeleted?: boolean }) => {
        const organization = await ctx.organization(options.org);
        const endpoints = await listEndpoints(await ctx.db(), organization.organizationId, {
          includeDeleted: options.includeDeleted === true,
        });
        ctx.out.result({ endpoints });
      }),
    );

  for (const [verb, enabled] of [
    ["disable", false],
    ["enable", true],
  ] as const) {
    webhooks
      .command(verb)
      .description(
        enabled
          ? "re-enable an endpoint: deliveries queued meanwhile go out"
          : "disable an endpoint: nothing new is queued for it, and queued deliveries wait until it is enabled",
      )
      .argument("<endpointId>", "the endpoint id (whe_…, from guard webhooks list)")
      .requiredOption("--org <slug>", "organisation slug")
      .action(
        run(async (ctx, endpointId: string, options: { org: string }) => {
          const organization = await ctx.organization(options.org);
          const endpoint = await (
            await ctx.db()
          ).transaction((tx) =>
            updateEndpoint(
              tx,
              organization.organizationId,
              endpointId,
              { enabled },
              { now: Date.now(), production: ctx.config.production },
            ),
          );
          ctx.out.result(endpoint);
        }),
      );
  }

  webhooks
    .command("delete")
    .description("delete an endpoint for good and cancel its queued deliveries (its history stays)")
    .argument("<endpointId>", "the endpoint id (whe_…, from guard webhooks list)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, endpointId: string, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const result = await (
          await ctx.db()
        ).transaction((tx) => deleteEndpoint(tx, organization.organizationId, endpointId, Date.now()));
        if (!result.deleted) throw new CliError(`Webhook endpoint ${endpointId} is already deleted`);
        ctx.out.result(result);
      }),
    );
}
