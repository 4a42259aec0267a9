// guard webhooks create
import type { Command } from "commander";
import { createEndpoint } from "../../webhooks/endpoints.js";
import { SecretBox } from "../../webhooks/secret-box.js";
import { WEBHOOK_EVENT_TYPES } from "../../webhooks/outbox.js";
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
}
