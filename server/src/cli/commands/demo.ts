// guard demo reset-credentials: new one-time credentials for the demo organisation that `npm start`
// (guard serve --seed-demo) creates, for when the ones its first start printed are lost. A new
// random password for the demo admin (its open sessions end with the old one) and a new service
// API key, in one transaction; both are printed once and stored only as hashes, like the first start.
import type { Command } from "commander";
import { createApiKey } from "../../accounts/api-keys.js";
import { findOrganizationBySlug } from "../../accounts/organizations.js";
import { setStaffPassword } from "../../accounts/staff.js";
import { generatePassword } from "../../accounts/staff-accounts.js";
import { listStaffUsers } from "../../accounts/store.js";
import { DEMO_ADMIN_EMAIL, DEMO_KEY_NAME, DEMO_SLUG } from "../../demo/seed.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

export function registerDemoCommands(program: Command, run: RunAction): void {
  const demo = program.command("demo").description("the demo organisation `npm start` creates");
  demo
    .command("reset-credentials")
    .description(
      `set a new password on the demo admin (${DEMO_ADMIN_EMAIL}, ending its sessions) and create a new service API key; both are printed once`,
    )
    .action(
      run(async (ctx) => {
        const db = await ctx.db();
        const org = await findOrganizationBySlug(db, DEMO_SLUG);
        if (!org) {
          throw new CliError(
            `There is no demo organisation (slug ${DEMO_SLUG}) in this database: start Guard once with \`npm start\` (or \`guard serve --seed-demo\`), which creates it and prints its credentials`,
          );
        }
        const admin = (await listStaffUsers(db, org.organizationId)).find(
          (a) => a.email === DEMO_ADMIN_EMAIL,
        );
        if (!admin) {
          throw new CliError(
            `The demo organisation has no ${DEMO_ADMIN_EMAIL} account; create an admin with: guard staff create --org ${DEMO_SLUG} --role admin --email <email>`,
          );
        }
        const adminPassword = generatePassword();
        const now = Date.now();
        const { sessionsEnded, apiKey } = await db.transaction(async (tx) => {
          const { sessionsEnded } = await setStaffPassword(
            tx,
            { organizationId: org.organizationId, staffId: admin.staffId, password: adminPassword },
            now,
          );
          const apiKey = await createApiKey(
            tx,
            { organizationId: org.organizationId, name: DEMO_KEY_NAME, createdBy: null },
            now,
          );
          return { sessionsEnded, apiKey };
        });

        const lines = [
          `New credentials for the demo organisation (slug: ${DEMO_SLUG}). These secrets are shown once and stored only as hashes:`,
          `  staff admin:    ${DEMO_ADMIN_EMAIL} / ${adminPassword}`,
          `  dashboard:      sign in with organisation \`${DEMO_SLUG}\`, ${DEMO_ADMIN_EMAIL} / ${adminPassword}`,
          `  service key:    ${apiKey.key}`,
          `The admin's old password no longer works${sessionsEnded > 0 ? ` and its ${sessionsEnded} open session(s) are ended` : ""}.`,
          `Earlier service keys still work: list them with \`guard keys list --org ${DEMO_SLUG}\`, revoke with \`guard keys revoke <apiKeyId> --org ${DEMO_SLUG}\`.`,
        ];
        if (admin.disabledAt !== null) {
          lines.push(
            `${DEMO_ADMIN_EMAIL} is disabled: enable it with \`guard staff enable ${DEMO_ADMIN_EMAIL} --org ${DEMO_SLUG}\` to sign in.`,
          );
        }
        ctx.out.note(lines.join("\n"));
        if (ctx.out.json) {
          ctx.out.result({
            organizationId: org.organizationId,
            adminEmail: DEMO_ADMIN_EMAIL,
            adminPassword,
            apiKeyId: apiKey.apiKeyId,
            apiKey: apiKey.key,
          });
        }
      }),
    );
}
