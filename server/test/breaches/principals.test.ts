// Affected principals and their notification (r.7(1)): added by externalIds or by purpose (active
// and withdrawn consents, never a guest's), told through the notifier (recorded, relayed as
// principal.notification), reportedToUserAt set once all are told, the status moving with the
// Board reports, retries telling nobody twice, drills telling nobody; the chain verifies clean.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { ensurePrincipal } from "../../src/accounts/principals.js";
import { verifyAuditChain } from "../../src/audit/verify.js";
import { giveConsent, withdrawConsent } from "../../src/consent/consents.js";
import { assertApiError } from "../support/api-error.js";
import { publishTestNotice } from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { outboxEvents } from "../support/rights-helpers.js";
import { ok } from "../support/staff-client.js";

const STAFF = "/api/v1/staff/breaches";
const HOUR = 3_600_000;
const NOTICE = {
  consequences: "Phishing emails",
  safetyMeasures: "Ignore links",
  contact: "dpo@shop.example",
};

type Breach = {
  breachId: string;
  status: string;
  reportedToUserAt: number | null;
  principalNotificationDueState: string;
  affectedPrincipals: { total: number; notified: number; pending: number };
};

describe("affected principals", () => {
  let t: TestApp;
  let org: SeededOrg;
  const ids: Record<string, string> = {};

  before(async () => {
    t = await startTestApp();
    org = await seedOrganization(t);
    const notice = await publishTestNotice(t, org);
    const organizationId = org.org.organizationId;
    const give = async (externalId: string, purpose: string) => {
      const { principalId } = await ensurePrincipal(t.db, { organizationId, externalId }, t.clock.now());
      ids[externalId] = principalId;
      return t.db.transaction((tx) =>
        giveConsent(
          tx,
          { auditKeys: t.config.auditKeys },
          {
            organizationId,
            holder: { kind: "principal", principalId, externalId },
            notice: { noticeId: notice.noticeId, version: notice.version },
            purpose,
            dataTypes: ["email"],
            source: "direct",
          },
          t.clock.now(),
        ),
      );
    };
    await give("alice", "Marketing");
    const bob = await give("bob", "Marketing");
    await t.db.transaction((tx) =>
      withdrawConsent(tx, { organizationId, consentId: bob.consentId }, t.clock.now()),
    );
    await give("carol", "Account");
    ids.dave = (
      await ensurePrincipal(t.db, { organizationId, externalId: "dave" }, t.clock.now())
    ).principalId;
  });
  after(() => t.close());

  const post = (url: string, payload: Record<string, unknown>, seeded = org) =>
    t.request({ method: "POST", url, headers: bearer(seeded.apiKey), payload });
  const record = async (body: Record<string, unknown>) => ok<Breach>(await post(STAFF, body), 201);
  const add = (id: string, body: Record<string, unknown>) => post(`${STAFF}/${id}/principals`, body);
  const notify = (id: string, body: Record<string, unknown> = NOTICE) =>
    post(`${STAFF}/${id}/notify-principals`, body);

  test("add by purpose and by list; notify through the notifier; reportedToUserAt and status", async () => {
    const now = t.clock.now();
    const breach = await record({
      description: "Newsletter list exposed",
      discoveredAt: now - HOUR,
      mitigation: "Bucket closed; credentials rotated",
    });
    const id = breach.breachId;

    assertApiError(await notify(id), 400, "VALIDATION_ERROR", { field: "principals" });
    assertApiError(await add(id, {}), 400, "VALIDATION_ERROR", { field: "externalIds" });
    assertApiError(
      await add(id, { externalIds: ["alice"], purposes: ["Marketing"] }),
      400,
      "VALIDATION_ERROR",
      {
        field: "externalIds",
      },
    );
    assertApiError(await add(id, { purposes: ["Ads|Tracking"] }), 400, "VALIDATION_ERROR", {
      field: "purposes[0]",
    });
    const unknown = assertApiError(
      await add(id, { externalIds: ["alice", "nobody-here"] }),
      400,
      "VALIDATION_ERROR",
      {
        field: "externalIds",
      },
    );
    assert.match(unknown.error, /nobody-here/);

    const byPurpose = ok<{ added: number; breach: Breach }>(await add(id, { purposes: ["Marketing"] }));
    assert.equal(byPurpose.added, 2, "alice (active) and bob (withdrawn)");
    const byList = ok<{ added: number; breach: Breach }>(await add(id, { externalIds: ["alice", "carol"] }));
    assert.equal(byList.added, 1, "alice was already on it");
    assert.deepEqual(byList.breach.affectedPrincipals, { total: 3, notified: 0, pending: 3 });

    t.clock.advance(HOUR);
    const told = ok<{ notified: number; breach: Breach }>(await notify(id));
    assert.equal(told.notified, 3);
    assert.equal(told.breach.reportedToUserAt, t.clock.now());
    assert.equal(told.breach.status, "reported_user_done");
    assert.equal(told.breach.principalNotificationDueState, "met");
    assert.deepEqual(told.breach.affectedPrincipals, { total: 3, notified: 3, pending: 0 });

    const notifications = await t.db.query<{ notification_id: string; principal_id: string; body: string }>(
      "SELECT notification_id, principal_id, body FROM principal_notifications WHERE organization_id = $1 AND kind = 'breach.affected' AND subject_id = $2 ORDER BY principal_id",
      [org.org.organizationId, id],
    );
    assert.deepEqual(
      notifications.map((n) => n.principal_id),
      [ids.alice, ids.bob, ids.carol].sort(),
    );
    for (const part of [
      "Newsletter list exposed",
      "Phishing emails",
      "Bucket closed",
      "Ignore links",
      "dpo@shop.example",
    ])
      assert.match(notifications[0]!.body, new RegExp(part), `r.7(1): the notice says ${part}`);
    const rows = await t.db.query<{
      principal_id: string;
      notification_id: string | null;
      notified_at: number;
    }>(
      "SELECT principal_id, notification_id, notified_at FROM breach_affected_principals WHERE organization_id = $1 AND breach_id = $2 ORDER BY principal_id",
      [org.org.organizationId, id],
    );
    assert.deepEqual(
      rows.map((r) => r.notification_id),
      notifications.map((n) => n.notification_id),
    );
    const relayed = await outboxEvents(t.db, org.org.organizationId, "principal.notification");
    assert.equal(relayed.length, 3);

    // A retry tells nobody twice.
    const again = ok<{ notified: number; breach: Breach }>(await notify(id));
    assert.equal(again.notified, 0);
    assert.equal((await outboxEvents(t.db, org.org.organizationId, "principal.notification")).length, 3);

    // The Board reports move the status on.
    const patch = (body: Record<string, unknown>) =>
      t.request({ method: "PATCH", url: `${STAFF}/${id}`, headers: bearer(org.apiKey), payload: body });
    assert.equal(
      ok<Breach>(await patch({ reportedToBoardAt: t.clock.now() })).status,
      "reported_board_pending",
    );
    t.clock.advance(HOUR);
    assert.equal(
      ok<Breach>(await patch({ detailedReportSubmittedAt: t.clock.now() })).status,
      "reported_board_done",
    );

    // A principal found later is told too; reportedToUserAt keeps the time all then known were told.
    const firstTold = told.breach.reportedToUserAt;
    const late = ok<{ added: number; breach: Breach }>(await add(id, { externalIds: ["dave"] }));
    assert.deepEqual(late.breach.affectedPrincipals, { total: 4, notified: 3, pending: 1 });
    const lateTold = ok<{ notified: number; breach: Breach }>(await notify(id));
    assert.equal(lateTold.notified, 1);
    assert.equal(lateTold.breach.reportedToUserAt, firstTold);

    const report = await verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys, {
      now: t.clock.now(),
    });
    assert.equal(report.intact, true, JSON.stringify(report.problems));
    assert.equal(report.rowsChecked.breach_affected_principals, 4);
  });

  test("notify needs mitigation measures; a drill tells nobody but rehearses the flow", async () => {
    const now = t.clock.now();
    const bare = await record({ description: "No mitigation yet", discoveredAt: now });
    ok(await add(bare.breachId, { externalIds: ["alice"] }));
    assertApiError(await notify(bare.breachId), 400, "VALIDATION_ERROR", { field: "mitigation" });
    assertApiError(
      await notify(bare.breachId, { consequences: "c", contact: "x" }),
      400,
      "VALIDATION_ERROR",
      {
        field: "safetyMeasures",
      },
    );

    const drill = await record({
      description: "Drill",
      discoveredAt: now,
      drill: true,
      mitigation: "rehearsed",
    });
    ok(await add(drill.breachId, { purposes: ["Marketing", "Account"] }));
    const before = (await outboxEvents(t.db, org.org.organizationId, "principal.notification")).length;
    const told = ok<{ notified: number; breach: Breach }>(await notify(drill.breachId));
    assert.equal(told.notified, 3);
    assert.equal(told.breach.status, "reported_user_done");
    assert.equal((await outboxEvents(t.db, org.org.organizationId, "principal.notification")).length, before);
    const recorded = await t.db.query(
      "SELECT 1 FROM principal_notifications WHERE organization_id = $1 AND subject_id = $2",
      [org.org.organizationId, drill.breachId],
    );
    assert.equal(recorded.length, 0, "no principal was told of a drill");
    const report = await verifyAuditChain(t.db, org.org.organizationId, t.config.auditKeys, {
      now: t.clock.now(),
    });
    assert.equal(report.intact, true, JSON.stringify(report.problems));
  });
});
