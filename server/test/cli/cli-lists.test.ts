// `guard --version` and the list / revoke / disable / enable / delete / remove verbs for
// organisations, API keys, staff accounts, webhook endpoints and registered domains and apps, end to end (real processes, real database), with the
// staff routes' rules; and the ISO dates beside epoch ms in the indented (human) output.
import assert from "node:assert/strict";
import fs from "node:fs";
import { after, before, describe, test } from "node:test";
import { CONTRACT_VERSION } from "@guard/contract";
import { createOutput, humanTime } from "../../src/cli/io.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { eventually } from "../support/polling.js";

const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
).version;

interface ApiKey {
  apiKeyId: string;
  name: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}
interface Account {
  staffId: string;
  email: string;
  role: string;
  createdAt: number;
  disabledAt: number | null;
}
interface Endpoint {
  endpointId: string;
  enabled: boolean;
  deletedAt: number | null;
}

const ISO_WITH_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z \((\d+)\)$/;

describe("human output: ISO dates beside epoch ms", () => {
  const capture = (json: boolean) => {
    let out = "";
    const sink = { write: (text: string) => ((out += text), true) };
    const streams = { out: sink, err: sink } as unknown as Parameters<typeof createOutput>[1];
    return { output: createOutput(json, streams), text: () => out };
  };
  const value = {
    createdAt: 1795736400000,
    lastUsedAt: null,
    windowMs: 600000,
    count: 3,
    nested: [{ at: 0, revokedAt: 1795736400001, label: "changedAt" }],
  };

  test("indented output shows each time field as ISO (epoch ms); other numbers and null stay", () => {
    const { output, text } = capture(false);
    output.result(value);
    assert.equal(humanTime(1795736400000), "2026-11-26T23:40:00.000Z (1795736400000)");
    assert.deepEqual(JSON.parse(text()), {
      createdAt: "2026-11-26T23:40:00.000Z (1795736400000)",
      lastUsedAt: null,
      windowMs: 600000,
      count: 3,
      nested: [
        { at: "1970-01-01T00:00:00.000Z (0)", revokedAt: humanTime(1795736400001), label: "changedAt" },
      ],
    });
  });

  test("time fields not named …At read as ISO too: an erasure's schedule, a log purge's clock", () => {
    const { output, text } = capture(false);
    const ms = 1795736400000;
    output.result({
      erasures: [{ scheduledFor: ms, noticeHours: 48 }],
      now: ms,
      classes: { auditEntries: { cutoff: ms, retainDays: 365 }, gateDecisions: { purgedBefore: ms } },
      capturedAtClient: ms,
    });
    const iso = humanTime(ms);
    assert.deepEqual(JSON.parse(text()), {
      erasures: [{ scheduledFor: iso, noticeHours: 48 }],
      now: iso,
      classes: { auditEntries: { cutoff: iso, retainDays: 365 }, gateDecisions: { purgedBefore: iso } },
      capturedAtClient: iso,
    });
  });

  test("--json output is unchanged: numbers, one line", () => {
    const { output, text } = capture(true);
    output.result(value);
    assert.equal(text(), `${JSON.stringify(value)}\n`);
  });
});

