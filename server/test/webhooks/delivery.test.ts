// Webhook delivery end to end against a real HTTP receiver on 127.0.0.1: the outbox is written in the
// caller's transaction, deliveries are signed so the @guard/contract verifiers accept them, survive a
// receiver that is down, a worker that dies after claiming, and racing workers, are dead-lettered
// after the retry budget, and can be re-sent from the staff route. The clock is a ManualClock, so
// retry times are reached by advancing it and calling runOnce().
import assert from "node:assert/strict";
import { after, afterEach, before, beforeEach, describe, test } from "node:test";
import { verifyDpdpSignature, verifyStandardWebhook } from "@guard/contract";
import { createOrganization } from "../../src/accounts/organizations.js";
import { testConfig } from "../../src/config.js";
import { startServer } from "../../src/server.js";
import { createEndpoint } from "../../src/webhooks/endpoints.js";
import { enqueueEvent } from "../../src/webhooks/outbox.js";
import { SecretBox } from "../../src/lib/secret-box.js";
import {
  claimDueDeliveries,
  DEFAULT_RETRY_POLICY,
  retryDelayMs,
  WebhookWorker,
  type SendHttp,
  type WebhookWorkerOptions,
} from "../../src/webhooks/worker.js";
import {
  openEmptyTestDatabase,
  engine,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../support/harness.js";
import { waitUntil } from "../support/polling.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const WEBHOOKS = "/api/v1/staff/webhooks";
const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

type Delivery = {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  createdAt: number;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
};
type DeliveryDetail = Delivery & {
  payload: Record<string, unknown>;
  history: { attempt: number; statusCode: number | null; error: string | null }[];
};

describe("webhook delivery", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let adminA: Record<string, string>;
  let viewerA: Record<string, string>;
  let adminB: Record<string, string>;
  let receiver: Receiver;
  let box: SecretBox;

  let signedInAt = 0;
  const signInAll = async () => {
    adminA = (await signIn(t, a, "admin")).headers;
    viewerA = (await signIn(t, a, "viewer")).headers;
    adminB = (await signIn(t, b, "admin")).headers;
    signedInAt = t.clock.now();
  };

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    await signInAll();
    box = new SecretBox(t.config.secretsKey);
    receiver = await startReceiver();
  });
  beforeEach(async () => {
    // Some tests move the clock by a day; staff sessions last 12 hours.
    if (t.clock.now() - signedInAt > HOUR) await signInAll();
  });
  after(async () => {
    await receiver.close();
    await t.close();
  });
  afterEach(async () => {
    // Every test starts from an empty queue and a healthy receiver: the workers scan all
    // organisations, so leftovers would be claimed by the next test.
    await t.db.query(
      "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status IN ('pending', 'sending')",
    );
    await t.db.query("UPDATE webhook_endpoints SET enabled = FALSE");
    await receiver.comeBack();
    receiver.respondWith(200);
    receiver.hits.length = 0;
  });

  const worker = (options: Partial<WebhookWorkerOptions> = {}) =>
    new WebhookWorker({ db: t.db, clock: t.clock, secrets: box, ...options });

  async function createEndpointFor(
    headers: Record<string, string>,
    body: { url?: string; events: string[]; enabled?: boolean },
  ): Promise<{ endpointId: string; secret: string }> {
    const res = await t.request({
      method: "POST",
      url: WEBHOOKS,
      headers,
      payload: { url: receiver.url, ...body },
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json();
  }

  async function emit(
    org: SeededOrg,
    eventType: string,
    payload: Record<string, unknown> = {},
  ): Promise<void> {
    await t.db.transaction((tx) =>
      enqueueEvent(tx, { organizationId: org.org.organizationId, eventType, payload }, t.clock.now()),
    );
  }

  async function deliveries(endpointId: string): Promise<Delivery[]> {
    if (t.clock.now() - signedInAt > HOUR) await signInAll();
    const res = await t.request({
      method: "GET",
      url: `${WEBHOOKS}/${endpointId}/deliveries?limit=200`,
      headers: adminA,
    });
    assert.equal(res.statusCode, 200, res.body);
    return (res.json() as { deliveries: Delivery[] }).deliveries;
  }

  async function deliveryDetail(endpointId: string, deliveryId: string): Promise<DeliveryDetail> {
    const res = await t.request({
      method: "GET",
      url: `${WEBHOOKS}/${endpointId}/deliveries/${deliveryId}`,
      headers: adminA,
    });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  }

  test("a consent event committed in a transaction is delivered, signed so the contract verifiers accept it", async () => {
    const { endpointId, secret } = await createEndpointFor(adminA, {
      events: ["consent.given", "consent.withdrawn"],
    });
    const payload = {
      consentId: "cns_abcdefgh1234",
      noticeId: "ntc_abcdefgh1234",
      noticeVersion: 3,
      purpose: "Marketing",
      principal: { externalId: "user-42" },
      note: "नमस्ते", // non-ASCII: the signature covers the UTF-8 bytes
    };
    const now = t.clock.now();
    await t.db.transaction(async (tx) => {
      // Stands in for the consent change the event describes, in the same transaction.
      await tx.query("SELECT 1");
      await enqueueEvent(
        tx,
        { organizationId: a.org.organizationId, eventType: "consent.given", payload },
        now,
      );
    });

    const result = await worker().runOnce();
    assert.deepEqual(result, { claimed: 1, delivered: 1, retrying: 0, dead: 0 });
    assert.equal(receiver.hits.length, 1);
    const hit = receiver.hits[0]!;
    const body = JSON.parse(hit.body) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), [
      "eventId",
      "eventType",
      "organizationId",
      "payload",
      "timestamp",
    ]);
    assert.match(String(body.eventId), /^evt_[0-9A-Za-z]{20}$/);
    assert.equal(body.eventType, "consent.given");
    assert.equal(body.organizationId, a.org.organizationId);
    assert.deepEqual(body.payload, payload);
    assert.equal(body.timestamp, now);

    assert.match(String(hit.headers["content-type"]), /^application\/json/);
    const dpdp = hit.headers["x-dpdp-signature"];
    assert.match(String(dpdp), /^[0-9a-f]{64}$/);
    assert.equal(verifyDpdpSignature(secret, hit.body, dpdp), true);
    assert.equal(verifyDpdpSignature(`${secret}x`, hit.body, dpdp), false);
    assert.equal(hit.headers["webhook-id"], body.eventId);
    assert.equal(hit.headers["webhook-timestamp"], String(Math.floor(now / 1000)));
    assert.match(String(hit.headers["webhook-signature"]), /^v1,[A-Za-z0-9+/]{43}=$/);
    const standard = (bodyText: string) =>
      verifyStandardWebhook({
        headers: {
          "webhook-id": hit.headers["webhook-id"],
          "webhook-timestamp": hit.headers["webhook-timestamp"],
          "webhook-signature": hit.headers["webhook-signature"],
        },
        body: bodyText,
        secret,
        nowSeconds: Math.floor(t.clock.now() / 1000),
      });
    assert.deepEqual(standard(hit.body), { ok: true });
    assert.deepEqual(standard(hit.body.replace("Marketing", "Marketinh")), {
      ok: false,
      reason: "no_matching_signature",
    });

    const [delivery] = await deliveries(endpointId);
    assert.equal(delivery?.status, "delivered");
    assert.equal(delivery?.attempts, 1);
    assert.equal(delivery?.lastStatusCode, 200);
    assert.equal(delivery?.deliveredAt, now);
    assert.equal(delivery?.nextAttemptAt, null);
    const detail = await deliveryDetail(endpointId, delivery!.deliveryId);
    assert.deepEqual(detail.payload, payload);
    assert.deepEqual(
      detail.history.map((h) => [h.attempt, h.statusCode, h.error]),
      [[1, 200, null]],
    );

    // Nothing is due any more.
    assert.equal((await worker().runOnce()).claimed, 0);
  });

  test("an event exists only if the transaction that wrote it committed", async () => {
    await createEndpointFor(adminA, { events: ["consent.withdrawn"] });
    const before = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events");
    await assert.rejects(
      t.db.transaction(async (tx) => {
        await enqueueEvent(
          tx,
          { organizationId: a.org.organizationId, eventType: "consent.withdrawn", payload: {} },
          t.clock.now(),
        );
        throw new Error("the consent change failed");
      }),
      /the consent change failed/,
    );
    const afterRollback = await t.db.query<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events");
    assert.equal(afterRollback[0]?.n, before[0]?.n);
    assert.equal((await worker().runOnce()).claimed, 0);
    assert.equal(receiver.hits.length, 0);

    await assert.rejects(
      t.db.transaction((tx) =>
        enqueueEvent(
          tx,
          { organizationId: a.org.organizationId, eventType: "consent.changed", payload: {} },
          t.clock.now(),
        ),
      ),
      /unknown webhook event type/,
    );
  });

  test("events go only to enabled, subscribed endpoints of the same organisation", async () => {
    const url = (tag: string) => `${receiver.url}?endpoint=${tag}`;
    const subscribed = await createEndpointFor(adminA, { url: url("subscribed"), events: ["consent.given"] });
    await createEndpointFor(adminA, { url: url("other-event"), events: ["dsr.created"] });
    const disabled = await createEndpointFor(adminA, {
      url: url("disabled"),
      events: ["consent.given"],
      enabled: false,
    });
    const deleted = await createEndpointFor(adminA, { url: url("deleted"), events: ["consent.given"] });
    const del = await t.request({
      method: "DELETE",
      url: `${WEBHOOKS}/${deleted.endpointId}`,
      headers: adminA,
    });
    assert.equal(del.statusCode, 200, del.body);
    await createEndpointFor(adminB, { url: url("other-org"), events: ["consent.given"] });

    await emit(a, "consent.given", { n: 1 });
    const run = await worker().runOnce();
    assert.equal(run.delivered, 1);
    assert.deepEqual(
      receiver.hits.map((h) => h.path),
      ["/hooks?endpoint=subscribed"],
    );
    const rows = await t.db.query<{ endpoint_id: string }>(
      `SELECT d.endpoint_id FROM webhook_deliveries d JOIN webhook_events e USING (organization_id, event_id)
        WHERE e.payload = '{"n": 1}'::jsonb`,
    );
    assert.deepEqual(
      rows.map((r) => r.endpoint_id),
      [subscribed.endpointId],
    );

    // Enabling an endpoint applies to events from then on.
    const enable = await t.request({
      method: "PATCH",
      url: `${WEBHOOKS}/${disabled.endpointId}`,
      headers: adminA,
      payload: { enabled: true },
    });
    assert.equal(enable.statusCode, 200, enable.body);
    await emit(a, "consent.given", { n: 2 });
    await worker().runOnce();
    assert.deepEqual(
      receiver.hits
        .slice(1)
        .map((h) => h.path)
        .sort(),
      ["/hooks?endpoint=disabled", "/hooks?endpoint=subscribed"],
    );
  });

  test("a receiver that is down, then failing, still gets every event exactly once when it is back", async () => {
    const { endpointId } = await createEndpointFor(adminA, {
      events: ["consent.given", "consent.withdrawn"],
    });
    // One run sends all five, and the circuit breaker (fairness.test.ts) stays out of the way.
    const w = worker({ endpointConcurrency: 5, breaker: false });
    await receiver.goDown();
    for (let i = 0; i < 5; i++) await emit(a, i % 2 ? "consent.withdrawn" : "consent.given", { i });

    const down = await w.runOnce();
    assert.deepEqual(down, { claimed: 5, delivered: 0, retrying: 5, dead: 0 });
    for (const d of await deliveries(endpointId)) {
      assert.equal(d.status, "pending");
      // Refused, or (for a kept-alive connection from an earlier test) closed under the sender.
      assert.match(String(d.lastError), /^connection failed: (ECONNREFUSED|UND_ERR_SOCKET)$/);
      assert.equal(d.lastStatusCode, null);
      // First retry: full jitter under the 30 s base.
      assert.ok(d.nextAttemptAt! > t.clock.now() && d.nextAttemptAt! <= t.clock.now() + 30 * SECOND);
    }
    // Not due yet: nothing is sent early.
    assert.equal((await w.runOnce()).claimed, 0);

    // Back, but answering 503 for a while.
    await receiver.comeBack();
    receiver.respondWith(503);
    for (let round = 0; round < 3; round++) {
      t.clock.advance(HOUR);
      assert.equal((await w.runOnce()).retrying, 5);
    }
    assert.equal(receiver.hits.length, 15);
    assert.ok((await deliveries(endpointId)).every((d) => d.lastStatusCode === 503 && d.attempts === 4));

    receiver.respondWith(204);
    t.clock.advance(HOUR);
    assert.equal((await w.runOnce()).delivered, 5);
    const counts = receiver.acceptedCounts();
    assert.equal(counts.size, 5);
    assert.ok([...counts.values()].every((n) => n === 1));
    const listed = await deliveries(endpointId);
    assert.deepEqual(new Set(listed.map((d) => d.eventId)), new Set(counts.keys()));
    assert.ok(listed.every((d) => d.status === "delivered" && d.attempts === 5 && d.lastError === null));

    // Delivered means done: later runs send nothing more.
    t.clock.advance(2 * HOUR);
    assert.equal((await w.runOnce()).claimed, 0);
    assert.equal(receiver.accepted().length, 5);
  });

  test("a worker that claims a delivery and dies before sending loses nothing", async () => {
    const { endpointId } = await createEndpointFor(adminA, { events: ["dsr.created"] });
    await emit(a, "dsr.created", { requestId: "dsr_abcdefgh1234" });

    // The crashed worker: it claimed (committed) and never sent or reported.
    const claimed = await claimDueDeliveries(t.db, { now: t.clock.now(), limit: 10, leaseMs: MINUTE });
    assert.equal(claimed.length, 1);
    const [held] = await deliveries(endpointId);
    assert.equal(held?.status, "sending");

    const survivor = worker({ leaseMs: MINUTE });
    assert.equal((await survivor.runOnce()).claimed, 0, "a live claim is not taken over");
    assert.equal(receiver.hits.length, 0);

    t.clock.advance(MINUTE + SECOND);
    assert.deepEqual(await survivor.runOnce(), { claimed: 1, delivered: 1, retrying: 0, dead: 0 });
    assert.equal(receiver.accepted().length, 1);
    const [done] = await deliveries(endpointId);
    assert.equal(done?.status, "delivered");
    assert.equal(done?.attempts, 2, "the lost claim counts as an attempt");
  });

  test("a worker whose lease ran out cannot overwrite the next claimant's result", async () => {
    const { endpointId } = await createEndpointFor(adminA, { events: ["grievance.created"] });
    await emit(a, "grievance.created");

    let release!: () => void;
    const stuck: SendHttp = () =>
      new Promise((_, reject) => {
        release = () => reject(new Error("socket hang up"));
      });
    const slow = worker({ sendHttp: stuck, leaseMs: MINUTE });
    const slowRun = slow.runOnce();
    await waitUntil(() => release !== undefined);

    t.clock.advance(MINUTE + SECOND);
    assert.equal((await worker().runOnce()).delivered, 1);
    release();
    assert.deepEqual(await slowRun, { claimed: 1, delivered: 0, retrying: 0, dead: 0 });

    const [delivery] = await deliveries(endpointId);
    assert.equal(delivery?.status, "delivered");
    const detail = await deliveryDetail(endpointId, delivery!.deliveryId);
    assert.deepEqual(
      detail.history.map((h) => [h.attempt, h.statusCode, h.error]),
      [
        [2, 200, null],
        [1, null, "request failed: socket hang up"],
      ],
    );
  });

  test("retries back off exponentially with jitter and dead-letter after about 24 hours", async () => {
    const { endpointId } = await createEndpointFor(adminA, { events: ["breach.recorded"] });
    receiver.respondWith(500);
    await emit(a, "breach.recorded", { breachId: "brc_abcdefgh1234" });
    const createdAt = t.clock.now();
    // The top of every jitter range, so the schedule is exact.
    const w = worker({ random: () => 0.999_999 });

    const gaps: number[] = [];
    let delivery: Delivery | undefined;
    for (let i = 0; i < 200; i++) {
      const run = await w.runOnce();
      assert.equal(run.claimed, 1);
      [delivery] = await deliveries(endpointId);
      if (delivery?.status === "dead") break;
      gaps.push(delivery!.nextAttemptAt! - t.clock.now());
      t.clock.set(delivery!.nextAttemptAt!);
    }
    assert.equal(delivery?.status, "dead");
    assert.equal(delivery?.nextAttemptAt, null);
    assert.equal(delivery?.lastStatusCode, 500);
    assert.equal(delivery?.lastError, "HTTP 500");
    assert.equal(
      delivery?.lastAttemptAt,
      createdAt + DEFAULT_RETRY_POLICY.windowMs,
      "last try at the window's end",
    );
    assert.equal(delivery?.attempts, receiver.hits.length);
    // 30 s, 1 min, 2 min, … doubling, capped at 1 h; the last gap is cut to end on the window.
    assert.deepEqual(
      gaps.slice(0, 8).map((g) => Math.round(g / SECOND)),
      [30, 60, 120, 240, 480, 960, 1920, 3600],
    );
    assert.ok(gaps.slice(7, -1).every((g) => g === Math.floor(0.999_999 * HOUR)));
    assert.ok(delivery!.attempts > 25 && delivery!.attempts < 35, `attempts ${delivery!.attempts}`);

    // Dead is final for the worker.
    t.clock.advance(3 * HOUR);
    assert.equal((await w.runOnce()).claimed, 0);
  });

  test("retryDelayMs: full jitter between 1 s and min(cap, base * 2^(n-1))", () => {
    const policy = DEFAULT_RETRY_POLICY;
    assert.equal(
      retryDelayMs(1, policy, () => 0),
      SECOND,
    );
    assert.equal(
      retryDelayMs(1, policy, () => 0.5),
      15 * SECOND,
    );
    assert.equal(
      retryDelayMs(3, policy, () => 0.5),
      60 * SECOND,
    );
    assert.equal(
      retryDelayMs(40, policy, () => 0.5),
      30 * MINUTE,
    );
    assert.ok(retryDelayMs(500, policy, () => 0.999_999) < HOUR);
  });

  test("a dead delivery is re-sent from the staff route as a new attempt with the same eventId", async () => {
    const { endpointId } = await createEndpointFor(adminA, { events: ["nomination.changed"] });
    receiver.respondWith(503);
    await emit(a, "nomination.changed", { nominee: "prn_abcdefgh1234" });
    // A zero retry window: the first failure is final.
    assert.equal((await worker({ retry: { windowMs: 0 } }).runOnce()).dead, 1);
    const [dead] = await deliveries(endpointId);
    assert.equal(dead?.status, "dead");
    const resendUrl = `${WEBHOOKS}/${endpointId}/deliveries/${dead!.deliveryId}/resend`;

    const viewer = await t.request({ method: "POST", url: resendUrl, headers: viewerA });
    assert.equal(viewer.statusCode, 403, viewer.body);
    const otherOrg = await t.request({ method: "POST", url: resendUrl, headers: adminB });
    assert.equal(otherOrg.statusCode, 404, otherOrg.body);

    receiver.respondWith(200);
    t.clock.advance(MINUTE);
    const resent = await t.request({ method: "POST", url: resendUrl, headers: adminA });
    assert.equal(resent.statusCode, 202, resent.body);
    const queued = resent.json() as Delivery;
    assert.equal(queued.status, "pending");
    assert.equal(queued.nextAttemptAt, t.clock.now());
    // Asking again while it is queued changes nothing.
    const again = await t.request({ method: "POST", url: resendUrl, headers: adminA });
    assert.deepEqual(again.json(), queued);

    assert.equal((await worker().runOnce()).delivered, 1);
    assert.equal(receiver.hits.length, 2);
    assert.equal(receiver.hits[1]?.eventId, dead?.eventId);
    assert.equal(receiver.hits[1]?.headers["webhook-id"], dead?.eventId);
    const detail = await deliveryDetail(endpointId, dead!.deliveryId);
    assert.equal(detail.status, "delivered");
    assert.deepEqual(
      detail.history.map((h) => [h.attempt, h.statusCode]),
      [
        [2, 200],
        [1, 503],
      ],
    );
  });

  test(`workers racing on ${engine} never deliver one delivery twice`, async () => {
    await createEndpointFor(adminA, { events: ["consent.given"] });
    const total = 60;
    for (let i = 0; i < total; i++) await emit(a, "consent.given", { i });
    const workers = Array.from({ length: 4 }, () => worker({ maxInFlight: 4, endpointConcurrency: 16 }));
    const queued = async () =>
      (
        await t.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE status IN ('pending', 'sending')",
        )
      )[0]!.n;
    // Claims for one endpoint take turns, and its slots may all be held by other workers' sends:
    // each worker drains until the queue is empty.
    const drain = async (w: WebhookWorker) => {
      let claimed = 0;
      for (;;) {
        const run = await w.runOnce();
        claimed += run.claimed;
        if (run.claimed === 0 && (await queued()) === 0) return claimed;
        // Another worker holds the endpoint's slots: wait for one of its sends to finish.
        if (run.claimed === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const claimedPerWorker = await Promise.all(workers.map(drain));
    assert.equal(
      claimedPerWorker.reduce((x, y) => x + y, 0),
      total,
      `claims ${claimedPerWorker.join(",")}`,
    );
    assert.equal(receiver.hits.length, total);
    const counts = receiver.acceptedCounts();
    assert.equal(counts.size, total);
    assert.ok([...counts.values()].every((n) => n === 1));
  });

  test("the wake-up comes after the enqueuing transaction commits, however long it takes", async () => {
    await createEndpointFor(adminA, { events: ["offline_capture.quarantined"] });
    const before = receiver.accepted().length;
    // A long poll interval: only a wake-up that finds the delivery can make this quick.
    const looping = worker({ pollIntervalMs: 60 * SECOND });
    looping.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await t.db.transaction(async (tx) => {
        await enqueueEvent(
          tx,
          {
            organizationId: a.org.organizationId,
            eventType: "offline_capture.quarantined",
            payload: { captureId: "cap_slowcommit0001" },
          },
          t.clock.now(),
        );
        // A slow transaction: a worker woken at enqueue time would find nothing yet.
        await new Promise((resolve) => setTimeout(resolve, 300));
      });
      await waitUntil(() => receiver.accepted().length === before + 1);
    } finally {
      await looping.stop();
    }
  });

  test("the polling loop delivers soon after an enqueue, and stop() releases a send in flight", async () => {
    const first = await createEndpointFor(adminA, { events: ["offline_capture.quarantined"] });
    // A long poll interval: only the wake-up on enqueue can make this quick.
    const looping = worker({ pollIntervalMs: 60 * SECOND });
    looping.start();
    try {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await emit(a, "offline_capture.quarantined", { captureId: "cap_abcdefgh1234" });
      // Well under the 60 s poll interval, with room for a loaded machine.
      await waitUntil(() => receiver.accepted().length === 1);
      // Recorded too: stopping between the receiver's answer and the record would release the
      // delivery, and the next worker below would send it again instead of the one under test.
      const deadline = Date.now() + 20 * SECOND;
      while ((await deliveries(first.endpointId))[0]?.status !== "delivered") {
        assert.ok(Date.now() < deadline, "the delivery was recorded");
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    } finally {
      await looping.stop();
    }

    // A send still waiting when the worker stops is released at once for another worker.
    const { endpointId } = await createEndpointFor(adminA, { events: ["dsr.status_changed"] });
    let sending = false;
    const hanging: SendHttp = ({ signal }) =>
      new Promise((_, reject) => {
        sending = true;
        signal.addEventListener("abort", () => reject(signal.reason as Error));
      });
    const stopping = worker({ sendHttp: hanging, pollIntervalMs: 60 * SECOND });
    stopping.start();
    await emit(a, "dsr.status_changed");
    await waitUntil(() => sending);
    await stopping.stop();
    const [released] = await deliveries(endpointId);
    assert.equal(released?.status, "pending");
    assert.equal(released?.nextAttemptAt, t.clock.now());
    assert.equal(released?.lastError, "worker stopped before an answer");
    // Other deliveries of this file may also be due on the shared clock; what matters is this one.
    assert.ok((await worker().runOnce()).delivered >= 1);
    const [delivered] = await deliveries(endpointId);
    assert.equal(delivered?.status, "delivered");
  });
});

describe("startServer runs a delivery worker", () => {
  test("an event enqueued while the server runs is delivered; stop() stops the worker", async () => {
    const receiver = await startReceiver();
    const { db, drop } = await openEmptyTestDatabase();
    const config = testConfig({ port: 0 });
    const server = await startServer(config, { db });
    try {
      const org = await createOrganization(
        db,
        { slug: "webhook-server", name: "Webhook server" },
        Date.now(),
      );
      const endpoint = await createEndpoint(
        db,
        new SecretBox(config.secretsKey),
        { organizationId: org.organizationId, url: receiver.url, events: ["consent.given"], createdBy: null },
        { now: Date.now(), production: false },
      );
      await db.transaction((tx) =>
        enqueueEvent(
          tx,
          { organizationId: org.organizationId, eventType: "consent.given", payload: { ok: true } },
          Date.now(),
        ),
      );
      await waitUntil(() => receiver.accepted().length === 1);
      assert.equal(
        verifyDpdpSignature(
          endpoint.secret,
          receiver.hits[0]!.body,
          receiver.hits[0]!.headers["x-dpdp-signature"],
        ),
        true,
      );
    } finally {
      await server.stop();
      await drop();
      await receiver.close();
    }
  });
});
