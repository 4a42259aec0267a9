// The registers' partner routes (contract 2.15.0, tag `registers`) against a scripted fetch: each
// list sends the API key, limit and cursor to its route; each iterator follows nextCursor to the
// end; confirmErasureExecuted posts to its erasure and is retried as the contract makes it
// idempotent; missing keys fail locally, and a capability that is off is NOT_FOUND.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  GuardApiError,
  GuardClient,
  GuardMissingCredentialError,
  type Breach,
  type CrossBorderTransfer,
  type DueRetention,
} from "../src/index.js";
import { fakeFetch, recordingSleep, type Scripted } from "../../typescript-shared/test/support.js";

const BASE = "https://guard.example.com";

function setup(script: Scripted[] = [], apiKey: string | null = "gk_live_key") {
  const { fetch, requests } = fakeFetch(script);
  const { sleep, delays } = recordingSleep();
  const client = new GuardClient({
    baseUrl: BASE,
    apiKey: apiKey ?? undefined,
    fetch,
    sleep,
    random: () => 0,
  });
  const calls = () =>
    requests.map((r) => `${r.method} ${r.url.slice(BASE.length)} ${r.headers.get("authorization") ?? "-"}`);
  return { client, requests, delays, calls };
}

const due = (n: number): DueRetention => ({
  scheduledErasureId: `ser_${n}`,
  userId: `user-${n}`,
  scheduledFor: 1_700_000_000_000 + n,
  reason: "Marketing: 3 years since the last interaction",
  preNotificationSentAt: 1_699_800_000_000,
});
const breach = (n: number): Breach => ({
  breachId: `brc_${n}`,
  description: "Backup bucket readable without authentication",
  discoveredAt: 1_700_000_000_000,
  status: "reported_board_pending",
});
const transfer = (n: number): CrossBorderTransfer => ({
  activityId: `rpa_${n}`,
  activityName: "Support tickets",
  purpose: "Customer support",
  dataCategories: ["email", "phone"],
  legalBasis: "consent",
  createdAt: 1_700_000_000_000,
});

test("each register list calls its route with the API key, limit and cursor", async () => {
  const { client, calls } = setup([
    { status: 200, body: { due: [due(1)], nextCursor: "d2" } },
    { status: 200, body: { breaches: [breach(1)], nextCursor: null } },
    { status: 200, body: { transfers: [transfer(1)], nextCursor: null } },
  ]);
  const duePage = await client.listDueRetentions({ limit: 1, cursor: "d1" });
  assert.deepEqual(duePage, { due: [due(1)], nextCursor: "d2" });
  const breachPage = await client.listBreaches();
  assert.deepEqual(breachPage.breaches, [breach(1)]);
  assert.equal(breachPage.nextCursor, null);
  const transferPage = await client.listCrossBorderTransfers({ cursor: "a.b" }, { timeoutMs: 5_000 });
  assert.deepEqual(transferPage.transfers, [transfer(1)]);
  assert.deepEqual(calls(), [
    "GET /api/v1/retention/due?limit=1&cursor=d1 Bearer gk_live_key",
    "GET /api/v1/breaches Bearer gk_live_key",
    "GET /api/v1/cross-border/transfers?cursor=a.b Bearer gk_live_key",
  ]);
});

test("the register iterators walk every page and yield the items", async () => {
  const { client, calls } = setup([
    { status: 200, body: { due: [due(1), due(2)], nextCursor: "p2" } },
    { status: 200, body: { due: [due(3)], nextCursor: null } },
    { status: 200, body: { breaches: [breach(1)], nextCursor: "b2" } },
    { status: 200, body: { breaches: [breach(2)], nextCursor: null } },
    { status: 200, body: { transfers: [], nextCursor: null } },
  ]);
  const dueIds: string[] = [];
  for await (const item of client.iterateDueRetentions({ limit: 2 })) dueIds.push(item.scheduledErasureId);
  const breachIds: string[] = [];
  for await (const item of client.iterateBreaches()) breachIds.push(item.breachId);
  const transferIds: string[] = [];
  for await (const item of client.iterateCrossBorderTransfers({ limit: 50 }))
    transferIds.push(item.activityId);
  assert.deepEqual([dueIds, breachIds, transferIds], [["ser_1", "ser_2", "ser_3"], ["brc_1", "brc_2"], []]);
  assert.deepEqual(calls(), [
    "GET /api/v1/retention/due?limit=2 Bearer gk_live_key",
    "GET /api/v1/retention/due?limit=2&cursor=p2 Bearer gk_live_key",
    "GET /api/v1/breaches Bearer gk_live_key",
    "GET /api/v1/breaches?cursor=b2 Bearer gk_live_key",
    "GET /api/v1/cross-border/transfers?limit=50 Bearer gk_live_key",
  ]);
});