describe("guard --version and the list / revoke / disable verbs", () => {
  let cli: CliEnvironment;
  before(async () => {
    cli = await createCliEnvironment({ inProcess: true });
    for (const [slug, name] of [
      ["acme", "Acme Health"],
      ["beta", "Beta Bank"],
    ]) {
      const created = await cli.run(["--json", "org", "create", "--slug", slug!, "--name", name!]);
      assert.equal(created.code, 0, created.stderr);
    }
  });
  after(() => cli.dispose());

  test("--version and -V print the package and contract versions; --json makes it one JSON line", async () => {
    const text = await cli.run(["--version"]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stdout, `guard ${PACKAGE_VERSION} (contract ${CONTRACT_VERSION})\n`);
    const short = await cli.run(["-V"]);
    assert.equal(short.stdout, text.stdout);
    for (const args of [
      ["--json", "--version"],
      ["-V", "--json"],
    ]) {
      const json = await cli.run(args);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(json.stdout.trim().split("\n").length, 1);
      assert.deepEqual(json.json(), { version: PACKAGE_VERSION, contractVersion: CONTRACT_VERSION });
    }
  });

  test("org list prints every organisation, oldest first, with its state", async () => {
    const res = await cli.run(["--json", "org", "list"]);
    assert.equal(res.code, 0, res.stderr);
    const { organizations } = res.json<{
      organizations: { organizationId: string; slug: string; name: string; createdAt: number }[];
    }>();
    assert.deepEqual(
      organizations.map((o) => [o.slug, o.name]),
      [
        ["acme", "Acme Health"],
        ["beta", "Beta Bank"],
      ],
    );
    assert.match(organizations[0]!.organizationId, /^org_/);
    assert.equal(typeof organizations[0]!.createdAt, "number");

    assert.deepEqual(
      organizations.map((o) => (o as unknown as { status: string; disabledAt: null }).status),
      ["enabled", "enabled"],
    );

    const human = await cli.run(["org", "list"]);
    assert.equal(human.code, 0, human.stderr);
    const shown = human.json<{ organizations: { createdAt: string }[] }>().organizations[0]!.createdAt;
    assert.equal(ISO_WITH_MS.exec(shown)?.[1], String(organizations[0]!.createdAt));
  });

  test("org disable and enable: recorded with who and why, idempotent, another organisation untouched", async () => {
    type Org = {
      slug: string;
      status: string;
      disabledAt: number | null;
      disabledReason: string | null;
      disabledBy: string | null;
    };
    const list = async () =>
      (await cli.run(["--json", "org", "list"])).json<{ organizations: Org[] }>().organizations;

    const disabled = await cli.run([
      "--json",
      "org",
      "disable",
      "--slug",
      "beta",
      "--reason",
      "contract ended",
    ]);
    assert.equal(disabled.code, 0, disabled.stderr);
    const change = disabled.json<{ organization: Org; changed: boolean }>();
    assert.equal(change.changed, true);
    assert.equal(change.organization.disabledReason, "contract ended");
    assert.match(change.organization.disabledBy!, /^cli:/);

    const again = await cli.run(["org", "disable", "--slug", "beta", "--reason", "other"]);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stderr, /beta was already disabled; nothing changed/);
    const shown = again.json<{
      organization: { disabledAt: string; disabledReason: string };
      changed: boolean;
    }>();
    assert.equal(shown.changed, false);
    assert.equal(shown.organization.disabledReason, "contract ended", "the first disabling stays");
    assert.equal(
      ISO_WITH_MS.exec(shown.organization.disabledAt)?.[1],
      String(change.organization.disabledAt),
    );

    const listed = await list();
    assert.deepEqual(
      listed.map((o) => [o.slug, o.status, o.disabledReason]),
      [
        ["acme", "enabled", null],
        ["beta", "disabled", "contract ended"],
      ],
    );

    const enabled = await cli.run(["--json", "org", "enable", "--slug", "beta", "--reason", "renewed"]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(enabled.json<{ changed: boolean }>().changed, true);
    const enabledAgain = await cli.run(["org", "enable", "--slug", "beta"]);
    assert.equal(enabledAgain.code, 0, enabledAgain.stderr);
    assert.equal(enabledAgain.json<{ changed: boolean }>().changed, false);
    assert.match(enabledAgain.stderr, /beta is not disabled; nothing changed/);
    assert.ok((await list()).every((o) => o.status === "enabled" && o.disabledAt === null));

    // Both changes are on beta's chain, which verifies.
    const verified = await cli.run(["--json", "audit", "verify", "--org", "beta"]);
    assert.equal(verified.code, 0, verified.stderr);
  });

  test("org disable: a missing or blank reason and an unknown slug are errors that change nothing", async () => {
    const missing = await cli.run(["org", "disable", "--slug", "acme"]);
    assert.equal(missing.code, 2, "a usage error");
    assert.match(missing.stderr, /--reason/);
    const blank = await cli.run(["org", "disable", "--slug", "acme", "--reason", "  "]);
    assert.equal(blank.code, 1);
    assert.match(blank.stderr, /reason is required/);
    const unknown = await cli.run(["org", "disable", "--slug", "nope", "--reason", "x"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No organisation has the slug "nope"/);
    const unknownEnable = await cli.run(["org", "enable", "--slug", "nope"]);
    assert.equal(unknownEnable.code, 1);
    const listed = (await cli.run(["--json", "org", "list"])).json<{ organizations: { status: string }[] }>();
    assert.ok(listed.organizations.every((o) => o.status === "enabled"));
  });

  test("keys list and revoke: a revoked, unknown or other organisation's key is an error", async () => {
    const create = async (org: string, name: string) => {
      const res = await cli.run(["--json", "keys", "create", "--org", org, "--name", name]);
      assert.equal(res.code, 0, res.stderr);
      return res.json<{ apiKeyId: string; key: string }>();
    };
    const first = await create("acme", "backend");
    const second = await create("acme", "batch jobs");
    const other = await create("beta", "beta backend");

    const listed = await cli.run(["--json", "keys", "list", "--org", "acme"]);
    assert.equal(listed.code, 0, listed.stderr);
    const { apiKeys } = listed.json<{ apiKeys: ApiKey[] }>();
    assert.deepEqual(
      apiKeys.map((k) => [k.apiKeyId, k.name, k.revokedAt]),
      [
        [second.apiKeyId, "batch jobs", null],
        [first.apiKeyId, "backend", null],
      ],
    );
    assert.ok(!listed.stdout.includes(first.key), "the key itself is never listed");

    const revoked = await cli.run(["--json", "keys", "revoke", first.apiKeyId, "--org", "acme"]);
    assert.equal(revoked.code, 0, revoked.stderr);
    const result = revoked.json<{ apiKeyId: string; revoked: boolean; revokedAt: number }>();
    assert.equal(result.apiKeyId, first.apiKeyId);
    assert.equal(result.revoked, true);

    const listedAfter = (await cli.run(["--json", "keys", "list", "--org", "acme"])).json<{
      apiKeys: ApiKey[];
    }>();
    assert.equal(listedAfter.apiKeys.find((k) => k.apiKeyId === first.apiKeyId)!.revokedAt, result.revokedAt);
    assert.equal(listedAfter.apiKeys.find((k) => k.apiKeyId === second.apiKeyId)!.revokedAt, null);

    const again = await cli.run(["keys", "revoke", first.apiKeyId, "--org", "acme"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, new RegExp(`API key ${first.apiKeyId} is already revoked`));

    const otherOrg = await cli.run(["keys", "revoke", other.apiKeyId, "--org", "acme"]);
    assert.equal(otherOrg.code, 1);
    assert.match(otherOrg.stderr, new RegExp(`No API key ${other.apiKeyId} in organisation acme`));
    const stillActive = (await cli.run(["--json", "keys", "list", "--org", "beta"])).json<{
      apiKeys: ApiKey[];
    }>();
    assert.equal(stillActive.apiKeys[0]!.revokedAt, null, "another organisation's key is untouched");

    const unknown = await cli.run(["keys", "revoke", "key_nope", "--org", "acme"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No API key key_nope/);
    const missing = await cli.run(["keys", "revoke", second.apiKeyId]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--org/);
  });

  test(
    // On the embedded database the CLI runs the command through the server (cli/cli-socket.ts).
    "keys revoke reaches a running server's key cache at once",
    async () => {
      const key = (await cli.run(["--json", "keys", "create", "--org", "beta", "--name", "live"])).json<{
        apiKeyId: string;
        key: string;
      }>();
      const server = await cli.serve();
      try {
        const broker = () =>
          fetch(`${server.url}/api/v1/auth/broker-token`, {
            method: "POST",
            headers: { authorization: `Bearer ${key.key}`, "content-type": "application/json" },
            body: JSON.stringify({ externalId: "user-1" }),
          }).then((r) => r.status);
        assert.equal(await broker(), 201, "the key works, and is now cached by the server");
        const revoked = await cli.run(["--json", "keys", "revoke", key.apiKeyId, "--org", "beta"]);
        assert.equal(revoked.code, 0, revoked.stderr);
        assert.ok(
          await eventually(async () => (await broker()) === 401, 5_000),
          "the server refuses the key once the revocation is announced",
        );
      } finally {
        await server.stop();
      }
    },
  );

  test("staff list, disable and enable by email or id, keeping an enabled admin", async () => {
    for (const [email, role] of [
      ["admin@acme.example", "admin"],
      ["DPO@acme.example", "dpo"],
    ]) {
      const created = await cli.run(
        ["--json", "staff", "create", "--org", "acme", "--email", email!, "--role", role!],
        { stdin: "correct horse battery" },
      );
      assert.equal(created.code, 0, created.stderr);
    }
    const list = async () => {
      const res = await cli.run(["--json", "staff", "list", "--org", "acme"]);
      assert.equal(res.code, 0, res.stderr);
      return res.json<{ accounts: Account[] }>().accounts;
    };
    const accounts = await list();
    assert.deepEqual(
      accounts.map((a) => [a.email, a.role, a.disabledAt]),
      [
        ["admin@acme.example", "admin", null],
        ["dpo@acme.example", "dpo", null],
      ],
    );
    assert.ok(
      accounts.every((a) => !("passwordHash" in a)),
      "no password hash is listed",
    );
    const dpo = accounts[1]!;

    const disabled = await cli.run(["--json", "staff", "disable", "Dpo@Acme.example", "--org", "acme"]);
    assert.equal(disabled.code, 0, disabled.stderr);
    const account = disabled.json<Account>();
    assert.equal(account.staffId, dpo.staffId);
    assert.equal(typeof account.disabledAt, "number");

    const twice = await cli.run(["staff", "disable", dpo.staffId, "--org", "acme"]);
    assert.equal(twice.code, 0, twice.stderr);
    assert.match(twice.stderr, /already disabled: nothing changed/);
    assert.match(twice.stdout, /"disabledAt": "\d{4}-[^"]+Z \(\d+\)"/, "the human output shows the ISO date");

    const lastAdmin = await cli.run(["staff", "disable", "admin@acme.example", "--org", "acme"]);
    assert.equal(lastAdmin.code, 1);
    assert.match(lastAdmin.stderr, /CONFLICT: The organisation must keep at least one enabled admin/);

    const enabled = await cli.run(["--json", "staff", "enable", dpo.staffId, "--org", "acme"]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(enabled.json<Account>().disabledAt, null);
    assert.deepEqual(
      (await list()).map((a) => a.disabledAt),
      [null, null],
    );

    const unknown = await cli.run(["staff", "disable", "nobody@acme.example", "--org", "acme"]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /No staff account nobody@acme.example in organisation acme/);
    const otherOrg = await cli.run(["staff", "disable", dpo.staffId, "--org", "beta"]);
    assert.equal(otherOrg.code, 1);
    assert.match(otherOrg.stderr, /No staff account/);

    const help = await cli.run(["staff", "--help"]);
    for (const sub of ["create", "list", "disable", "enable", "dsr", "grievances"]) {
      assert.match(help.stdout, new RegExp(`\\n  ${sub}\\b`), `staff ${sub} is listed`);
    }
  });

  test("webhooks list, disable, enable and delete, each with the staff routes' rules", async () => {
    const create = async (org: string) => {
      const res = await cli.run([
        "--json",
        "webhooks",
        "create",
        "--org",
        org,
        "--url",
        "https://hooks.example.in/guard",
        "--events",
        "consent.given",
      ]);
      assert.equal(res.code, 0, res.stderr);
      return res.json<{ endpointId: string; secret: string }>();
    };
    const endpoint = await create("acme");
    const other = await create("beta");
    const list = async (...extra: string[]) => {
      const res = await cli.run(["--json", "webhooks", "list", "--org", "acme", ...extra]);
      assert.equal(res.code, 0, res.stderr);
      assert.ok(!res.stdout.includes(endpoint.secret), "the secret is never listed");
      return res.json<{ endpoints: Endpoint[] }>().endpoints;
    };
    assert.deepEqual(
      (await list()).map((e) => [e.endpointId, e.enabled]),
      [[endpoint.endpointId, true]],
    );

    const disabled = await cli.run(["--json", "webhooks", "disable", endpoint.endpointId, "--org", "acme"]);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.equal(disabled.json<Endpoint>().enabled, false);
    assert.equal((await list())[0]!.enabled, false);
    const enabled = await cli.run(["--json", "webhooks", "enable", endpoint.endpointId, "--org", "acme"]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.equal(enabled.json<Endpoint>().enabled, true);

    const otherOrg = await cli.run(["webhooks", "disable", other.endpointId, "--org", "acme"]);
    assert.equal(otherOrg.code, 1);
    assert.match(otherOrg.stderr, /NOT_FOUND: No such webhook endpoint in this organisation/);

    const deleted = await cli.run(["--json", "webhooks", "delete", endpoint.endpointId, "--org", "acme"]);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.deepEqual(deleted.json(), { endpointId: endpoint.endpointId, deleted: true });
    assert.deepEqual(await list(), [], "a deleted endpoint is listed only on request");
    const withDeleted = await list("--include-deleted");
    assert.equal(withDeleted[0]!.endpointId, endpoint.endpointId);
    assert.equal(typeof withDeleted[0]!.deletedAt, "number");

    const again = await cli.run(["webhooks", "delete", endpoint.endpointId, "--org", "acme"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is already deleted/);
    const enableDeleted = await cli.run(["webhooks", "enable", endpoint.endpointId, "--org", "acme"]);
    assert.equal(enableDeleted.code, 1);
    assert.match(enableDeleted.stderr, /CONFLICT: This webhook endpoint was deleted/);
  });

  test("domains and apps: add, list, remove; one not registered here is an error that changes nothing", async () => {
    const guard = (...args: string[]) => cli.run(["--json", ...args]);
    for (const [org, domain] of [
      ["acme", "www.acme.example"],
      ["acme", "shop.acme.example"],
      ["beta", "www.beta.example"],
    ] as const) {
      assert.equal((await guard("domains", "add", "--org", org, "--domain", domain)).code, 0);
    }
    assert.equal((await guard("apps", "add", "--org", "acme", "--app-id", "in.acme.app")).code, 0);
    const domains = async (org: string) =>
      (await guard("domains", "list", "--org", org))
        .json<{ domains: { domain: string; domainGroupIds: string[]; hasOwnBannerSettings: boolean }[] }>()
        .domains.map((d) => d.domain)
        .sort();
    assert.deepEqual(await domains("acme"), ["shop.acme.example", "www.acme.example"]);
    assert.deepEqual(await domains("beta"), ["www.beta.example"]);

    const removed = await guard("domains", "remove", "--org", "acme", "--domain", "shop.acme.example");
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.json<{ removed: boolean }>().removed, true);
    assert.deepEqual(await domains("acme"), ["www.acme.example"]);
    const again = await cli.run(["domains", "remove", "--org", "acme", "--domain", "shop.acme.example"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /shop\.acme\.example is not registered to organisation acme/);
    // Another organisation's domain is not this one's to remove.
    assert.equal(
      (await cli.run(["domains", "remove", "--org", "acme", "--domain", "www.beta.example"])).code,
      1,
    );
    assert.deepEqual(await domains("beta"), ["www.beta.example"]);

    const apps = async () =>
      (await guard("apps", "list", "--org", "acme"))
        .json<{ apps: { appId: string }[] }>()
        .apps.map((a) => a.appId);
    assert.deepEqual(await apps(), ["in.acme.app"]);
    assert.equal((await cli.run(["apps", "remove", "--org", "beta", "--app-id", "in.acme.app"])).code, 1);
    assert.equal((await guard("apps", "remove", "--org", "acme", "--app-id", "in.acme.app")).code, 0);
    assert.deepEqual(await apps(), []);
  });
});
