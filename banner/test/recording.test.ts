import assert from "node:assert/strict";
import { test } from "node:test";
import { GuardApiError, GuardConnectionError, type GuardClient } from "../../sdks/js/src/index.js";
import { allPurposes, dataTypesFor, planDecision, recordDecision } from "../src/recording.js";
import type { BannerNotice, StoredDecision } from "../src/types.js";

const NOTICE = {
  _id: "ntc_1",
  organizationId: "org_1",
  version: 3,
  status: "published",
  itemized: [
    { purpose: "Analytics", personalDataDescription: "Device id", dataTypes: ["device-id"] },
    { purpose: "Marketing", personalDataDescription: "Email" },
  ],
  content: { en: { title: "t", body: "b" } },
} as BannerNotice;

const stored = (purposes: Record<string, boolean>, version = 3, noticeId = "ntc_1"): StoredDecision => ({
  v: 1,
  anonymousId: "anon-1",
  noticeId,
  noticeVersion: version,
  purposes,
  consentIds: Object.fromEntries(
    Object.entries(purposes)
      .filter(([, on]) => on)
      .map(([p]) => [p, `cns_${p}`]),
  ),
  decidedAt: 1,
});

test("consent carries the notice's data types for the purpose, else personal-data", () => {
  assert.deepEqual(dataTypesFor(NOTICE, "Analytics"), ["device-id"]);
  assert.deepEqual(dataTypesFor(NOTICE, "Marketing"), ["personal-data"]);
});

test("first visit: accept gives every purpose; reject records nothing", () => {
  assert.deepEqual(planDecision(null, NOTICE, allPurposes(NOTICE, true)), {
    give: ["Analytics", "Marketing"],
    withdraw: [],
  });
  assert.deepEqual(planDecision(null, NOTICE, allPurposes(NOTICE, false)), { give: [], withdraw: [] });
});

test("a purpose already on for this version is not given again; one turned off is withdrawn", () => {
  const before = stored({ Analytics: true, Marketing: false });
  assert.deepEqual(planDecision(before, NOTICE, { Analytics: true, Marketing: true }), {
    give: ["Marketing"],
    withdraw: [],
  });
  assert.deepEqual(planDecision(before, NOTICE, { Analytics: false, Marketing: false }), {
    give: [],
    withdraw: ["Analytics"],
  });
  assert.deepEqual(planDecision(before, NOTICE, { Analytics: true, Marketing: false }), {
    give: [],
    withdraw: [],
  });
});

test("a new notice version asks for consent again; a purpose turned off is still withdrawn", () => {
  const before = stored({ Analytics: true, Marketing: true }, 2);
  assert.deepEqual(planDecision(before, NOTICE, { Analytics: true, Marketing: false }), {
    give: ["Analytics"],
    withdraw: ["Marketing"],
  });
});

test("a decision about another notice withdraws nothing of this one", () => {
  const before = stored({ Analytics: true }, 1, "ntc_other");
  assert.deepEqual(planDecision(before, NOTICE, allPurposes(NOTICE, false)), { give: [], withdraw: [] });
});

interface Call {
  method: string;
  input: Record<string, unknown>;
}

function fakeClient(failures: Record<string, unknown> = {}): { client: GuardClient; calls: Call[] } {
  const calls: Call[] = [];
  const answer = async (method: string, input: Record<string, unknown>) => {
    calls.push({ method, input });
    const failure = failures[`${method}:${String(input.purpose)}`];
    if (failure) throw failure;
    return { consentId: `cns_new_${String(input.purpose)}` };
  };
  const client = {
    giveAnonymousConsent: (input: Record<string, unknown>) => answer("give", input),
    withdrawAnonymousConsent: (input: Record<string, unknown>) => answer("withdraw", input),
  } as unknown as GuardClient;
  return { client, calls };
}

const apiError = (status: number, code: string) =>
  new GuardApiError({ status, code, message: code, requestId: null });

test("recording: the calls name the organisation, notice, purpose, data types and anonymous id", async () => {
  const { client, calls } = fakeClient();
  const decision = await recordDecision({
    client,
    organizationId: "org_1",
    notice: NOTICE,
    anonymousId: "anon-1",
    stored: null,
    choices: { Analytics: true, Marketing: false },
    now: 42,
  });
  assert.deepEqual(calls, [
    {
      method: "give",
      input: {
        organizationId: "org_1",
        noticeId: "ntc_1",
        purpose: "Analytics",
        dataTypes: ["device-id"],
        anonymousId: "anon-1",
      },
    },
  ]);
  assert.deepEqual(decision, {
    v: 1,
    anonymousId: "anon-1",
    noticeId: "ntc_1",
    noticeVersion: 3,
    purposes: { Analytics: true, Marketing: false },
    consentIds: { Analytics: "cns_new_Analytics" },
    decidedAt: 42,
  });
});

test("withdrawing calls the withdraw route and forgets the consent id", async () => {
  const { client, calls } = fakeClient();
  const decision = await recordDecision({
    client,
    organizationId: "org_1",
    notice: NOTICE,
    anonymousId: "anon-1",
    stored: stored({ Analytics: true, Marketing: true }),
    choices: { Analytics: false, Marketing: true },
    now: 43,
  });
  assert.deepEqual(calls, [
    {
      method: "withdraw",
      input: { organizationId: "org_1", anonymousId: "anon-1", noticeId: "ntc_1", purpose: "Analytics" },
    },
  ]);
  assert.deepEqual(decision.consentIds, { Marketing: "cns_Marketing" });
});

test("already consented, nothing to withdraw and already withdrawn all count as done", async () => {
  const { client } = fakeClient({
    "give:Marketing": apiError(400, "ALREADY_CONSENTED"),
    "withdraw:Analytics": apiError(404, "NOT_FOUND"),
  });
  const first = await recordDecision({
    client,
    organizationId: "org_1",
    notice: NOTICE,
    anonymousId: "anon-1",
    stored: stored({ Analytics: true }, 2),
    choices: { Analytics: false, Marketing: true },
    now: 1,
  });
  assert.deepEqual(first.purposes, { Analytics: false, Marketing: true });
  const conflict = fakeClient({ "withdraw:Analytics": apiError(409, "CONFLICT") });
  const second = await recordDecision({
    client: conflict.client,
    organizationId: "org_1",
    notice: NOTICE,
    anonymousId: "anon-1",
    stored: stored({ Analytics: true, Marketing: false }),
    choices: { Analytics: false, Marketing: false },
    now: 1,
  });
  assert.deepEqual(second.purposes, { Analytics: false, Marketing: false });
});

test("a network failure or another refusal fails the decision (nothing to store)", async () => {
  for (const failure of [
    new GuardConnectionError("POST failed: Failed to fetch"),
    apiError(400, "VALIDATION_ERROR"),
    apiError(429, "RATE_LIMITED"),
  ]) {
    const { client } = fakeClient({ "give:Analytics": failure });
    await assert.rejects(
      recordDecision({
        client,
        organizationId: "org_1",
        notice: NOTICE,
        anonymousId: "anon-1",
        stored: null,
        choices: { Analytics: true, Marketing: true },
        now: 1,
      }),
      (error) => error === failure,
    );
  }
  const { client } = fakeClient({ "withdraw:Analytics": apiError(500, "INTERNAL_ERROR") });
  await assert.rejects(
    recordDecision({
      client,
      organizationId: "org_1",
      notice: NOTICE,
      anonymousId: "anon-1",
      stored: stored({ Analytics: true }),
      choices: { Analytics: false, Marketing: false },
      now: 1,
    }),
  );
});
