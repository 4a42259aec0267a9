// The per-instance caches on the capture path (consent settings, the published notice version, the
// webhook endpoint list) against a second instance on the same database: a change made through one
// instance is honoured by the other, a change announced by another process (a notification with no
// in-process shortcut) reaches them, and the endpoint list's stale entries never cause a delivery
// to an endpoint that is no longer live.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { INVALIDATION_CHANNEL } from "../../src/db/invalidation.js";
import { anonymousConsent, archiveNotice, publishTestNotice } from "../support/consent-fixtures.js";
import {
  seedOrganization,
  signIn,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { eventually } from "../support/polling.js";

describe("write-path caches across instances", () => {
  let a: TestApp;
  let b: TestApp;
  let guests = 0;

  before(async () => {
    a = await startTestApp();
    b = await startSecondInstance(a);
  });
  after(async () => {
    await b.close();
    await a.close();
  });

  /** One anonymous capture through `instance`, by a new guest; the response. */
  function capture(instance: TestApp, org: SeededOrg, noticeId: string, address = "10.1.0.1") {
    guests += 1;
    return anonymousConsent(
      instance,
      {
        organizationId: org.org.organizationId,
        noticeId,
        purpose: "Account",
        dataTypes: ["email"],
        anonymousId: `guest-${guests}`,
      },
      {},
      address,
    );
  }

  async function noticeVersionOf(consentId: string): Promise<number> {
    const [row] = await a.db.query<{ notice_version: number }>(
      "SELECT notice_version FROM consents WHERE consent_id = $1",
      [consentId],
    );
    return row!.notice_version;
  }

  async function deliveriesTo(endpointId: string): Promise<number> {
    const [row] = await a.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1",
      [endpointId],
    );
    return row!.n;
  }

  async function newOrgWithNotice() {
    const org = await seedOrganization(a);
    const notice = await publishTestNotice(a, org);
    return { org, noticeId: notice.noticeId };
  }

  test("a settings change through one instance applies to the other's next captures", async () => {
    const { org, noticeId } = await newOrgWithNotice();
    // Both instances have cached the default settings (120 captures per address and minute).
    assert.equal((await capture(a, org, noticeId, "10.1.1.1")).statusCode, 201);
    assert.equal((await capture(b, org, noticeId, "10.1.1.1")).statusCode, 201);
    const admin = await signIn(a, org, "admin");
    const changed = await a.request({
      method: "PATCH",
      url: "/api/v1/staff/organization/settings",
      headers: admin.headers,
      payload: { anonymousConsentRateLimit: { perAddress: 1 } },
    });
    assert.equal(changed.statusCode, 200, changed.body);
    assert.equal(
      (await capture(a, org, noticeId, "10.1.1.1")).statusCode,
      429,
      "the changing instance at once",
    );
    assert.ok(
      await eventually(async () => (await capture(b, org, noticeId, "10.1.1.1")).statusCode === 429),
      "the other once notified",
    );
  });

  test("a newly published version is used by the next capture, on every instance", async () => {
    const { org, noticeId } = await newOrgWithNotice();
    for (const instance of [a, b]) {
      const first = await capture(instance, org, noticeId);
      assert.equal(first.statusCode, 201, first.body);
      assert.equal(await noticeVersionOf(first.json().consentId), 1);
    }
    const v2 = await publishTestNotice(a, org, { title: "How we use your data, version 2" });
    assert.deepEqual([v2.noticeId, v2.version], [noticeId, 2]);
    const onA = await capture(a, org, noticeId);
    assert.equal(await noticeVersionOf(onA.json().consentId), 2, "the publishing instance at once");
    assert.ok(
      await eventually(async () => {
        const onB = await capture(b, org, noticeId);
        return onB.statusCode === 201 && (await noticeVersionOf(onB.json().consentId)) === 2;
      }),
      "the other once notified",
    );

    // Archived: no instance takes consents against it any more.
    await archiveNotice(a, org, noticeId);
    assert.equal((await capture(a, org, noticeId)).json().code, "NOTICE_NOT_PUBLISHED");
    assert.ok(
      await eventually(async () => (await capture(b, org, noticeId)).json().code === "NOTICE_NOT_PUBLISHED"),
    );
  });

  test("a new endpoint receives the next event's delivery, on every instance; a deleted one none", async () => {
    const { org, noticeId } = await newOrgWithNotice();
    // Both instances have cached "no endpoints".
    assert.equal((await capture(a, org, noticeId)).statusCode, 201);
    assert.equal((await capture(b, org, noticeId)).statusCode, 201);
    const admin = await signIn(a, org, "admin");
    const created = await a.request({
      method: "POST",
      url: "/api/v1/staff/webhooks",
      headers: admin.headers,
      payload: { url: "https://receiver.example/hooks", events: ["consent.given"] },
    });
    assert.equal(created.statusCode, 201, created.body);
    const endpointId: string = created.json().endpointId;

    assert.equal((await capture(a, org, noticeId)).statusCode, 201);
    assert.equal(await deliveriesTo(endpointId), 1, "the creating instance at once");
    assert.ok(
      await eventually(async () => {
        const before = await deliveriesTo(endpointId);
        assert.equal((await capture(b, org, noticeId)).statusCode, 201);
        return (await deliveriesTo(endpointId)) === before + 1;
      }),
      "the other once notified",
    );

    const deleted = await a.request({
      method: "DELETE",
      url: `/api/v1/staff/webhooks/${endpointId}`,
      headers: admin.headers,
    });
    assert.equal(deleted.statusCode, 200, deleted.body);
    const afterDelete = await deliveriesTo(endpointId);
    for (const instance of [a, b]) assert.equal((await capture(instance, org, noticeId)).statusCode, 201);
    assert.equal(
      await deliveriesTo(endpointId),
      afterDelete,
      "no delivery to a deleted endpoint, cached or not",
    );
  });

  test("an endpoint disabled behind the caches' back gets no delivery from a stale list", async () => {
    const { org, noticeId } = await newOrgWithNotice();
    const admin = await signIn(a, org, "admin");
    const created = await a.request({
      method: "POST",
      url: "/api/v1/staff/webhooks",
      headers: admin.headers,
      payload: { url: "https://receiver.example/stale", events: ["consent.given"] },
    });
    const endpointId: string = created.json().endpointId;
    assert.equal((await capture(b, org, noticeId)).statusCode, 201);
    assert.equal(await deliveriesTo(endpointId), 1, "b has cached the endpoint");
    // No announcement: both instances still list the endpoint.
    await a.db.query("UPDATE webhook_endpoints SET enabled = FALSE WHERE endpoint_id = $1", [endpointId]);
    for (const instance of [a, b]) assert.equal((await capture(instance, org, noticeId)).statusCode, 201);
    assert.equal(await deliveriesTo(endpointId), 1, "the insert re-checks the endpoint");
  });

  test("a change another process announces (a bare notification) reaches the caches", async () => {
    const { org, noticeId } = await newOrgWithNotice();
    assert.equal((await capture(b, org, noticeId)).statusCode, 201, "the published version is cached");
    // What another process's publish leaves behind: the row changed, and a notification with no
    // in-process delivery (this process never calls announceInvalidation for it).
    await a.db.transaction(async (tx) => {
      await tx.query(
        "UPDATE notice_versions SET status = 'archived' WHERE organization_id = $1 AND notice_id = $2",
        [org.org.organizationId, noticeId],
      );
      await tx.query("SELECT pg_notify($1, $2)", [
        INVALIDATION_CHANNEL,
        JSON.stringify({ topic: "notices", organizationId: org.org.organizationId }),
      ]);
    });
    assert.ok(
      await eventually(async () => (await capture(b, org, noticeId)).json().code === "NOTICE_NOT_PUBLISHED"),
    );
  });
});
