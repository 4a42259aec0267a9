// guard parental test-token: mints a token the shipped SignedTestTokenVerifier accepts, for testing
// and integrating POST /api/v1/age/verify-parent. Not evidence of a real parent.
import type { Command } from "commander";
import { mintSignedTestToken, signedTestTokenKey } from "../../consent/parental-verification.js";
import { integerInRange, type IntegerRange } from "../../config.js";
import { CliError } from "../io.js";
import type { RunAction } from "../main.js";

// A test token lives from a minute to a day; 15 minutes unless asked.
const TTL_MINUTES: IntegerRange = { default: 15, min: 1, max: 1440 };

export function registerParentalCommands(program: Command, run: RunAction): void {
  const parental = program
    .command("parental")
    .description("verifiable parental consent (testing and integration)");
  parental
    .command("test-token")
    .description(
      "mint a signed TEST token for POST /api/v1/age/verify-parent (the shipped test verifier only; replace it with a DigiLocker-backed verifier in production)",
    )
    .requiredOption("--org <slug>", "organisation slug")
    .requiredOption("--external-id <id>", "the child principal's externalId")
    .option("--parent-ref <ref>", "the parent reference the token carries", "test-parent")
    .option(
      "--ttl-minutes <n>",
      `lifetime in minutes (${TTL_MINUTES.min}-${TTL_MINUTES.max})`,
      String(TTL_MINUTES.default),
    )
    .action(
      run(
        async (ctx, options: { org: string; externalId: string; parentRef: string; ttlMinutes: string }) => {
          const ttl = integerInRange(TTL_MINUTES, options.ttlMinutes);
          if (ttl === undefined)
            throw new CliError(`--ttl-minutes must be ${TTL_MINUTES.min}-${TTL_MINUTES.max}`, 2);
          if (options.parentRef === "") throw new CliError("--parent-ref must not be empty", 2);
          const organization = await ctx.organization(options.org);
          const expiresAt = Date.now() + ttl * 60_000;
          const token = mintSignedTestToken(signedTestTokenKey(ctx.config.tokenSecret), {
            organizationId: organization.organizationId,
            externalId: options.externalId,
            parentReference: options.parentRef,
            expiresAt,
          });
          ctx.out.result({ tokenFromProvider: token, expiresAt });
          ctx.out.note("A TEST token: it proves nothing about a real parent.");
        },
      ),
    );
}
