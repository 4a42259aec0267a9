// The breach history the audit tamper test (test/audit/tamper.test.ts) gives each organisation it
// seeds: a breach recorded, its Board intimation recorded, a principal added and told, all through
// the rule modules (no sweep: a sweep would work on every organisation of the database, including
// ones already tampered with). The register's own tampering cases are in ./tamper.test.ts.
import { addAffectedPrincipals, notifyAffectedPrincipals } from "../../src/breaches/principals.js";
import { recordBreach, updateBreachRecord } from "../../src/breaches/register.js";
import type { Database } from "../../src/db/database.js";
import { WebhookRelayNotifier } from "../../src/notifications/notifier.js";

export interface BreachSeed {
  breach: string;
  /** The principal on the breach (told). */
  breachPrincipalId: string;
}

export async function seedBreaches(
  db: Database,
  input: { organizationId: string; principalId: string; externalId: string },
  tick: () => number,
): Promise<BreachSeed> {
  const actor = { kind: "system" as const, id: "cli:tamper" };
  const { organizationId } = input;
  const discoveredAt = tick();
  const breach = await db.transaction((tx) =>
    recordBreach(
      tx,
      { organizationId, description: "Tamper seed", discoveredAt, mitigation: "Contained", actor },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    updateBreachRecord(
      tx,
      { organizationId, breachId: breach.breachId, reportedToBoardAt: tick(), actor },
      tick(),
    ),
  );
  await db.transaction((tx) =>
    addAffectedPrincipals(
      tx,
      { organizationId, breachId: breach.breachId, externalIds: [input.externalId], actor },
      tick(),
    ),
  );
  await notifyAffectedPrincipals(
    db,
    new WebhookRelayNotifier(),
    {
      organizationId,
      breachId: breach.breachId,
      consequences: "c",
      safetyMeasures: "s",
      contact: "dpo@example.com",
      actor,
    },
    tick,
  );
  return { breach: breach.breachId, breachPrincipalId: input.principalId };
}
