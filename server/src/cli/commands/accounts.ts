// guard org create|list|disable|enable|settings | staff create|list|disable|enable | keys create|list|revoke |
// domains add|list|remove | apps add|list|remove. Changes go through the same rules as the staff routes (the last enabled
// admin stays, a revocation is announced to every instance's key cache in its transaction).
import { InvalidArgumentError, type Command } from "commander";
import { createApiKey, revokeApiKey } from "../../accounts/api-keys.js";
import { createOrganization } from "../../accounts/organizations.js";
import { disableOrganization, enableOrganization } from "../../accounts/organization-status.js";
import { createStaffUser, normaliseEmail } from "../../accounts/staff.js";
import { updateStaffAccount, type StaffAccount } from "../../accounts/staff-accounts.js";
import { listApiKeys, listOrganizations, listStaffUsers } from "../../accounts/store.js";
import type { Queryable } from "../../db/database.js";
import { registerApp, registerDomain } from "../../banner/banner-config.js";
import { listApps, listDomains, removeApp, removeDomain } from "../../banner/staff-config.js";
import { STAFF_ROLES, type StaffRole } from "../../lib/credentials.js";
import { validationError } from "../../lib/failure.js";
import {
  readOrganizationSettings,
  settablePaths,
  updateOrganizationSettings,
} from "../../settings/organization-settings.js";
import { CliError, readSecret } from "../io.js";
import { cliActor } from "../context.js";
import type { RunAction } from "../main.js";

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/**
 * `--set path=value` options as the partial settings document the staff route takes. Values are
 * read as JSON where they parse (600000, false) and kept as text otherwise, so the settings module
 * makes the same type and range checks, and gives the same messages, as for the route.
 */
function settingsPatchOf(assignments: string[]): Record<string, unknown> {
  const known = settablePaths().map((p) => p.path);
  const patch: Record<string, unknown> = {};
  for (const assignment of assignments) {
    const split = assignment.indexOf("=");
    if (split < 0)
      throw new CliError(`--set ${assignment}: give path=value, e.g. consentGate.windowMs=600000`);
    const path = assignment.slice(0, split).trim();
    const text = assignment.slice(split + 1).trim();
    if (!known.includes(path)) {
      throw validationError(path, `${path || "(empty)"} is not a setting; use one of ${known.join(", ")}`);
    }
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      // Not JSON: passed on as text, which the module refuses with the field's expected type.
    }
    const [group, member] = path.split(".") as [string, string | undefined];
    if (member === undefined) patch[group] = value;
    else patch[group] = { ...(patch[group] as Record<string, unknown> | undefined), [member]: value };
  }
  return patch;
}

function parseRole(value: string): StaffRole {
  const role = STAFF_ROLES.find((known) => known === value);
  if (!role) throw new InvalidArgumentError(`use one of ${STAFF_ROLES.join(", ")}`);
  return role;
}

