// Webhook outage and neighbour fairness, end to end over loopback: organisation A's receiver hangs
// (reads each request, never answers), organisation B's answers at once. B's events must arrive
// promptly while A is down; once A recovers, every one of A's events arrives too. Every accepted
// delivery carries valid signatures for its endpoint's secret and belongs to that endpoint's
// organisation; none is lost.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { verifyDpdpSignature, verifyStandardWebhook } from "@guard/contract";
import { startHangingReceiver, type HangingReceiver } from "./support/receiver.js";
import {
  bearer,
  brokerToken,
  expectStatus,
  publishNotice,
  seedOrg,
  startLiveServer,
  type LiveServer,
  type Org,
} from "./support/live-server.js";

// Short enough to keep the test quick, long enough that a worker waiting on A's hung sends would
// make B's events visibly late.
const SEND_TIMEOUT_MS = 5_000;
/** B's worst acceptable latency (creation to arrival) while A hangs: well under one send timeout. */
const B_BOUND_MS = 2_500;
const A_EVENTS = 8;
const B_EVENTS = 6;

describe("webhook outage and neighbour fairness", () => {
  let server: LiveServer;
  let a: Org;
  let b: Org;
  let receiverA: HangingReceiver;
  let receiverB: HangingReceiver;
  const secrets = new Map<string, string>(); // organizationId -> endpoint secret
  const notices = new Map<string, string>();

  before(async () => {
    server = await startLiveServer({
      worker: {
        timeoutMs: SEND_TIMEOUT_MS,
        leaseMs: SEND_TIMEOUT_MS + 5_000,
        pollIntervalMs: 100,
        retry: { baseMs: 500, capMs: 1_000 },
        breaker: { failureThreshold: 3, cooldownBaseMs: 500, cooldownCapMs: 2_000 },
      },
    });
    a = await seedOrg(server, "hooks-a");
    b = await seedOrg(server, "hooks-b");
    receiverA = await startHangingReceiver("hang");
    receiverB = await startHangingReceiver("ok");
    for (const [org, receiver] of [
      [a, receiverA],
      [b, receiverB],
    ] as const) {
      const created = expectStatus<{ secret: string }>(
        await server.call("/api/v1/staff/webhooks", {
          method: "POST",
          headers: org.staff,
          body: { url: receiver.url, events: ["consent.given"] },
        }),
        201,
        "webhook endpoint",
      );
      secrets.set(org.org.organizationId, created.secret);
      notices.set(org.org.organizationId, await publishNotice(server, org));
    }
  });
  after(async () => {
    await server?.close();
    await receiverA?.close();
    await receiverB?.close();
  });

  /** Records a consent (one consent.given event); returns its id and when it was acknowledged. */
  async function consent(org: Org, n: number): Promise<{ consentId: string; at: number }> {
    const externalId = `hook-user-${n}`;
    const email = `${externalId}@example.com`;
    await brokerToken(server, org.apiKey, externalId, email);
    const res = await server.call("/cm/v1/consent", {
      method: "POST",
      headers: bearer(org.apiKey),
      body: {
        email,
        noticeId: notices.get(org.org.organizationId),
        purpose: "Account",
        dataTypes: ["email"],
      },
    });
    return { consentId: expectStatus<{ consentId: string }>(res, 201, "consent").consentId, at: Date.now() };
  }

  const arrivalOf = (receiver: HangingReceiver, consentId: string) =>
    receiver.hits.find((h) => h.answered && h.body.includes(consentId))?.receivedAt;

  async function eventIds(org: Org): Promise<string[]> {
    const rows = await server.db.query<{ event_id: string }>(
      "SELECT event_id FROM webhook_events WHERE organization_id = $1 ORDER BY event_id",
      [org.org.organizationId],
    );
    return rows.map((r) => r.event_id);
  }

  test("B's events arrive promptly while A's receiver hangs; A's arrive after it recovers, none lost", async () => {
    for (let i = 0; i < A_EVENTS; i++) await consent(a, i);
    const sent: { consentId: string; at: number }[] = [];
    for (let i = 0; i < B_EVENTS; i++) {
      sent.push(await consent(b, i));
      await sleep(300);
    }
    const deadline = Date.now() + SEND_TIMEOUT_MS * 2;
    while (sent.some((s) => arrivalOf(receiverB, s.consentId) === undefined) && Date.now() < deadline) {
      await sleep(50);
    }
    const latencies = sent.map((s) => (arrivalOf(receiverB, s.consentId) ?? Infinity) - s.at);
    const worst = Math.max(...latencies);
    console.log(`webhooks: B's worst latency with A hung: ${worst} ms (bound ${B_BOUND_MS} ms)`);
    assert.ok(worst < B_BOUND_MS, `B's latencies while A hangs: ${latencies.join(", ")} ms`);
    assert.ok(receiverA.hits.length > 0, "A's receiver was tried while it hung");

    receiverA.setMode("ok");
    const expectedA = await eventIds(a);
    assert.equal(expectedA.length, A_EVENTS);
    const recoverBy = Date.now() + 45_000;
    while (expectedA.some((id) => !receiverA.accepted().has(id)) && Date.now() < recoverBy) await sleep(100);
    assert.deepEqual(
      expectedA.filter((id) => !receiverA.accepted().has(id)),
      [],
      "A's events not delivered after recovery",
    );
    assert.deepEqual(
      (await eventIds(b)).filter((id) => !receiverB.accepted().has(id)),
      [],
      "B's events not delivered",
    );

    for (const [org, receiver] of [
      [a, receiverA],
      [b, receiverB],
    ] as const) {
      const secret = secrets.get(org.org.organizationId)!;
      for (const hit of receiver.hits) {
        assert.equal(hit.organizationId, org.org.organizationId, "delivered to its own organisation only");
        assert.ok(verifyDpdpSignature(secret, hit.body, hit.headers["x-dpdp-signature"]), "X-DPDP-Signature");
        const standard = verifyStandardWebhook({
          headers: {
            "webhook-id": hit.headers["webhook-id"] as string,
            "webhook-timestamp": hit.headers["webhook-timestamp"] as string,
            "webhook-signature": hit.headers["webhook-signature"] as string,
          },
          body: hit.body,
          secret,
          nowSeconds: Math.floor(hit.receivedAt / 1000),
        });
        assert.ok(standard.ok, `Standard Webhooks signature: ${JSON.stringify(standard)}`);
      }
    }
  });
});