test("register reads are retried after a 503; a 404 (capability off) is NOT_FOUND and not retried", async () => {
  const { client, requests, delays } = setup([
    { status: 503, body: { code: "UNAVAILABLE", error: "try again" } },
    { status: 200, body: { breaches: [], nextCursor: null } },
    { status: 404, body: { code: "NOT_FOUND", error: "Not found" } },
  ]);
  assert.deepEqual(await client.listBreaches(), { breaches: [], nextCursor: null });
  assert.deepEqual(delays, [500]);
  const off = await client.listCrossBorderTransfers().catch((e: unknown) => e);
  assert.ok(off instanceof GuardApiError);
  assert.equal(off.status, 404);
  assert.equal(off.code, "NOT_FOUND");
  assert.equal(requests.length, 3);
  assert.equal(requests[1]!.headers.get("x-guard-retry-count"), "1");
});

test("unknown page params throw before any request", async () => {
  const { client, requests } = setup();
  await assert.rejects(
    client.listDueRetentions({ limit: 1, status: "due" } as never),
    /Unknown page param: status/,
  );
  assert.equal(requests.length, 0);
});

test("without an API key the register calls fail locally, before any request", async () => {
  const { client, requests } = setup([], null);
  for (const call of [
    () => client.listDueRetentions(),
    () => client.listBreaches(),
    () => client.listCrossBorderTransfers(),
    () => client.confirmErasureExecuted("ser_1"),
  ]) {
    await assert.rejects(call(), GuardMissingCredentialError);
  }
  await assert.rejects(async () => {
    for await (const item of client.iterateBreaches()) void item;
  }, GuardMissingCredentialError);
  assert.equal(requests.length, 0);
});

test("confirmErasureExecuted posts executedAt (or an empty body) to the erasure's route", async () => {
  const executed = { scheduledErasureId: "ser_1", status: "executed", executedAt: 1_700_000_100_000 };
  const { client, requests, calls } = setup([
    { status: 200, body: executed },
    { status: 200, body: executed },
  ]);
  assert.deepEqual(await client.confirmErasureExecuted("ser_1", { executedAt: 1_700_000_100_000 }), executed);
  assert.deepEqual(await client.confirmErasureExecuted("ser/2"), executed);
  assert.deepEqual(calls(), [
    "POST /api/v1/retention/erasures/ser_1/executed Bearer gk_live_key",
    "POST /api/v1/retention/erasures/ser%2F2/executed Bearer gk_live_key",
  ]);
  assert.deepEqual(
    requests.map((r) => r.body),
    ['{"executedAt":1700000100000}', "{}"],
  );
  assert.equal(requests[0]!.headers.get("content-type"), "application/json");
  assert.equal(requests[0]!.headers.get("idempotency-key"), null);
});

test("confirmErasureExecuted is retried (a repeat answers the first confirmation); 409 and 404 are not", async () => {
  const { client, requests, delays } = setup([
    { status: 503, body: { code: "UNAVAILABLE", error: "try again" } },
    { status: 200, body: { scheduledErasureId: "ser_1", status: "executed", executedAt: 5 } },
    { status: 409, body: { code: "CONFLICT", error: "The erasure was cancelled: the principal came back" } },
    { status: 404, body: { code: "NOT_FOUND", error: "No scheduled erasure ser_9" } },
  ]);
  assert.equal((await client.confirmErasureExecuted("ser_1")).executedAt, 5);
  assert.deepEqual(delays, [500]);
  const conflict = await client.confirmErasureExecuted("ser_2").catch((e: unknown) => e);
  assert.ok(conflict instanceof GuardApiError);
  assert.deepEqual([conflict.status, conflict.code], [409, "CONFLICT"]);
  const unknown = await client.confirmErasureExecuted("ser_9").catch((e: unknown) => e);
  assert.ok(unknown instanceof GuardApiError);
  assert.deepEqual([unknown.status, unknown.code], [404, "NOT_FOUND"]);
  assert.equal(requests.length, 4);
});
