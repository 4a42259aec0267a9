// Notifications to principals (src/notifications/): the shipped notifier records each one and
// relays it to the organisation's backend as a `principal.notification` webhook event, once per
// principal and subject however often it is asked; staff list what was sent, per organisation.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { upsertPrincipal } from "../../src/accounts/store.js";
import { WebhookRelayNotifier, type PrincipalNotification } from "../../src/notifications/notifier.js";
import { assertApiError } from "../support/api-error.js";
import { seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { ok, staffClient } from "../support/staff-client.js";

const LIST = "/api/v1/staff/notifications";

type Wire = {
  notificationId: string;
  externalId: string;
  kind: string;
  subjectId: string;
  channel: string;
  subject: string;
  body: string;
  createdAt: number;
};
type ListBody = { notifications: Wire[]; nextCursor: string | null };

describe("notifications to principals", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let staff: ReturnType<typeof staffClient>;
  const notifier = new WebhookRelayNotifier();
  const principalIds: Record<string, string> = {};

  const notice = (
    org: SeededOrg,
    externalId: string,
    subjectId: string,
    kind: PrincipalNotification["kind"],
  ) => ({
    organizationId: org.org.organizationId,
    principalId: principalIds[`${org.org.slug}:${externalId}`]!,
    kind,
    subjectId,
    message: { subject: `About ${subjectId}`, body: `Dear ${externalId}, about ${subjectId}.` },
  });

  const eventsOf = async (org: SeededOrg) =>
    t.db.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM webhook_events WHERE organization_id = $1 AND event_type = 'principal.notification' ORDER BY created_at, event_id",
      [org.org.organizationId],
    );

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    staff = staffClient(t);
    for (const [org, externalId] of [
      [a, "user-1"],
      [a, "user-2"],
      [b, "user-1"],
    ] as const) {
      principalIds[`${org.org.slug}:${externalId}`] = await upsertPrincipal(t.db, {
        organizationId: org.org.organizationId,
        principalId: `prn_${org.org.slug.replace(/[^a-z0-9]/g, "")}${externalId.replace("-", "")}`,
        externalId,
        createdAt: t.clock.now(),
      });
    }
  });
  after(() => t.close());

  test("a notification is recorded and relayed once per principal and subject", async () => {
    const first = await t.db.transaction((tx) =>
      notifier.notify(tx, notice(a, "user-1", "ser_aaaaaaaa1", "retention.pre_erasure"), t.clock.now()),
    );
    assert.equal(first.created, true);
    t.clock.advance(1000);
    const again = await t.db.transaction((tx) =>
      notifier.notify(tx, notice(a, "user-1", "ser_aaaaaaaa1", "retention.pre_erasure"), t.clock.now()),
    );
    assert.deepEqual(again, { notificationId: first.notificationId, created: false });

    const events = await eventsOf(a);
    assert.equal(events.length, 1, "a repeated notify relays nothing");
    assert.deepEqual(events[0]!.payload, {
      notificationId: first.notificationId,
      kind: "retention.pre_erasure",
      subjectId: "ser_aaaaaaaa1",
      externalId: "user-1",
      subject: "About ser_aaaaaaaa1",
      body: "Dear user-1, about ser_aaaaaaaa1.",
      createdAt: t.clock.now() - 1000,
    });
  });

  test("a notification rolls back with the caller's transaction", async () => {
    await assert.rejects(
      t.db.transaction(async (tx) => {
        await notifier.notify(tx, notice(a, "user-2", "brc_rolledback1", "breach.affected"), t.clock.now());
        throw new Error("the caller's change failed");
      }),
      /the caller's change failed/,
    );
    const list = ok<ListBody>(await staff(a, "viewer", "GET", `${LIST}?subjectId=brc_rolledback1`));
    assert.deepEqual(list.notifications, []);
    assert.equal((await eventsOf(a)).length, 1);
  });

  test("an unknown principal is refused, and nothing is recorded", async () => {
    await assert.rejects(
      t.db.transaction((tx) =>
        notifier.notify(
          tx,
          { ...notice(a, "user-1", "brc_unknownprn", "breach.affected"), principalId: "prn_doesnotexist" },
          t.clock.now(),
        ),
      ),
      /no principal prn_doesnotexist/,
    );
  });

  test("staff list what was sent: filters, paging, roles and tenant isolation", async () => {
    for (const subject of ["brc_bbbbbbbb1", "brc_bbbbbbbb2", "brc_bbbbbbbb3"]) {
      t.clock.advance(1000);
      await t.db.transaction((tx) =>
        notifier.notify(tx, notice(a, "user-2", subject, "breach.affected"), t.clock.now()),
      );
    }
    await t.db.transaction((tx) =>
      notifier.notify(tx, notice(b, "user-1", "brc_bbbbbbbb1", "breach.affected"), t.clock.now()),
    );

    const all = ok<ListBody>(await staff(a, "viewer", "GET", LIST));
    assert.deepEqual(
      all.notifications.map((n) => [n.externalId, n.subjectId]),
      [
        ["user-2", "brc_bbbbbbbb3"],
        ["user-2", "brc_bbbbbbbb2"],
        ["user-2", "brc_bbbbbbbb1"],
        ["user-1", "ser_aaaaaaaa1"],
      ],
      "newest first, the organisation's own only",
    );
    assert.ok(all.notifications.every((n) => n.channel === "webhook"));

    const byPrincipal = ok<ListBody>(await staff(a, "dpo", "GET", `${LIST}?principal=user-1`));
    assert.deepEqual(
      byPrincipal.notifications.map((n) => n.subjectId),
      ["ser_aaaaaaaa1"],
    );
    const byKind = ok<ListBody>(await staff(a, "admin", "GET", `${LIST}?kind=breach.affected&limit=2`));
    assert.equal(byKind.notifications.length, 2);
    assert.ok(byKind.nextCursor);
    const rest = ok<ListBody>(
      await staff(a, "admin", "GET", `${LIST}?kind=breach.affected&limit=2&cursor=${byKind.nextCursor}`),
    );
    assert.deepEqual(
      rest.notifications.map((n) => n.subjectId),
      ["brc_bbbbbbbb1"],
    );
    assert.equal(rest.nextCursor, null);
    // A cursor of one filter's list does not page another's.
    const crossed = await staff(
      a,
      "admin",
      "GET",
      `${LIST}?kind=retention.pre_erasure&cursor=${byKind.nextCursor}`,
    );
    assert.equal(crossed.statusCode, 400);
    assert.equal(crossed.json().code, "VALIDATION_ERROR");

    const unknownPrincipal = ok<ListBody>(await staff(a, "viewer", "GET", `${LIST}?principal=nobody`));
    assert.deepEqual(unknownPrincipal.notifications, []);

    const otherOrg = ok<ListBody>(await staff(b, "viewer", "GET", LIST));
    assert.deepEqual(
      otherOrg.notifications.map((n) => n.subjectId),
      ["brc_bbbbbbbb1"],
    );

    const service = ok<ListBody>(
      await t.request({
        method: "GET",
        url: `${LIST}?limit=1`,
        headers: { authorization: `Bearer ${b.apiKey}` },
      }),
    );
    assert.equal(service.notifications[0]?.externalId, "user-1");
  });

  test("bad input is a 400 naming the parameter; no credential is a 401", async () => {
    assertApiError(await staff(a, "viewer", "GET", `${LIST}?kind=sms`), 400, "VALIDATION_ERROR", {
      field: "kind",
    });
    assertApiError(await staff(a, "viewer", "GET", `${LIST}?limit=0`), 400, "VALIDATION_ERROR", {
      field: "limit",
    });
    assertApiError(await t.request({ method: "GET", url: LIST }), 401, "UNAUTHORIZED");
  });
});
