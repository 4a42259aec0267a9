// guard org create | staff create | keys create | domains add | apps add
import { InvalidArgumentError, type Command } from "commander";
import { createApiKey } from "../../accounts/api-keys.js";
import { createOrganization, SlugTakenError } from "../../accounts/organizations.js";
import { createStaffUser, StaffEmailTakenError } from "../../accounts/staff.js";
import { registerApp, registerDomain } from "../../banner/banner-config.js";
import { STAFF_ROLES, type StaffRole } from "../../http/credentials.js";
import { CliError, readSecret } from "../io.js";
import type { RunAction } from "../main.js";

/** Domain functions throw RangeError("field: reason") for bad input; the CLI reports it as usage. */
export async function asCliInput<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (
      error instanceof RangeError ||
      error instanceof SlugTakenError ||
      error instanceof StaffEmailTakenError
    ) {
      throw new CliError(error.message);
    }
    throw error;
  }
}

function parseRole(value: string): StaffRole {
  if (!STAFF_ROLES.includes(value as StaffRole))
    throw new InvalidArgumentError(`use one of ${STAFF_ROLES.join(", ")}`);
  return value as StaffRole;
}

export function registerAccountCommands(program: Command, run: RunAction): void {
  const org = program.command("org").description("organisations");
  org
    .command("create")
    .description("create an organisation")
    .requiredOption("--slug <slug>", "short name: lowercase letters, digits, hyphens")
    .requiredOption("--name <name>", "display name")
    .action(
      run(async (ctx, options: { slug: string; name: string }) => {
        const created = await asCliInput(async () => createOrganization(await ctx.db(), options, Date.now()));
        ctx.out.result({ organizationId: created.organizationId, slug: created.slug, name: created.name });
      }),
    );

  const staff = program.command("staff").description("staff users (admin, dpo, viewer)");
  staff
    .command("create")
    .description("create a staff user; the password is read from stdin")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--email <email>", "sign-in email")
    .requiredOption("--role <role>", `one of ${STAFF_ROLES.join(", ")}`, parseRole)
    .action(
      run(async (ctx, options: { org: string; email: string; role: StaffRole }) => {
        const organization = await ctx.organization(options.org);
        const password = await readSecret("Password: ");
        const user = await asCliInput(async () =>
          createStaffUser(
            await ctx.db(),
            {
              organizationId: organization.organizationId,
              email: options.email,
              role: options.role,
              password,
            },
            Date.now(),
          ),
        );
        ctx.out.result({ staffId: user.staffId, email: user.email, role: user.role });
      }),
    );

  const keys = program.command("keys").description("service API keys");
  keys
    .command("create")
    .description("create a service API key (printed once; only its hash is stored)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--name <name>", "label for the integration using the key")
    .action(
      run(async (ctx, options: { org: string; name: string }) => {
        const organization = await ctx.organization(options.org);
        const key = await asCliInput(async () =>
          createApiKey(
            await ctx.db(),
            { organizationId: organization.organizationId, name: options.name, createdBy: null },
            Date.now(),
          ),
        );
        ctx.out.result({ apiKeyId: key.apiKeyId, key: key.key });
        ctx.out.note("Store the key now: it is shown this once.");
      }),
    );

  const domains = program.command("domains").description("web domains registered to an organisation");
  domains
    .command("add")
    .description("register a web domain (banner and widget config are served only for registered domains)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--domain <host>", "hostname, e.g. www.example.in")
    .action(
      run(async (ctx, options: { org: string; domain: string }) => {
        const organization = await ctx.organization(options.org);
        const domain = await asCliInput(async () =>
          registerDomain(await ctx.db(), organization.organizationId, options.domain, Date.now()),
        );
        ctx.out.result({ organizationId: organization.organizationId, domain });
      }),
    );

  const apps = program.command("apps").description("native apps registered to an organisation");
  apps
    .command("add")
    .description("register a native app id (bundle id or package name)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--app-id <id>", "e.g. in.example.app")
    .action(
      run(async (ctx, options: { org: string; appId: string }) => {
        const organization = await ctx.organization(options.org);
        const appId = await asCliInput(async () =>
          registerApp(await ctx.db(), organization.organizationId, options.appId, Date.now()),
        );
        ctx.out.result({ organizationId: organization.organizationId, appId });
      }),
    );
}
