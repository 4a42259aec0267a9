// POST /api/v1/offline/ivr: a telephony partner's artefact is stored immutably; a DTMF sequence
// beginning with 1 gives a consent (source offline_ivr) and a withdrawal token, anything else is a
// stored refusal; partnerCallId makes a resubmission answer the original and write nothing; the
// route is per-key rate-limited and behind offline_async_consent.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { verifyAuditChain } from "../../../src/audit/verify.js";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import type { IvrAnswer } from "../../../src/offline/ivr/artifacts.js";
import { SecretBox } from "../../../src/lib/secret-box.js";
import { spendOfflineBudget, OFFLINE_ROUTE_BUDGET } from "../../../src/offline/routes.js";
import { resolveWithdrawalToken } from "../../../src/offline/withdrawal/tokens.js";
import { assertApiError } from "../../support/api-error.js";
import { insertDraftNotice, publishTestNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  seedOrganization,
  startSecondInstance,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

describe("IVR consent artefacts", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let other: SeededOrg;
  let noticeId: string;
  let calls = 0;

  const artefact = (overrides: Record<string, unknown> = {}) => ({
    noticeId,
    partnerCallId: `call-${++calls}`,
    audioRecordingUri: `https://recordings.partner.example/${calls}.wav`,
    transcript: "Press 1 to agree. [1]",
    locale: "en",
    dtmfSequence: "1",
    callerNumberHash: "sha256:9f86d081884c7d659a2feaa0c55ad015",
    capturedAt: t.clock.now() - 60_000,
    partnerSignature: "partner-sig-v1:abc123==",
    purpose: "Marketing",
    dataTypes: ["phone"],
    ...overrides,
  });
  const submit = (
    body: Record<string, unknown>,
    seeded = acme,
    headers: Record<string, string> = {},
    app = t,
  ) =>
    app.request({
      method: "POST",
      url: "/api/v1/offline/ivr",
      headers: { ...bearer(seeded.apiKey), ...headers },
      payload: body,
    });
  const count = async (table: string, seeded = acme) => {
    const [row] = await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`,
      [seeded.org.organizationId],
    );
    return row!.n;
  };
  const auditEntries = (subjectId: string) =>
    t.db.query<{ entry_type: string; payload: string }>(
      `SELECT entry_type, payload FROM audit_queue WHERE subject_id = $1
       UNION ALL SELECT entry_type, payload FROM audit_entries WHERE subject_id = $1`,
      [subjectId],
    );
  /** Row counts of everything a submission may write. */
  const footprint = async (seeded = acme) => ({
    artefacts: await count("ivr_consent_artifacts", seeded),
    consents: await count("consents", seeded),
    events: await count("consent_events", seeded),
    tokens: await count("withdrawal_tokens", seeded),
    webhooks: await count("webhook_events", seeded),
    audit: (await count("audit_queue", seeded)) + (await count("audit_entries", seeded)),
  });

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    other = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
  });
  after(() => t.close());

  test("a sequence beginning with 1 gives a consent (source offline_ivr) and a withdrawal token", async () => {
    t.clock.advance(1_000);
    const body = artefact({ dtmfSequence: "1#" });
    const res = await submit(body);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers["idempotent-replayed"], undefined);
    const answer = res.json() as IvrAnswer;
    assert.equal(answer.accepted, true);
    assert.match(answer.artifactId, /^ivr_[0-9A-Za-z]{20}$/);
    assert.match(answer.withdrawalToken ?? "", /^wdt_[0-9A-Za-z]{32}$/);

    const [consent] = await t.db.query<Record<string, unknown>>(
      "SELECT source, anonymous_id, given_at, notice_id, notice_version, purpose, withdrawn_at FROM consents WHERE consent_id = $1",
      [answer.consentId],
    );
    assert.deepEqual(consent, {
      source: "offline_ivr",
      anonymous_id: `ivr:${answer.artifactId}`,
      given_at: t.clock.now(),
      notice_id: noticeId,
      notice_version: 1,
      purpose: "Marketing",
      withdrawn_at: null,
    });
    // The consent reads back through the consent API with its source.
    const read = await t.request({
      method: "GET",
      url: `/cm/v1/consent/${answer.consentId}`,
      headers: bearer(acme.apiKey),
    });
    assert.equal(read.statusCode, 200, read.body);
    assert.equal(read.json().source, "offline_ivr");

    // The token withdraws exactly this consent.
    assert.deepEqual(await resolveWithdrawalToken(t.db, answer.withdrawalToken!), {
      organizationId: acme.org.organizationId,
      consentIds: [answer.consentId],
    });

    // The artefact is stored as received; the token only sealed.
    const [row] = await t.db.query<Record<string, unknown>>(
      "SELECT * FROM ivr_consent_artifacts WHERE artifact_id = $1",
      [answer.artifactId],
    );
    assert.ok(row);
    assert.equal(row.partner_call_id, body.partnerCallId);
    assert.equal(row.notice_version, 1);
    assert.equal(row.locale, "en");
    assert.deepEqual(row.data_types, ["phone"]);
    assert.equal(row.dtmf_sequence, "1#");
    assert.equal(row.caller_number_hash, body.callerNumberHash);
    assert.equal(row.audio_recording_uri, body.audioRecordingUri);
    assert.equal(row.transcript, body.transcript);
    assert.equal(row.partner_signature, body.partnerSignature);
    assert.equal(row.captured_at, body.capturedAt);
    assert.equal(row.received_at, t.clock.now());
    assert.equal(row.accepted, true);
    assert.equal(row.consent_id, answer.consentId);
    assert.equal(row.received_by, acme.apiKeyId);
    assert.ok(typeof row.withdrawal_token_sealed === "string");
    assert.ok(!String(row.withdrawal_token_sealed).includes(answer.withdrawalToken!.slice(4)));

    // One chain entry for the artefact (and the consent's own).
    const entries = await auditEntries(answer.artifactId);
    assert.equal(entries.length, 1);
    assert.equal(entries[0]!.entry_type, "offline_ivr.recorded");
    const payload = JSON.parse(entries[0]!.payload) as Record<string, unknown>;
    assert.equal(payload.artifactId, answer.artifactId);
    assert.equal(payload.partnerCallId, body.partnerCallId);
    assert.equal(payload.accepted, true);
    assert.equal(payload.consentId, answer.consentId);
    // A consent.given webhook event, as for any consent.
    const [given] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_events WHERE event_type = 'consent.given' AND payload->>'consentId' = $1",
      [answer.consentId],
    );
    assert.equal(given!.n, 1);
  });

  test("anything else is a refusal: the artefact is stored, with no consent and no token", async () => {
    for (const dtmfSequence of ["2", "0", "#", "21", "*1"]) {
      const before = await footprint();
      const body = artefact({ dtmfSequence });
      const res = await submit(body);
      assert.equal(res.statusCode, 201, res.body);
      const answer = res.json() as IvrAnswer;
      assert.equal(answer.accepted, false, dtmfSequence);
      assert.equal(answer.consentId, null);
      assert.equal(answer.withdrawalToken, undefined);
      const [row] = await t.db.query<Record<string, unknown>>(
        "SELECT accepted, consent_id, withdrawal_token_sealed, dtmf_sequence FROM ivr_consent_artifacts WHERE artifact_id = $1",
        [answer.artifactId],
      );
      assert.deepEqual(row, {
        accepted: false,
        consent_id: null,
        withdrawal_token_sealed: null,
        dtmf_sequence: dtmfSequence,
      });
      const afterwards = await footprint();
      assert.deepEqual(afterwards, { ...before, artefacts: before.artefacts + 1, audit: before.audit + 1 });
      const [entry] = await auditEntries(answer.artifactId);
      assert.equal(JSON.parse(entry!.payload).accepted, false);
    }
  });

  test("a resubmission answers the original (token included), marked replayed, and writes nothing", async () => {
    const body = artefact();
    const first = await submit(body);
    assert.equal(first.statusCode, 201, first.body);
    const before = await footprint();
    t.clock.advance(5_000);
    for (let attempt = 0; attempt < 2; attempt++) {
      const again = await submit(body);
      assert.equal(again.statusCode, 201, again.body);
      assert.equal(again.headers["idempotent-replayed"], "true");
      assert.deepEqual(again.json(), first.json());
    }
    assert.deepEqual(await footprint(), before);

    // A refusal resubmitted answers the refusal.
    const refusal = artefact({ dtmfSequence: "9" });
    const refused = await submit(refusal);
    const replay = await submit(refusal);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.deepEqual(replay.json(), refused.json());
  });

  test("a field the contract does not define is not stored and does not count: verify stays intact, a retry without it replays", async () => {
    const body = artefact();
    const first = await submit({ ...body, partnerMeta: "queue-7" });
    assert.equal(first.statusCode, 201, first.body);
    const retry = await submit(body);
    assert.equal(retry.statusCode, 201, retry.body);
    assert.equal(retry.headers["idempotent-replayed"], "true");
    assert.deepEqual(retry.json(), first.json());
    const report = await verifyAuditChain(t.db, acme.org.organizationId, t.config.auditKeys);
    assert.deepEqual(report.problems, []);
    assert.equal(report.intact, true);
  });

  test("a token sealed under a replaced secrets key: the resubmission answers without it", async () => {
    const body = artefact();
    const first = (await submit(body)).json() as IvrAnswer;
    const foreign = new SecretBox("another-deployment-secrets-key-0123456789").seal(
      first.withdrawalToken!,
      "x",
    );
    await t.db.query("UPDATE ivr_consent_artifacts SET withdrawal_token_sealed = $2 WHERE artifact_id = $1", [
      first.artifactId,
      foreign,
    ]);
    const again = await submit(body);
    assert.equal(again.statusCode, 201, again.body);
    const { withdrawalToken: _token, ...rest } = first;
    assert.deepEqual(again.json(), rest);
  });

  test("a resubmission still answers after the notice changed; the artefact keeps its version", async () => {
    const key = "ivr-versioned";
    const v1 = await publishTestNotice(t, acme, { key, title: "v1" });
    const body = artefact({ noticeId: v1.noticeId });
    const first = await submit(body);
    assert.equal(first.statusCode, 201, first.body);
    const v2 = await publishTestNotice(t, acme, { key, title: "v2" });
    assert.equal(v2.version, 2);
    const again = await submit(body);
    assert.equal(again.statusCode, 201, again.body);
    assert.deepEqual(again.json(), first.json());
    const fresh = await submit(artefact({ noticeId: v1.noticeId }));
    const [row] = await t.db.query<{ notice_version: number }>(
      "SELECT notice_version FROM ivr_consent_artifacts WHERE artifact_id = $1",
      [(fresh.json() as IvrAnswer).artifactId],
    );
    assert.equal(row!.notice_version, 2);
  });

  test("the same partnerCallId with another body is 409 CONFLICT and writes nothing", async () => {
    const body = artefact();
    assert.equal((await submit(body)).statusCode, 201);
    const before = await footprint();
    for (const change of [
      { dtmfSequence: "2" },
      { transcript: "something else" },
      { audioRecordingUri: "https://recordings.partner.example/other.wav" },
      { purpose: "Newsletter" },
    ]) {
      assertApiError(await submit({ ...body, ...change }), 409, "CONFLICT", { field: "partnerCallId" });
    }
    assert.deepEqual(await footprint(), before);
    // Another organisation's call ids are its own.
    const otherNotice = (await publishTestNotice(t, other)).noticeId;
    const elsewhere = await submit({ ...body, noticeId: otherNotice }, other);
    assert.equal(elsewhere.statusCode, 201, elsewhere.body);
    assert.equal(elsewhere.headers["idempotent-replayed"], undefined);
  });

  test("concurrent duplicates of one call store one artefact and one consent", async () => {
    const second = await startSecondInstance(t);
    try {
      const body = artefact();
      const before = await footprint();
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => submit(body, acme, {}, i % 2 === 0 ? t : second)),
      );
      for (const res of answers) assert.equal(res.statusCode, 201, res.body);
      const bodies = answers.map((res) => res.json() as IvrAnswer);
      assert.equal(new Set(bodies.map((b) => b.artifactId)).size, 1);
      assert.equal(new Set(bodies.map((b) => b.consentId)).size, 1);
      assert.equal(new Set(bodies.map((b) => b.withdrawalToken)).size, 1);
      assert.equal(answers.filter((res) => res.headers["idempotent-replayed"] === "true").length, 7);
      const afterwards = await footprint();
      assert.equal(afterwards.artefacts, before.artefacts + 1);
      assert.equal(afterwards.consents, before.consents + 1);
      assert.equal(afterwards.tokens, before.tokens + 1);
      assert.equal(afterwards.webhooks, before.webhooks + 1);
    } finally {
      await second.close();
    }
  });

  test("an Idempotency-Key replays its answer; the key with another body is 409", async () => {
    const body = artefact();
    const first = await submit(body, acme, { "idempotency-key": "ivr-key-1" });
    assert.equal(first.statusCode, 201, first.body);
    const again = await submit(body, acme, { "idempotency-key": "ivr-key-1" });
    assert.equal(again.statusCode, 201);
    assert.equal(again.headers["idempotent-replayed"], "true");
    assert.deepEqual(again.json(), first.json());
    assertApiError(await submit(artefact(), acme, { "idempotency-key": "ivr-key-1" }), 409, "CONFLICT");
  });

  test("a locale the notice has no content for is 400 naming locale; a regional tag of one it has is fine", async () => {
    const before = await footprint();
    const res = assertApiError(await submit(artefact({ locale: "fr" })), 400, "VALIDATION_ERROR", {
      field: "locale",
    });
    assert.match(res.error, /fr.*\(en\)/);
    assertApiError(await submit(artefact({ locale: "hi-IN" })), 400, "VALIDATION_ERROR", { field: "locale" });
    assert.deepEqual(await footprint(), before);
    const regional = await submit(artefact({ locale: "en-IN" }));
    assert.equal(regional.statusCode, 201, regional.body);
    const [row] = await t.db.query<{ locale: string }>(
      "SELECT locale FROM ivr_consent_artifacts WHERE artifact_id = $1",
      [(regional.json() as IvrAnswer).artifactId],
    );
    assert.equal(row!.locale, "en-IN");
  });

  test("an unpublished notice is 400 NOTICE_NOT_PUBLISHED; another organisation's is 404; purpose must be itemised", async () => {
    const before = await footprint();
    const draft = await insertDraftNotice(t, acme);
    assertApiError(await submit(artefact({ noticeId: draft })), 400, "NOTICE_NOT_PUBLISHED");
    const foreign = (await publishTestNotice(t, other, { key: "foreign" })).noticeId;
    assertApiError(await submit(artefact({ noticeId: foreign })), 404, "NOT_FOUND");
    assertApiError(await submit(artefact({ noticeId: "ntc_00000000000000000000" })), 404, "NOT_FOUND");
    assertApiError(await submit(artefact({ purpose: "Unlisted" })), 400, "VALIDATION_ERROR", {
      field: "purpose",
    });
    assert.deepEqual(await footprint(), before);
  });

  test("malformed artefacts are 400 naming the field", async () => {
    const { audioRecordingUri: _omitted, ...noRecording } = artefact();
    for (const [field, body] of [
      ["audioRecordingUri", noRecording],
      ["dtmfSequence", artefact({ dtmfSequence: "" })],
      ["capturedAt", artefact({ capturedAt: -1 })],
      ["dataTypes", artefact({ dataTypes: [] })],
    ] as const) {
      const res = assertApiError(await submit(body), 400, "VALIDATION_ERROR");
      assert.match(String(res.field), new RegExp(field));
    }
    assertApiError(
      await t.request({ method: "POST", url: "/api/v1/offline/ivr", payload: artefact() }),
      401,
      "UNAUTHORIZED",
    );
  });

  test("each API key has its own budget: past it, 429 with Retry-After", async () => {
    const otherNotice = (await publishTestNotice(t, other, { key: "budget" })).noticeId;
    // Spend what is left of the other organisation's key budget in this window (it was used above).
    const credential = { organizationId: other.org.organizationId, apiKeyId: other.apiKeyId };
    let spent = 0;
    assert.throws(() => {
      for (; spent <= OFFLINE_ROUTE_BUDGET.limit; spent++)
        spendOfflineBudget(credential, "ivr", t.clock.now());
    }, /Too many requests/);
    assert.ok(spent > 0);
    const before = await footprint(other);
    const res = assertApiError(await submit(artefact({ noticeId: otherNotice }), other), 429, "RATE_LIMITED");
    assert.ok(res);
    const again = await submit(artefact({ noticeId: otherNotice }), other);
    assert.equal(again.statusCode, 429);
    assert.ok(Number(again.headers["retry-after"]) >= 1);
    assert.deepEqual(await footprint(other), before);
    // Another key is unaffected.
    assert.equal((await submit(artefact())).statusCode, 201);
    // The next window admits the key again.
    t.clock.advance(OFFLINE_ROUTE_BUDGET.windowMs);
    const admitted = await submit(artefact({ noticeId: otherNotice }), other);
    assert.equal(admitted.statusCode, 201, admitted.body);
  });

  test("with offline_async_consent switched off the route answers 404 and stores nothing", async () => {
    await t.db.transaction((tx) =>
      setCapabilities(tx, acme.org.organizationId, { offline_async_consent: false }),
    );
    try {
      const before = await footprint();
      assertApiError(await submit(artefact()), 404, "NOT_FOUND");
      assert.deepEqual(await footprint(), before);
    } finally {
      await t.db.transaction((tx) =>
        setCapabilities(tx, acme.org.organizationId, { offline_async_consent: true }),
      );
    }
    assert.equal((await submit(artefact())).statusCode, 201);
  });
});
