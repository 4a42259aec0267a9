// `guard audit verify --org S` and `guard parental test-token` as real processes on a real
// database: exit 0 and a report when intact, exit 1 naming the first broken link after tampering.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createOrganization } from "../../src/accounts/organizations.js";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import { loadConfig, type Config } from "../../src/config.js";
import { giveConsent, withdrawConsent } from "../../src/consent/consents.js";
import { SignedTestTokenVerifier, signedTestTokenKey } from "../../src/consent/parental-verification.js";
import type { Database } from "../../src/db/database.js";
import { parseNoticeDraft, publishNotice } from "../../src/notices/notices.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";

describe("guard audit verify", () => {
  let cli: CliEnvironment;
  let config: Config;
  let organizationId: string;

  /** Opens the CLI environment's database in this process (the CLI is not running meanwhile). */
  const withDb = <T>(work: (db: Database) => Promise<T>): Promise<T> => cli.withDatabase(work);

  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    // `migrate` also creates the embedded secrets, which this process then shares via loadConfig.
    const migrated = await cli.run(["--json", "migrate"]);
    assert.equal(migrated.code, 0, migrated.stderr);
    config = loadConfig(cli.env);
    organizationId = await withDb(async (db) => {
      const now = Date.now();
      const org = await createOrganization(db, { slug: "acme", name: "Acme" }, now);
      const notice = await publishNotice(
        db,
        org.organizationId,
        parseNoticeDraft({
          itemized: [
            { purpose: "Account", personalDataDescription: "Email." },
            { purpose: "Marketing", personalDataDescription: "Email." },
          ],
          content: { en: { title: "Notice", body: "Body" } },
        }),
        now,
      );
      const { principalId } = await ensurePrincipal(
        db,
        { organizationId: org.organizationId, externalId: "u1" },
        now,
      );
      const deps = { auditKeys: config.auditKeys };
      for (const purpose of ["Account", "Marketing"]) {
        const consent = await db.transaction((tx) =>
          giveConsent(
            tx,
            deps,
            {
              organizationId: org.organizationId,
              holder: { kind: "principal", principalId, externalId: "u1" },
              notice: { noticeId: notice.noticeId, version: notice.version },
              purpose,
              dataTypes: ["email"],
              source: "direct",
            },
            now,
          ),
        );
        if (purpose === "Marketing") {
          await db.transaction((tx) =>
            withdrawConsent(
              tx,
              { organizationId: org.organizationId, consentId: consent.consentId },
              now + 1,
            ),
          );
        }
      }
      return org.organizationId;
    });
  });
  after(() => cli.dispose());

  test("an intact chain: exit 0 with the report", async () => {
    const res = await cli.run(["--json", "audit", "verify", "--org", "acme"]);
    assert.equal(res.code, 0, res.stderr);
    const report = res.json<Record<string, unknown>>();
    assert.equal(report.intact, true);
    assert.equal(report.entries, 3);
    assert.equal(report.consentsChecked, 2);
    assert.equal(report.firstBrokenLink, null);
    assert.match(String(report.headHash), /^[0-9a-f]{64}$/);
    // --json also works after the subcommand; human output goes to stderr.
    const human = await cli.run(["audit", "verify", "--org", "acme"]);
    assert.equal(human.code, 0);
    assert.match(human.stderr, /Intact: 3 entries/);
  });

  test("unknown organisation and missing --org are errors", async () => {
    const unknown = await cli.run(["audit", "verify", "--org", "nope"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No organisation has the slug "nope"/);
    const missing = await cli.run(["audit", "verify"]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--org/);
  });

  test("a row changed directly in SQL: exit 1 naming the first broken link", async () => {
    await withDb((db) =>
      db.query(
        "UPDATE consent_events SET given_at = given_at + 1 WHERE organization_id = $1 AND purpose = 'Marketing'",
        [organizationId],
      ),
    );
    const res = await cli.run(["audit", "verify", "--org", "acme", "--json"]);
    assert.equal(res.code, 1);
    const report = res.json<{ intact: boolean; firstBrokenLink: { seq: number; reason: string } }>();
    assert.equal(report.intact, false);
    assert.equal(report.firstBrokenLink.seq, 2);
    assert.match(res.stderr, /broken at seq 2/);
  });

  test("parental test-token mints a token the shipped test verifier accepts for that principal", async () => {
    const res = await cli.run(["--json", "parental", "test-token", "--org", "acme", "--external-id", "u1"]);
    assert.equal(res.code, 0, res.stderr);
    const { tokenFromProvider, expiresAt } = res.json<{ tokenFromProvider: string; expiresAt: number }>();
    assert.ok(expiresAt > Date.now());
    const verifier = new SignedTestTokenVerifier(signedTestTokenKey(config.tokenSecret));
    const subject = { organizationId, principalId: "prn_x", externalId: "u1" };
    assert.deepEqual(await verifier.verify(tokenFromProvider, subject, Date.now()), {
      ok: true,
      provider: "signed-test-token",
      parentReference: "test-parent",
    });
    assert.equal(
      (await verifier.verify(tokenFromProvider, { ...subject, externalId: "u2" }, Date.now())).ok,
      false,
    );
    const bad = await cli.run([
      "parental",
      "test-token",
      "--org",
      "acme",
      "--external-id",
      "u1",
      "--ttl-minutes",
      "0",
    ]);
    assert.equal(bad.code, 2);
  });
});
