// Delivery fairness against real receivers on 127.0.0.1: one organisation's hung receiver must not
// delay another organisation's webhooks; each endpoint has a circuit breaker (kept in its row, so
// it holds across instances) and a concurrency limit that holds across workers.
import assert from "node:assert/strict";
import { after, afterEach, before, describe, test } from "node:test";
import { openDatabase, type Database } from "../../src/db/database.js";
import { systemClock, type Clock } from "../../src/lib/clock.js";
import { createEndpoint } from "../../src/webhooks/endpoints.js";
import { enqueueEvent } from "../../src/webhooks/outbox.js";
import { SecretBox } from "../../src/lib/secret-box.js";
import { WebhookWorker, type WebhookWorkerOptions } from "../../src/webhooks/worker.js";
import { seedOrganization, signIn, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";
import { waitUntil } from "../support/polling.js";
import { startReceiver, type Receiver } from "../support/webhook-receiver.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("webhook delivery fairness", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let box: SecretBox;
  /** The second instance's connection: its own pool on PostgreSQL, the same database on PGlite. */
  let otherDb: Database;
  const receivers: Receiver[] = [];
  const workers: WebhookWorker[] = [];

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    box = new SecretBox(t.config.secretsKey);
    otherDb = t.databaseUrl ? await openDatabase({ databaseUrl: t.databaseUrl }) : t.db;
  });
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.stop();
    for (const r of receivers.splice(0)) await r.close();
    // Workers scan every organisation: nothing of one test may be left for the next.
    await t.db.query(
      "UPDATE webhook_deliveries SET status = 'cancelled', next_attempt_at = NULL WHERE status IN ('pending', 'sending')",
    );
    await t.db.query("UPDATE webhook_endpoints SET enabled = FALSE");
  });
  after(async () => {
    if (otherDb !== t.db) await otherDb.close();
    await t.close();
  });

  async function receiver(): Promise<Receiver> {
    const r = await startReceiver();
    receivers.push(r);
    return r;
  }

  /** By default on real time, so leases, timeouts and retries happen as in production. */
  function worker(options: Partial<WebhookWorkerOptions> & { clock?: Clock } = {}): WebhookWorker {
    const w = new WebhookWorker({
      db: t.db,
      clock: systemClock,
      secrets: box,
      pollIntervalMs: 100,
      ...options,
    });
    workers.push(w);
    return w;
  }

  async function circuit(endpointId: string) {
    const [row] = await t.db.query<{ failures: number; trips: number; open_until: number | null }>(
      `SELECT consecutive_failures AS failures, circuit_trips AS trips, circuit_open_until AS open_until
         FROM webhook_endpoints WHERE endpoint_id = $1`,
      [endpointId],
    );
    return row!;
  }

  async function deliveries(endpointId: string) {
    return t.db.query<{ status: string; attempts: number; next_attempt_at: number | null }>(
      "SELECT status, attempts, next_attempt_at FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at",
      [endpointId],
    );
  }

  async function endpointFor(org: SeededOrg, url: string): Promise<string> {
    const created = await createEndpoint(
      t.db,
      box,
      { organizationId: org.org.organizationId, url, events: ["consent.given"], createdBy: null },
      { now: Date.now(), production: false },
    );
    return created.endpointId;
  }

  async function emit(org: SeededOrg, payload: Record<string, unknown>, now = Date.now()): Promise<void> {
    await t.db.transaction((tx) =>
      enqueueEvent(tx, { organizationId: org.org.organizationId, eventType: "consent.given", payload }, now),
    );
  }

  test("a hung receiver of one organisation does not delay another organisation's webhooks", async () => {
    const hungA = await receiver();
    const healthyB = await receiver();
    hungA.hang();
    await endpointFor(a, hungA.url);
    await endpointFor(b, healthyB.url);
    // The production timeout (10 s): a worker that waits for A's sends makes B wait that long.
    worker().start();

    const rounds = 20;
    const emittedAt = new Map<number, number>();
    for (let seq = 0; seq < rounds; seq++) {
      await emit(a, { seq });
      emittedAt.set(seq, Date.now());
      await emit(b, { seq });
      await sleep(100);
    }
    await waitUntil(() => healthyB.accepted().length >= rounds, 60_000, "B received every event");
    const latencies = healthyB
      .accepted()
      .map(
        (hit) =>
          hit.receivedAt - emittedAt.get((JSON.parse(hit.body) as { payload: { seq: number } }).payload.seq)!,
      );
    const worst = Math.max(...latencies);
    console.log(`B's worst latency with A hung: ${worst} ms (${latencies.length} events)`);
    // B's events need milliseconds; the bound is generous so a loaded machine does not flake.
    assert.ok(worst < 5_000, `B's worst latency ${worst} ms`);
    assert.ok(hungA.hits.length > 0, "A's receiver was tried");
  });

  test("the circuit opens after consecutive failures, defers the endpoint, probes one at a time and closes on recovery", async () => {
    const failingA = await receiver();
    const healthyB = await receiver();
    failingA.respondWith(503);
    const endpointA = await endpointFor(a, failingA.url);
    const endpointB = await endpointFor(b, healthyB.url);
    const clock = t.clock;
    const breaker = { failureThreshold: 3, cooldownBaseMs: 10_000, cooldownCapMs: 15_000 };
    // Two instances on one database: the circuit is in the endpoint's row, so both obey it.
    const first = worker({ clock, breaker });
    const second = worker({ clock, breaker, db: otherDb });
    for (let i = 0; i < 6; i++) await emit(a, { i }, clock.now());

    // Two at a time (the endpoint's concurrency), both fail: 2 of 3.
    assert.deepEqual(await first.runOnce(), { claimed: 2, delivered: 0, retrying: 2, dead: 0 });
    assert.deepEqual(await circuit(endpointA), { failures: 2, trips: 0, open_until: null });

    // The third failure opens the circuit; the fourth, sent alongside, is counted but does not
    // extend it. B's event goes out in the same run.
    clock.advance(31_000);
    await emit(b, { i: 0 }, clock.now());
    assert.deepEqual(await second.runOnce(), { claimed: 3, delivered: 1, retrying: 2, dead: 0 });
    const openUntil = clock.now() + 10_000;
    assert.deepEqual(await circuit(endpointA), { failures: 4, trips: 1, open_until: openUntil });
    assert.equal(healthyB.accepted().length, 1);
    assert.equal(failingA.hits.length, 4);

    // Open: nothing of A is claimed, even once its retries are due, and no attempt is counted. The
    // staff listing shows the deferral as the next attempt.
    clock.advance(9_000);
    await emit(b, { i: 1 }, clock.now());
    assert.deepEqual(await first.runOnce(), { claimed: 1, delivered: 1, retrying: 0, dead: 0 });
    const waiting = await deliveries(endpointA);
    assert.deepEqual(waiting.map((d) => d.attempts).sort(), [0, 0, 1, 1, 1, 1]);
    const listed = await t.request({
      method: "GET",
      url: `/api/v1/staff/webhooks/${endpointA}/deliveries?status=pending`,
      headers: (await signIn(t, a, "viewer")).headers,
    });
    assert.equal(listed.statusCode, 200, listed.body);
    const pending = (listed.json() as { deliveries: { nextAttemptAt: number }[] }).deliveries;
    assert.equal(pending.length, 6);
    assert.ok(
      pending.every((d) => d.nextAttemptAt >= openUntil),
      JSON.stringify(pending),
    );

    // Half-open after the cool-down: one probe at a time; it fails, and the circuit opens again
    // for twice as long.
    clock.set(openUntil);
    assert.deepEqual(await second.runOnce(), { claimed: 1, delivered: 0, retrying: 1, dead: 0 });
    assert.deepEqual(await circuit(endpointA), { failures: 5, trips: 2, open_until: clock.now() + 15_000 });
    clock.advance(14_000);
    assert.equal((await first.runOnce()).claimed, 0);

    // The receiver recovers: the next probe succeeds and closes the circuit; the backlog follows,
    // two at a time, each event accepted once.
    failingA.respondWith(200);
    clock.advance(1_000);
    assert.deepEqual(await first.runOnce(), { claimed: 1, delivered: 1, retrying: 0, dead: 0 });
    assert.deepEqual(await circuit(endpointA), { failures: 0, trips: 0, open_until: null });
    clock.advance(60_000);
    assert.deepEqual(await second.runOnce(), { claimed: 2, delivered: 2, retrying: 0, dead: 0 });
    for (let run = 0; run < 5 && (await first.runOnce()).claimed > 0; run++);
    assert.ok((await deliveries(endpointA)).every((d) => d.status === "delivered"));
    const counts = failingA.acceptedCounts();
    assert.equal(counts.size, 6);
    assert.ok([...counts.values()].every((n) => n === 1));
    assert.equal(healthyB.accepted().length, 2);
    assert.deepEqual(await circuit(endpointB), { failures: 0, trips: 0, open_until: null });
  });

  test("timeouts count: a hung receiver trips the circuit and is then left alone", async () => {
    const hungA = await receiver();
    hungA.hang();
    const endpointA = await endpointFor(a, hungA.url);
    worker({
      timeoutMs: 200,
      leaseMs: 2_000,
      breaker: { failureThreshold: 3, cooldownBaseMs: 60_000 },
    }).start();
    for (let i = 0; i < 10; i++) await emit(a, { i });
    await waitUntil(async () => (await circuit(endpointA)).open_until !== null, 10_000, "the circuit opened");
    // Two sends at a time: the third timeout opens the circuit, a fourth may already be on its way.
    await sleep(1_000);
    assert.ok(hungA.hits.length >= 3 && hungA.hits.length <= 4, `hits ${hungA.hits.length}`);
    const states = await deliveries(endpointA);
    assert.equal(states.filter((d) => d.attempts > 0).length, hungA.hits.length);
  });

  test("an endpoint never has more sends in flight than its limit, across workers", async () => {
    const slowA = await receiver();
    const slowB = await receiver();
    slowA.respondAfter(150);
    slowB.respondAfter(150);
    await endpointFor(a, slowA.url);
    await endpointFor(b, slowB.url);
    const total = 12;
    for (let i = 0; i < total; i++) {
      await emit(a, { i });
      await emit(b, { i });
    }
    // Room for every delivery in each worker: only the per-endpoint limit holds them back.
    worker({ maxInFlight: 2 * total, endpointConcurrency: 2 }).start();
    worker({ maxInFlight: 2 * total, endpointConcurrency: 2, db: otherDb }).start();
    await waitUntil(
      () => slowA.accepted().length === total && slowB.accepted().length === total,
      30_000,
      "every event delivered",
    );
    assert.ok(slowA.maxInFlight() <= 2, `A had ${slowA.maxInFlight()} in flight`);
    assert.ok(slowB.maxInFlight() <= 2, `B had ${slowB.maxInFlight()} in flight`);
    assert.equal(slowA.maxInFlight(), 2, "the limit is used");
    assert.equal(slowA.acceptedCounts().size, total);
  });

  test("changing the endpoint's URL closes its circuit", async () => {
    const broken = await receiver();
    const fixed = await receiver();
    broken.respondWith(500);
    const endpointA = await endpointFor(a, broken.url);
    // Retries after 1 s; the circuit stays open for 30 s.
    const w = worker({
      clock: t.clock,
      random: () => 0,
      breaker: { failureThreshold: 1, cooldownBaseMs: 30_000 },
    });
    await emit(a, { i: 0 }, t.clock.now());
    await emit(a, { i: 1 }, t.clock.now());
    await w.runOnce();
    assert.notEqual((await circuit(endpointA)).open_until, null);
    t.clock.advance(2_000);
    assert.equal((await w.runOnce()).claimed, 0, "open");

    const patched = await t.request({
      method: "PATCH",
      url: `/api/v1/staff/webhooks/${endpointA}`,
      headers: (await signIn(t, a, "admin")).headers,
      payload: { url: fixed.url },
    });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(await circuit(endpointA), { failures: 0, trips: 0, open_until: null });
    assert.deepEqual(await w.runOnce(), { claimed: 2, delivered: 2, retrying: 0, dead: 0 });
    assert.equal(fixed.accepted().length, 2);
  });
});
