// The offline and assisted capture calls (contract 2.14.0, tag `offline`) against a scripted fetch:
// their routes and bodies, which are create calls (a minted Idempotency-Key reused on retry), that a
// capture sync is retried without a key (clientSessionId makes it idempotent), error mapping, and
// the dpdpcca/2 helpers against every case of contract/vectors/capture-artifact.json.
import assert from "node:assert/strict";
import fs from "node:fs";
import { test } from "node:test";
import {
  CAPTURE_ARTIFACT_FORMAT,
  CaptureArtifactError,
  canonicalizeCaptureArtifact,
  GuardApiError,
  GuardClient,
  GuardMissingCredentialError,
  verifyCaptureSignature,
  type CaptureArtifactSession,
  type OfflineCaptureSession,
} from "../src/index.js";
import {
  connectionRefused,
  fakeFetch,
  recordingSleep,
  type Scripted,
} from "../../typescript-shared/test/support.js";

const BASE = "https://guard.example.com";
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function setup(script: Scripted[] = [], apiKey: string | null = "gk_live_key") {
  const { fetch, requests } = fakeFetch(script, { status: 201, body: {} });
  const { sleep, delays } = recordingSleep();
  const client = new GuardClient({
    baseUrl: BASE,
    apiKey: apiKey ?? undefined,
    fetch,
    sleep,
    random: () => 0,
  });
  return { client, requests, delays };
}

const LINK = { noticeId: "ntc_0123456789", purpose: "Marketing", dataTypes: ["email"], label: "Counter 3" };
const POS = {
  noticeId: "ntc_0123456789",
  purpose: "Marketing",
  dataTypes: ["phone"],
  phone: "+91 98765 43210",
};
const IVR = {
  noticeId: "ntc_0123456789",
  partnerCallId: "call-1",
  audioRecordingUri: "s3://recordings/call-1.wav",
  locale: "en",
  dtmfSequence: "1",
  callerNumberHash: "9f86d081884c7d65",
  capturedAt: 1_700_000_000_000,
  partnerSignature: "sig",
  purpose: "Marketing",
  dataTypes: ["phone"],
};
const SESSION: OfflineCaptureSession = {
  clientSessionId: "6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f",
  deviceId: "dev_0123456789",
  noticeId: "ntc_0123456789",
  noticeVersion: 1,
  noticeLocale: "en",
  channel: "agent_app",
  capturedAtClient: 1_700_000_000_000,
  deviceSignature: Buffer.alloc(64, 7).toString("base64"),
  dataTypes: ["email"],
  purposeGrants: [
    { purposeKey: "Marketing", purposeLabel: "Marketing", category: "non_essential", status: "opt_in" },
  ],
};

test("each offline call posts its body to its contract route with the API key", async () => {
  const { client, requests } = setup([
    { status: 201, body: { linkId: "olk_1", token: "t1" } },
    { status: 200, body: { results: [{ clientSessionId: SESSION.clientSessionId, status: "verified" }] } },
    { status: 201, body: { requestId: "pos_1", token: "t2", expiresAt: 1 } },
    { status: 201, body: { artifactId: "ivr_1", accepted: true, consentId: "cns_1" } },
  ]);
  assert.deepEqual(await client.createOfflineConsentLink(LINK), { linkId: "olk_1", token: "t1" });
  const synced = await client.syncOfflineCaptures([SESSION]);
  assert.equal(synced.results[0]!.status, "verified");
  assert.equal((await client.createPosConsentRequest(POS)).token, "t2");
  assert.equal((await client.recordIvrConsentArtifact(IVR)).consentId, "cns_1");
  assert.deepEqual(
    requests.map((r) => `${r.method} ${r.url.slice(BASE.length)} ${r.headers.get("authorization")}`),
    [
      "POST /api/v1/offline-consent/links Bearer gk_live_key",
      "POST /api/v1/offline/captures Bearer gk_live_key",
      "POST /api/v1/offline/pos Bearer gk_live_key",
      "POST /api/v1/offline/ivr Bearer gk_live_key",
    ],
  );
  assert.deepEqual(
    requests.map((r) => JSON.parse(r.body!)),
    [LINK, { sessions: [SESSION] }, POS, IVR],
    "bodies are sent as given: sessions pass through exactly as the devices signed them",
  );
});

test("links, POS and IVR are create calls: a minted key per call, the caller's key as given; a sync carries none", async () => {
  const { client, requests } = setup();
  await client.createOfflineConsentLink(LINK);
  await client.createPosConsentRequest(POS);
  await client.recordIvrConsentArtifact(IVR);
  await client.createOfflineConsentLink(LINK, { idempotencyKey: "link-key" });
  await client.syncOfflineCaptures([SESSION]);
  const keys = requests.map((r) => r.headers.get("idempotency-key"));
  for (const key of keys.slice(0, 3)) assert.match(key!, UUID_V4);
  assert.equal(new Set(keys.slice(0, 3)).size, 3);
  assert.equal(keys[3], "link-key");
  assert.equal(keys[4], null);
});

test("a retried create replays its one minted key", async () => {
  const { client, requests, delays } = setup([
    { status: 503 },
    { throws: connectionRefused() },
    { status: 201, body: { requestId: "pos_1", token: "t", expiresAt: 1 } },
  ]);
  await client.createPosConsentRequest(POS);
  const keys = requests.map((r) => r.headers.get("idempotency-key"));
  assert.equal(keys.length, 3);
  assert.equal(new Set(keys).size, 1);
  assert.deepEqual(
    requests.map((r) => r.headers.get("x-guard-retry-count")),
    ["0", "1", "2"],
  );
  assert.deepEqual(delays, [500, 1000]);
});

