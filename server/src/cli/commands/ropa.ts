// guard ropa list | show | add | update | archive | restore: the records of processing activities,
// with the same rules as the staff routes (ropa/activities.ts); changes are on the audit chain with
// the actor `system` / `cli:<OS user>`. Like the other operator commands they do not consult
// capabilities.
import { InvalidArgumentError, type Command } from "commander";
import { oneOf } from "../arguments.js";
import { everyItem } from "../paging.js";
import {
  activityToWire,
  createActivity,
  getActivity,
  pageActivities,
  setActivityArchived,
  updateActivity,
} from "../../ropa/activities.js";
import { LEGAL_BASES, RECIPIENT_ROLES } from "../../ropa/store.js";
import { cliActor } from "../context.js";
import type { RunAction } from "../main.js";

function trueOrFalse(value: string): boolean {
  if (value === "true") return true;
  if (value === "false") return false;
  throw new InvalidArgumentError("use true or false");
}

/** A comma-separated list (data categories and country codes hold no commas); blanks dropped. */
const list = (value: string): string[] =>
  value
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/**
 * `--recipient ROLE:NAME[:CC]`, repeatable: a processor, recipient or joint fiduciary, and where it
 * processes the data. A trailing `:` and two capitals is read as the country, so a name that itself
 * ends so needs the country given after it.
 */
function collectRecipient(value: string, previous: Record<string, string>[] = []): Record<string, string>[] {
  const colon = value.indexOf(":");
  if (colon <= 0)
    throw new InvalidArgumentError(`give ROLE:NAME[:CC], ROLE one of ${RECIPIENT_ROLES.join(", ")}`);
  const role = value.slice(0, colon);
  let name = value.slice(colon + 1);
  const country = /:([A-Z]{2})$/.exec(name);
  if (country) name = name.slice(0, -3);
  return [...previous, country ? { role, name, country: country[1]! } : { role, name }];
}

/** The fields of `add` / `update` as a request body: only those the operator gave. */
interface ContentOptions {
  name?: string;
  purpose?: string;
  description?: string;
  clearDescription?: boolean;
  dataCategories?: string[];
  legalBasis?: string;
  recipient?: Record<string, string>[];
  clearRecipients?: boolean;
  storageLocation?: string;
  crossesBorder?: boolean;
  destinations?: string[];
}

function bodyOf(options: ContentOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const set = (field: string, value: unknown) => {
    if (value !== undefined) body[field] = value;
  };
  set("name", options.name);
  set("purpose", options.purpose);
  set("description", options.clearDescription ? null : options.description);
  set("dataCategories", options.dataCategories);
  set("legalBasis", options.legalBasis);
  set("recipients", options.clearRecipients ? null : options.recipient);
  set("storageLocation", options.storageLocation);
  set("crossesBorder", options.crossesBorder);
  set("destinationCountries", options.destinations);
  return body;
}

function contentOptions(command: Command, required: boolean): Command {
  const option = (flags: string, description: string, parse?: (value: string) => unknown) => {
    if (required) command.requiredOption(flags, description, parse as (value: string) => string);
    else command.option(flags, description, parse as (value: string) => string);
  };
  option("--name <name>", "what the activity is called (1-200 characters)");
  option(
    "--purpose <purpose>",
    "why the data is processed (the consent purpose label where consent is the basis)",
  );
  command.option("--description <text>", "a longer description (up to 2000 characters)");
  option("--data-categories <list>", "comma-separated categories of personal data (email,phone,...)", list);
  option("--legal-basis <basis>", `one of ${LEGAL_BASES.join(", ")}`, oneOf(LEGAL_BASES));
  command.option(
    "--recipient <ROLE:NAME[:CC]>",
    `a processor, recipient or joint fiduciary (repeatable; ROLE one of ${RECIPIENT_ROLES.join(", ")}, CC an ISO country code)`,
    collectRecipient,
  );
  option("--storage-location <text>", "where the data is kept (a country, a cloud region, a data centre)");
  option(
    "--crosses-border <true|false>",
    "whether the data is transferred outside India (s.16)",
    trueOrFalse,
  );
  command.option(
    "--destinations <list>",
    "comma-separated ISO 3166-1 alpha-2 codes of the countries outside India (when it crosses the border)",
    list,
  );
  return command;
}

export function registerRopaCommands(program: Command, run: RunAction): void {
  const ropa = program
    .command("ropa")
    .description(
      "records of processing activities: purpose, legal basis, recipients, cross-border transfers",
    );

  ropa
    .command("list")
    .description(
      "list the organisation's active processing activities (archived ones with --archived), newest first",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option("--archived", "list the archived activities instead")
    .option("--crosses-border <true|false>", "only those that do (or do not) cross the border", trueOrFalse)
    .action(
      run(async (ctx, options: { org: string; archived?: boolean; crossesBorder?: boolean }) => {
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const found = await everyItem((request) =>
          pageActivities(db, organization.organizationId, {
            ...request,
            archived: options.archived === true,
            crossesBorder: options.crossesBorder,
          }),
        );
        ctx.out.result({ activities: found.map(activityToWire) });
      }),
    );

  ropa
    .command("show")
    .description("show one processing activity, archived or not")
    .argument("<activityId>", "the activity id (act_…)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, activityId: string, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        ctx.out.result(
          activityToWire(await getActivity(await ctx.db(), organization.organizationId, activityId)),
        );
      }),
    );

  contentOptions(
    ropa
      .command("add")
      .description("record a processing activity; prints it with its new id")
      .requiredOption("--org <slug>", "organisation slug"),
    true,
  ).action(
    run(async (ctx, options: ContentOptions & { org: string }) => {
      const organization = await ctx.organization(options.org);
      const activity = await (
        await ctx.db()
      ).transaction((tx) =>
        createActivity(
          tx,
          { organizationId: organization.organizationId, body: bodyOf(options), actor: cliActor() },
          Date.now(),
        ),
      );
      ctx.out.result(activityToWire(activity));
    }),
  );

  contentOptions(
    ropa
      .command("update")
      .description("change some fields of a processing activity (validated as a whole afterwards)")
      .argument("<activityId>", "the activity id (act_…)")
      .requiredOption("--org <slug>", "organisation slug")
      .option("--clear-description", "remove the description")
      .option("--clear-recipients", "remove every recipient"),
    false,
  ).action(
    run(async (ctx, activityId: string, options: ContentOptions & { org: string }) => {
      const organization = await ctx.organization(options.org);
      const activity = await (
        await ctx.db()
      ).transaction((tx) =>
        updateActivity(
          tx,
          {
            organizationId: organization.organizationId,
            activityId,
            patch: bodyOf(options),
            actor: cliActor(),
          },
          Date.now(),
        ),
      );
      ctx.out.result(activityToWire(activity));
    }),
  );

  for (const [verb, archived, description] of [
    [
      "archive",
      true,
      "archive a processing activity (kept, but off the cross-border register); again is a no-op",
    ],
    ["restore", false, "make an archived processing activity active again; again is a no-op"],
  ] as const) {
    ropa
      .command(verb)
      .description(description)
      .argument("<activityId>", "the activity id (act_…)")
      .requiredOption("--org <slug>", "organisation slug")
      .action(
        run(async (ctx, activityId: string, options: { org: string }) => {
          const organization = await ctx.organization(options.org);
          const activity = await (
            await ctx.db()
          ).transaction((tx) =>
            setActivityArchived(
              tx,
              { organizationId: organization.organizationId, activityId, actor: cliActor(), archived },
              Date.now(),
            ),
          );
          ctx.out.result(activityToWire(activity));
        }),
      );
  }
}