/** The organisation's staff account with this id (stf_…) or sign-in email. */
async function findStaffAccount(
  db: Queryable,
  organization: { organizationId: string; slug: string },
  idOrEmail: string,
): Promise<StaffAccount> {
  const byEmail = idOrEmail.includes("@");
  const wanted = byEmail ? normaliseEmail(idOrEmail) : idOrEmail;
  const accounts = await listStaffUsers(db, organization.organizationId);
  const found = accounts.find((a) => (byEmail ? a.email === wanted : a.staffId === wanted));
  if (!found) {
    throw new CliError(
      `No staff account ${idOrEmail} in organisation ${organization.slug} (list them with: guard staff list --org ${organization.slug})`,
    );
  }
  return found;
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
        const created = await createOrganization(await ctx.db(), options, Date.now());
        ctx.out.result({ organizationId: created.organizationId, slug: created.slug, name: created.name });
      }),
    );

  org
    .command("list")
    .description("list every organisation, oldest first, with whether it is disabled")
    .action(
      run(async (ctx) => {
        const organizations = (await listOrganizations(await ctx.db())).map((o) => ({
          ...o,
          status: o.disabledAt === null ? "enabled" : "disabled",
        }));
        ctx.out.result({ organizations });
      }),
    );

  org
    .command("disable")
    .description(
      "disable an organisation: its keys, tokens, sessions, public pages, webhook deliveries and sweeps stop; every record is kept",
    )
    .requiredOption("--slug <slug>", "organisation slug")
    .requiredOption("--reason <text>", "why (recorded with it and on its audit chain)")
    .action(
      run(async (ctx, options: { slug: string; reason: string }) => {
        const db = await ctx.db();
        const organization = await ctx.organization(options.slug);
        const change = await db.transaction((tx) =>
          disableOrganization(
            tx,
            { organizationId: organization.organizationId, reason: options.reason, by: cliActor().id },
            Date.now(),
          ),
        );
        if (!change) throw new CliError(`No organisation has the slug "${options.slug}"`);
        if (!change.changed) ctx.out.note(`${options.slug} was already disabled; nothing changed`);
        ctx.out.result({ organization: change.organization, changed: change.changed });
      }),
    );

  org
    .command("enable")
    .description("enable a disabled organisation again: everything it had works as before")
    .requiredOption("--slug <slug>", "organisation slug")
    .option("--reason <text>", "why (recorded on its audit chain)")
    .action(
      run(async (ctx, options: { slug: string; reason?: string }) => {
        const db = await ctx.db();
        const organization = await ctx.organization(options.slug);
        const change = await db.transaction((tx) =>
          enableOrganization(
            tx,
            { organizationId: organization.organizationId, reason: options.reason, by: cliActor().id },
            Date.now(),
          ),
        );
        if (!change) throw new CliError(`No organisation has the slug "${options.slug}"`);
        if (!change.changed) ctx.out.note(`${options.slug} is not disabled; nothing changed`);
        ctx.out.result({ organization: change.organization, changed: change.changed });
      }),
    );

  org
    .command("settings")
    .description(
      "print the organisation's consent and Consent Gate settings in force, or change some with --set",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .option(
      "--set <path=value>",
      `change one setting (repeatable): ${settablePaths()
        .map((p) =>
          p.leaf.kind === "boolean" ? `${p.path}=true|false` : `${p.path}=${p.leaf.min}..${p.leaf.max}`,
        )
        .join(", ")}`,
      collect,
      [],
    )
    .action(
      run(async (ctx, options: { org: string; set: string[] }) => {
        const patch = options.set.length > 0 ? settingsPatchOf(options.set) : undefined;
        const organization = await ctx.organization(options.org);
        const db = await ctx.db();
        const settings =
          patch === undefined
            ? await readOrganizationSettings(db, organization.organizationId)
            : await db.transaction((tx) =>
                updateOrganizationSettings(
                  tx,
                  { organizationId: organization.organizationId, patch, actor: cliActor() },
                  Date.now(),
                ),
              );
        ctx.out.result(settings);
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
      run(
        async (ctx, options: { org: string; email: string; role: StaffRole }) => {
          const organization = await ctx.organization(options.org);
          const password = await readSecret("Password: ", ctx.io);
          const user = await createStaffUser(
            await ctx.db(),
            {
              organizationId: organization.organizationId,
              email: options.email,
              role: options.role,
              password,
            },
            Date.now(),
          );
          ctx.out.result({ staffId: user.staffId, email: user.email, role: user.role });
        },
        { readsStdin: true },
      ),
    );

  staff
    .command("list")
    .description("list the organisation's staff accounts, disabled ones included, oldest first")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const accounts = await listStaffUsers(await ctx.db(), organization.organizationId);
        ctx.out.result({ accounts });
      }),
    );

  for (const [verb, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const) {
    staff
      .command(verb)
      .description(
        disabled
          ? "disable a staff account and end its sessions (the organisation keeps at least one enabled admin)"
          : "re-enable a disabled staff account (its owner signs in again)",
      )
      .argument("<staffIdOrEmail>", "the account's id (stf_…) or sign-in email")
      .requiredOption("--org <slug>", "organisation slug")
      .action(
        run(async (ctx, idOrEmail: string, options: { org: string }) => {
          const organization = await ctx.organization(options.org);
          const db = await ctx.db();
          const target = await findStaffAccount(db, organization, idOrEmail);
          // The same rules as PATCH /api/v1/staff/accounts/{staffId}, as the operator (no account).
          const account = await db.transaction((tx) =>
            updateStaffAccount(
              tx,
              {
                organizationId: organization.organizationId,
                actorStaffId: null,
                staffId: target.staffId,
                disabled,
              },
              Date.now(),
            ),
          );
          ctx.out.result(account);
          const already = (target.disabledAt !== null) === disabled;
          ctx.out.note(
            already
              ? `${account.email} was already ${disabled ? "disabled" : "enabled"}: nothing changed.`
              : disabled
                ? `Disabled ${account.email}; its open sessions are ended.`
                : `Enabled ${account.email}; its owner signs in again.`,
          );
        }),
      );
  }

  const keys = program.command("keys").description("service API keys");
  keys
    .command("create")
    .description("create a service API key (printed once; only its hash is stored)")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--name <name>", "label for the integration using the key")
    .action(
      run(async (ctx, options: { org: string; name: string }) => {
        const organization = await ctx.organization(options.org);
        const key = await createApiKey(
          await ctx.db(),
          { organizationId: organization.organizationId, name: options.name, createdBy: null },
          Date.now(),
        );
        ctx.out.result({ apiKeyId: key.apiKeyId, key: key.key });
        ctx.out.note("Store the key now: it is shown this once.");
      }),
    );

  keys
    .command("list")
    .description("list the organisation's API keys (never the keys themselves), newest first")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const apiKeys = await listApiKeys(await ctx.db(), organization.organizationId);
        ctx.out.result({ apiKeys });
      }),
    );

  keys
    .command("revoke")
    .description("revoke an API key at once, on every running instance")
    .argument("<apiKeyId>", "the key's id (key_…, from guard keys list)")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, apiKeyId: string, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        const now = Date.now();
        // In one transaction with its announcement, which empties every instance's key cache.
        const result = await (
          await ctx.db()
        ).transaction((tx) =>
          revokeApiKey(tx, { organizationId: organization.organizationId, apiKeyId }, now),
        );
        if (!result) {
          throw new CliError(
            `No API key ${apiKeyId} in organisation ${options.org} (list them with: guard keys list --org ${options.org})`,
          );
        }
        if (!result.revoked) throw new CliError(`API key ${apiKeyId} is already revoked`);
        ctx.out.result({ apiKeyId, revoked: true, revokedAt: now });
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
        const domain = await registerDomain(
          await ctx.db(),
          organization.organizationId,
          options.domain,
          Date.now(),
        );
        ctx.out.result({ organizationId: organization.organizationId, domain });
      }),
    );

  domains
    .command("list")
    .description(
      "list the registered domains, with the widget groups serving each and whether it has its own banner settings",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        ctx.out.result({ domains: await listDomains(await ctx.db(), organization.organizationId) });
      }),
    );
  domains
    .command("remove")
    .description(
      "unregister a domain: the banner, the widget and browser calls stop for it; its own banner settings go and it leaves its widget groups",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--domain <host>", "the registered hostname")
    .action(
      run(async (ctx, options: { org: string; domain: string }) => {
        const organization = await ctx.organization(options.org);
        if (!(await removeDomain(await ctx.db(), organization.organizationId, options.domain, Date.now()))) {
          throw new CliError(
            `${options.domain} is not registered to organisation ${options.org} (list them with: guard domains list --org ${options.org})`,
          );
        }
        ctx.out.result({
          organizationId: organization.organizationId,
          domain: options.domain,
          removed: true,
        });
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
        const appId = await registerApp(
          await ctx.db(),
          organization.organizationId,
          options.appId,
          Date.now(),
        );
        ctx.out.result({ organizationId: organization.organizationId, appId });
      }),
    );
  apps
    .command("list")
    .description("list the registered app ids, and whether each has its own banner settings")
    .requiredOption("--org <slug>", "organisation slug")
    .action(
      run(async (ctx, options: { org: string }) => {
        const organization = await ctx.organization(options.org);
        ctx.out.result({ apps: await listApps(await ctx.db(), organization.organizationId) });
      }),
    );
  apps
    .command("remove")
    .description("unregister an app id; its own banner settings go")
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--app-id <id>", "the registered app id")
    .action(
      run(async (ctx, options: { org: string; appId: string }) => {
        const organization = await ctx.organization(options.org);
        if (!(await removeApp(await ctx.db(), organization.organizationId, options.appId, Date.now()))) {
          throw new CliError(
            `${options.appId} is not registered to organisation ${options.org} (list them with: guard apps list --org ${options.org})`,
          );
        }
        ctx.out.result({ organizationId: organization.organizationId, appId: options.appId, removed: true });
      }),
    );
}