test("a capture sync is retried without a key: a re-sent clientSessionId returns its first result", async () => {
  const { client, requests } = setup([
    { status: 503 },
    { status: 200, body: { results: [{ clientSessionId: SESSION.clientSessionId, status: "verified" }] } },
  ]);
  await client.syncOfflineCaptures([SESSION]);
  assert.equal(requests.length, 2);
  assert.equal(requests[1]!.body, requests[0]!.body);
});

test("429 is retried after Retry-After; beyond the 60 s cap it surfaces as RATE_LIMITED with the header", async () => {
  const waited = setup([
    { status: 429, headers: { "retry-after": "3" } },
    { status: 201, body: { linkId: "olk_1", token: "t" } },
  ]);
  await waited.client.createOfflineConsentLink(LINK);
  assert.deepEqual(waited.delays, [3000]);

  const { client, requests } = setup([
    { status: 429, headers: { "retry-after": "120" }, body: { code: "RATE_LIMITED", error: "Slow down" } },
  ]);
  const error = await client.recordIvrConsentArtifact(IVR).then(
    () => assert.fail("expected a GuardApiError"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof GuardApiError);
  assert.equal(error.status, 429);
  assert.equal(error.code, "RATE_LIMITED");
  assert.equal(error.headers.get("retry-after"), "120");
  assert.equal(requests.length, 1);
});

test("400 keeps the catalog code and field; 404 (capability off) is NOT_FOUND; neither is retried", async () => {
  const { client, requests } = setup([
    { status: 400, body: { code: "VALIDATION_ERROR", error: "sessions: at most 200", field: "sessions" } },
    { status: 404, body: { code: "NOT_FOUND", error: "Not found" } },
  ]);
  const bad = await client.syncOfflineCaptures([SESSION]).catch((e: unknown) => e);
  assert.ok(bad instanceof GuardApiError);
  assert.equal(bad.code, "VALIDATION_ERROR");
  assert.equal(bad.field, "sessions");
  const off = await client.createPosConsentRequest(POS).catch((e: unknown) => e);
  assert.ok(off instanceof GuardApiError);
  assert.equal(off.code, "NOT_FOUND");
  assert.equal(requests.length, 2);
});

test("without an API key the offline calls fail locally, before any request", async () => {
  const { client, requests } = setup([], null);
  for (const call of [
    () => client.createOfflineConsentLink(LINK),
    () => client.syncOfflineCaptures([SESSION]),
    () => client.createPosConsentRequest(POS),
    () => client.recordIvrConsentArtifact(IVR),
  ]) {
    await assert.rejects(call(), GuardMissingCredentialError);
  }
  assert.equal(requests.length, 0);
});

// ----- dpdpcca/2 vectors -------------------------------------------------------------------------

interface CaptureCase {
  id: string;
  input: { session: CaptureArtifactSession; publicKey?: string; signature?: string };
  canonical?: string;
  canonicalUtf8Hex?: string;
  result: "valid" | "invalid";
  error?: { code: string; field: string };
}
const vectors = JSON.parse(
  fs.readFileSync(new URL("../../../contract/vectors/capture-artifact.json", import.meta.url), "utf8"),
) as {
  numberOfCases: number;
  testKeys: Record<string, { publicKeySpkiBase64: string }>;
  cases: CaptureCase[];
};

test("capture-artifact vectors: the file has the cases it says", () => {
  assert.equal(vectors.cases.length, vectors.numberOfCases);
  assert.equal(CAPTURE_ARTIFACT_FORMAT, "dpdpcca/2");
});

for (const c of vectors.cases) {
  test(`capture-artifact ${c.id}`, () => {
    if (c.error) {
      assert.throws(
        () => canonicalizeCaptureArtifact(c.input.session),
        (error: unknown) =>
          error instanceof CaptureArtifactError &&
          error.code === c.error!.code &&
          error.field === c.error!.field,
      );
      return;
    }
    const canonical = canonicalizeCaptureArtifact(c.input.session);
    assert.equal(canonical, c.canonical);
    assert.equal(Buffer.from(canonical, "utf8").toString("hex"), c.canonicalUtf8Hex);
    const key = vectors.testKeys[c.input.publicKey!]!.publicKeySpkiBase64;
    assert.equal(verifyCaptureSignature(key, canonical, c.input.signature!), c.result === "valid");
  });
}

test("withdrawConsentByToken posts the token with no credential, and is retried (a repeat is idempotent)", async () => {
  const { client, requests } = setup([
    { status: 503 },
    { status: 200, body: { withdrawn: [], alreadyWithdrawn: ["cns_1"] } },
  ]);
  const result = await client.withdrawConsentByToken("wdt_0123456789abcdef0123456789abcdef");
  assert.deepEqual(result.alreadyWithdrawn, ["cns_1"]);
  assert.equal(requests.length, 2);
  for (const request of requests) {
    assert.equal(`${request.method} ${request.url.slice(BASE.length)}`, "POST /api/v1/offline/withdrawals");
    assert.equal(request.headers.get("authorization"), null, "a public route: the API key is not sent");
    assert.equal(request.headers.get("idempotency-key"), null);
    assert.deepEqual(JSON.parse(request.body!), { withdrawalToken: "wdt_0123456789abcdef0123456789abcdef" });
  }
});
