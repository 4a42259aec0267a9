// What the README promises of the embedded database: every write the server acknowledged is in the
// data directory, so it survives the server process being killed outright (SIGKILL: no shutdown
// hook runs), and the next opener recovers it. (Power loss is another matter: PGlite cannot fsync.)
import assert from "node:assert/strict";
import { once } from "node:events";
import { after, before, describe, test } from "node:test";
import { loadConfig } from "../../src/config.js";
import { openConfiguredDatabase } from "../../src/server.js";
import { createCliEnvironment, type CliEnvironment } from "../support/cli-helpers.js";
import { engine } from "../support/harness.js";

interface DemoSeed {
  organizationId: string;
  noticeId: string;
  apiKey: string;
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, string>;
  assert.ok(response.ok, `${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

describe(
  "embedded database: acknowledged writes survive a killed server",
  { skip: engine !== "pglite" && "embedded database only" },
  () => {
    let cli: CliEnvironment;
    before(async () => {
      cli = await createCliEnvironment();
    });
    after(() => cli.dispose());

    test("consents and gate decisions answered before SIGKILL are there after a restart", async () => {
      const server = await cli.serve(["--seed-demo"]);
      const demo = server.ready.demo as DemoSeed | null;
      assert.ok(demo, "a fresh data directory gets the demo organisation");
      const consentIds: string[] = [];
      const decisionIds: string[] = [];
      for (let i = 0; i < 5; i += 1) {
        const consent = await post(`${server.url}/api/v1/consents/anonymous`, {
          organizationId: demo.organizationId,
          noticeId: demo.noticeId,
          purpose: "Marketing",
          dataTypes: ["email"],
          anonymousId: `killed-${i}`,
        });
        consentIds.push(consent.consentId as string);
        const decision = await post(
          `${server.url}/api/v1/consent/verify`,
          { consentId: consent.consentId },
          { authorization: `Bearer ${demo.apiKey}` },
        );
        assert.equal(decision.decision, "allow");
        decisionIds.push(decision.decisionId as string);
      }

      const exited = once(server.child, "exit");
      server.child.kill("SIGKILL");
      const [code, signal] = await exited;
      assert.equal(signal, "SIGKILL", `the server exited by itself (code ${code})`);

      // The dead server's lock is stale; this opener takes it over and PostgreSQL replays its WAL.
      const db = await openConfiguredDatabase(loadConfig(cli.env));
      try {
        const [consents] = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM consents WHERE consent_id = ANY($1)",
          [consentIds],
        );
        assert.equal(consents?.n, 5);
        const [decisions] = await db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM gate_decisions WHERE decision_id = ANY($1)",
          [decisionIds],
        );
        assert.equal(decisions?.n, 5);
      } finally {
        await db.close();
      }
    });
  },
);
