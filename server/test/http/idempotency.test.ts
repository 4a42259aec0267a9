// Idempotency-Key (CONTRACT.md): replays within 24 hours return the original status and body and
// create nothing; another body with the same key is 409 CONFLICT; concurrent first requests with
// one key create exactly one record (the database decides, so this holds across instances too).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { createApiKey } from "../../src/accounts/api-keys.js";
import { IDEMPOTENCY_WINDOW_MS } from "../../src/http/idempotency.js";
import { purgeAllExpiredKeys, startIdempotencyPurge } from "../../src/http/idempotency-purge.js";
import { canonicalJson } from "../../src/lib/canonical-json.js";
import { newId } from "../../src/lib/ids.js";
import { assertApiError } from "../support/api-error.js";
import {
  anonymousConsent,
  countRows,
  principal,
  publishTestNotice,
  recordConsent,
} from "../support/consent-fixtures.js";
import { bearer, seedOrganization, startTestApp, type SeededOrg, type TestApp } from "../support/harness.js";

describe("Idempotency-Key", () => {
  let t: TestApp;
  let acme: SeededOrg;
  let noticeId: string;

  before(async () => {
    t = await startTestApp();
    acme = await seedOrganization(t);
    noticeId = (await publishTestNotice(t, acme)).noticeId;
    await principal(t, acme, "idem-user", "idem@example.com");
  });
  after(() => t.close());

  const guestBody = (anonymousId: string, purpose = "Account") => ({
    organizationId: acme.org.organizationId,
    noticeId,
    purpose,
    dataTypes: ["email"],
    anonymousId,
  });

  /** A fresh organisation with a published notice, and a guest body for it (keys counted elsewhere stay apart). */
  async function ownOrganization() {
    const seeded = await seedOrganization(t);
    const notice = (await publishTestNotice(t, seeded)).noticeId;
    return {
      seeded,
      body: (anonymousId: string) => ({
        organizationId: seeded.org.organizationId,
        noticeId: notice,
        purpose: "Account",
        dataTypes: ["email"],
        anonymousId,
      }),
    };
  }

  test("what is kept cannot be read back: a keyed request fingerprint and a sealed answer", async () => {
    const { seeded, body: guestBody } = await ownOrganization();
    const body = guestBody("guest-kept-safely");
    const first = await anonymousConsent(t, body, { "idempotency-key": "kept-safely" });
    assert.equal(first.statusCode, 201, first.body);
    const [row] = await t.db.query<{ request_hash: string; response_body: string }>(
      `SELECT request_hash, response_body FROM idempotency_keys
        WHERE organization_id = $1 AND idempotency_key = 'kept-safely'`,
      [seeded.org.organizationId],
    );
    const plainHash = createHash("sha256")
      .update(canonicalJson({ params: {}, query: {}, body }), "utf8")
      .digest("hex");
    assert.match(row!.request_hash, /^k1:[0-9a-f]{64}$/);
    assert.ok(!row!.request_hash.includes(plainHash), "not the plain SHA-256 of the request");
    assert.ok(
      !row!.response_body.includes(first.json<{ consentId: string }>().consentId),
      "the answer is sealed",
    );
    const replay = await anonymousConsent(t, body, { "idempotency-key": "kept-safely" });
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body, first.body);
    // The sealed answer opens only in its own row: copied onto another key's row, it is refused.
    const moved = await anonymousConsent(t, guestBody("guest-kept-safely-2"), {
      "idempotency-key": "kept-2",
    });
    assert.equal(moved.statusCode, 201);
    await t.db.query(
      `UPDATE idempotency_keys SET response_body = $2
        WHERE organization_id = $1 AND idempotency_key = 'kept-2'`,
      [seeded.org.organizationId, row!.response_body],
    );
    const broken = await anonymousConsent(t, guestBody("guest-kept-safely-2"), {
      "idempotency-key": "kept-2",
    });
    assert.equal(broken.statusCode, 500);
  });

  test("a key stored before fingerprints were keyed (plain SHA-256, plain answer) still replays", async () => {
    const { seeded, body: guestBody } = await ownOrganization();
    const body = guestBody("guest-legacy-row");
    const legacyAnswer = JSON.stringify({
      consentId: "cns_legacy0000000000000000",
      purpose: "Account",
      dataTypes: ["email"],
      givenAt: t.clock.now(),
    });
    await t.db.query(
      `INSERT INTO idempotency_keys (organization_id, credential_id, operation_id, idempotency_key,
                                     request_hash, response_status, response_body, created_at)
       VALUES ($1, 'anonymous', 'giveConsentAnonymous', 'legacy-key', $2, 201, $3, $4)`,
      [
        seeded.org.organizationId,
        createHash("sha256")
          .update(canonicalJson({ params: {}, query: {}, body }), "utf8")
          .digest("hex"),
        legacyAnswer,
        t.clock.now(),
      ],
    );
    const replay = await anonymousConsent(t, body, { "idempotency-key": "legacy-key" });
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body, legacyAnswer);
    const other = await anonymousConsent(t, guestBody("someone-else"), { "idempotency-key": "legacy-key" });
    assertApiError(other, 409, "CONFLICT");
  });

  test("ten concurrent first requests with one key create one consent and all get its body", async () => {
    const before = await countRows(t, "consents", acme.org.organizationId);
    const headers = { "idempotency-key": "concurrent-anon" };
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => anonymousConsent(t, guestBody("guest-concurrent"), headers)),
    );
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    const bodies = new Set(responses.map((r) => r.body));
    assert.equal(bodies.size, 1, "every answer is the same body");
    const originals = responses.filter((r) => r.headers["idempotent-replayed"] === undefined);
    assert.equal(originals.length, 1, "exactly one answer is the original");
    for (const res of responses.filter((r) => r !== originals[0])) {
      assert.equal(res.headers["idempotent-replayed"], "true");
    }
    assert.equal(await countRows(t, "consents", acme.org.organizationId), before + 1);
    assert.equal(await countRows(t, "idempotency_keys", acme.org.organizationId), 1);
    const events = await t.db.query(
      "SELECT 1 FROM consent_events WHERE organization_id = $1 AND consent_id = $2",
      [acme.org.organizationId, responses[0]!.json().consentId],
    );
    assert.equal(events.length, 1, "one given event, one audit entry");
  });

  test("ten concurrent /cm/v1 records with one key create one consent", async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () =>
        recordConsent(
          t,
          acme,
          { email: "idem@example.com", noticeId, purpose: "Newsletter", dataTypes: ["email"] },
          { "idempotency-key": "concurrent-cm" },
        ),
      ),
    );
    for (const res of responses) assert.equal(res.statusCode, 201, res.body);
    assert.equal(new Set(responses.map((r) => r.json().consentId)).size, 1);
    assert.equal(responses.filter((r) => r.headers["idempotent-replayed"] === "true").length, 9);
  });

  test("without a key, concurrent duplicates still make one consent: the rest are ALREADY_CONSENTED", async () => {
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => anonymousConsent(t, guestBody("guest-race", "Newsletter"))),
    );
    assert.equal(responses.filter((r) => r.statusCode === 201).length, 1);
    for (const res of responses.filter((r) => r.statusCode !== 201)) {
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().code, "ALREADY_CONSENTED");
    }
  });

  test("concurrent requests with one key and different bodies: one wins, the others are 409", async () => {
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        anonymousConsent(t, guestBody(`guest-diff-${i}`), { "idempotency-key": "concurrent-different" }),
      ),
    );
    assert.equal(responses.filter((r) => r.statusCode === 201).length, 1);
    for (const res of responses.filter((r) => r.statusCode !== 201)) assertApiError(res, 409, "CONFLICT");
  });

  test("a burst of stored keys, new keys and a changed body, looked up together: each gets its own answer", async () => {
    const { seeded, body } = await ownOrganization();
    const firsts = [];
    for (let i = 0; i < 6; i++) {
      const res = await anonymousConsent(t, body(`burst-${i}`), { "idempotency-key": `burst-${i}` });
      assert.equal(res.statusCode, 201, res.body);
      firsts.push(res);
    }
    const answers = await Promise.all([
      ...firsts.map((_, i) => anonymousConsent(t, body(`burst-${i}`), { "idempotency-key": `burst-${i}` })),
      anonymousConsent(t, body("burst-new"), { "idempotency-key": "burst-new" }),
      anonymousConsent(t, body("burst-changed"), { "idempotency-key": "burst-2" }),
    ]);
    for (const [i, res] of answers.slice(0, 6).entries()) {
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.headers["idempotent-replayed"], "true");
      assert.equal(res.body, firsts[i]!.body, `key burst-${i} replays its own answer`);
    }
    assert.equal(answers[6]!.statusCode, 201, answers[6]!.body);
    assert.equal(answers[6]!.headers["idempotent-replayed"], undefined);
    assertApiError(answers[7]!, 409, "CONFLICT");
    assert.equal(await countRows(t, "consents", seeded.org.organizationId), 7);
  });

  test("a key is scoped by credential, organisation and operation", async () => {
    const secondKey = await createApiKey(
      t.db,
      { organizationId: acme.org.organizationId, name: "second", createdBy: null },
      t.clock.now(),
    );
    await principal(t, acme, "idem-user-2", "idem2@example.com");
    const body = { email: "idem2@example.com", noticeId, purpose: "Account", dataTypes: ["email"] };
    const first = await recordConsent(t, acme, body, { "idempotency-key": "shared-key" });
    assert.equal(first.statusCode, 201);
    // The same key under another API key is a different scope: evaluated afresh (already consented).
    const other = await t.request({
      method: "POST",
      url: "/cm/v1/consent",
      headers: { ...bearer(secondKey.key), "idempotency-key": "shared-key" },
      payload: body,
    });
    assert.equal(other.statusCode, 409);
    assert.equal(other.json().code, "ALREADY_CONSENTED");
    // The same key on another operation is a different scope too.
    const signal = await t.request({
      method: "POST",
      url: "/api/v1/cm/signal",
      headers: { ...bearer(acme.apiKey), "idempotency-key": "shared-key" },
      payload: {
        cmRegistryId: "cm-1",
        cmName: "CM One",
        principalTokenFromCm: "tok",
        purposes: ["Account"],
        signalType: "consent_given",
      },
    });
    assert.equal(signal.statusCode, 201);
    assert.equal(signal.headers["idempotent-replayed"], undefined);
    // And the anonymous route's keys are scoped by the body's organisation.
    const otherOrg = await seedOrganization(t);
    const otherNotice = await publishTestNotice(t, otherOrg);
    const anonHere = await anonymousConsent(t, guestBody("guest-scope"), { "idempotency-key": "org-scoped" });
    const anonThere = await anonymousConsent(
      t,
      {
        ...guestBody("guest-scope"),
        organizationId: otherOrg.org.organizationId,
        noticeId: otherNotice.noticeId,
      },
      { "idempotency-key": "org-scoped" },
    );
    assert.equal(anonHere.statusCode, 201);
    assert.equal(anonThere.statusCode, 201);
    assert.notEqual(anonHere.json().consentId, anonThere.json().consentId);
  });

  test("an error answer is not stored: a retry with the key is evaluated afresh", async () => {
    const headers = { "idempotency-key": "retry-after-error" };
    const body = { email: "idem@example.com", noticeId, purpose: "Newsletter", dataTypes: ["email"] };
    const refused = await recordConsent(t, acme, body, headers);
    assert.equal(refused.json().code, "ALREADY_CONSENTED");
    const [held] = await t.db.query<{ consent_id: string }>(
      "SELECT consent_id FROM consents WHERE organization_id = $1 AND purpose = 'Newsletter' AND withdrawn_at IS NULL AND principal_id IS NOT NULL",
      [acme.org.organizationId],
    );
    await t.request({
      method: "DELETE",
      url: `/cm/v1/consent/${held!.consent_id}`,
      headers: bearer(acme.apiKey),
    });
    const retried = await recordConsent(t, acme, body, headers);
    assert.equal(retried.statusCode, 201);
    assert.equal(retried.headers["idempotent-replayed"], undefined);
  });

  test("replays last 24 hours; after that the key may be used again", async () => {
    const headers = { "idempotency-key": "day-old" };
    const first = await anonymousConsent(t, guestBody("guest-day"), headers);
    assert.equal(first.statusCode, 201);
    t.clock.advance(24 * 3_600_000 - 1);
    const replay = await anonymousConsent(t, guestBody("guest-day"), headers);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assertApiError(await anonymousConsent(t, guestBody("guest-day-2"), headers), 409, "CONFLICT");
    t.clock.advance(1);
    const fresh = await anonymousConsent(t, guestBody("guest-day-2"), headers);
    assert.equal(fresh.statusCode, 201);
    assert.equal(fresh.headers["idempotent-replayed"], undefined);
    assert.notEqual(fresh.json().consentId, first.json().consentId);
  });

  /** Stored keys of a fresh organisation: `expired` past their window at the clock's now, `live` not. */
  async function insertKeys(expired: number, live: number): Promise<string> {
    const organizationId = newId("org");
    const now = t.clock.now();
    for (let i = 0; i < expired + live; i++) {
      await t.db.query(
        `INSERT INTO idempotency_keys (organization_id, credential_id, operation_id, idempotency_key,
                                       request_hash, response_status, response_body, created_at)
         VALUES ($1, 'anonymous', 'giveConsentAnonymous', $2, 'h', 201, '{}', $3)`,
        [organizationId, `k${i}`, i < expired ? now - IDEMPOTENCY_WINDOW_MS - i : now - i],
      );
    }
    return organizationId;
  }

  async function keysOf(organizationId: string): Promise<string[]> {
    const found = await t.db.query<{ idempotency_key: string }>(
      "SELECT idempotency_key FROM idempotency_keys WHERE organization_id = $1 ORDER BY idempotency_key",
      [organizationId],
    );
    return found.map((row) => row.idempotency_key);
  }

  test("requests never delete expired keys, however the dice fall", async (ctx) => {
    const organizationId = await insertKeys(3, 0);
    // The old in-request sweep ran when Math.random() < 0.01: with 0 every request would have swept.
    ctx.mock.method(Math, "random", () => 0);
    for (let i = 0; i < 3; i++) {
      const res = await anonymousConsent(t, guestBody(`guest-no-sweep-${i}`), {
        "idempotency-key": `ns-${i}`,
      });
      assert.equal(res.statusCode, 201, res.body);
    }
    assert.deepEqual(await keysOf(organizationId), ["k0", "k1", "k2"]);
  });

  test("the purge deletes every expired key in bounded batches and keeps the live ones", async () => {
    const organizationId = await insertKeys(5, 2);
    const purged = await purgeAllExpiredKeys(t.db, t.clock.now(), 2);
    assert.ok(purged >= 5, `purged ${purged}`);
    assert.deepEqual(await keysOf(organizationId), ["k5", "k6"]);
    assert.equal(await purgeAllExpiredKeys(t.db, t.clock.now(), 2), 0, "nothing left to purge");
    // A live key still replays after the purge.
    const headers = { "idempotency-key": "survives-purge" };
    const first = await anonymousConsent(t, guestBody("guest-purge"), headers);
    await purgeAllExpiredKeys(t.db, t.clock.now(), 2);
    const replay = await anonymousConsent(t, guestBody("guest-purge"), headers);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.json().consentId, first.json().consentId);
  });

  test("purges running at once (two instances) share the work: each key deleted once, none left", async () => {
    const organizationId = await insertKeys(40, 1);
    const now = t.clock.now();
    const [one, two] = await Promise.all([
      purgeAllExpiredKeys(t.db, now, 3),
      purgeAllExpiredKeys(t.db, now, 3),
    ]);
    assert.ok(one + two >= 40, `purged ${one} + ${two}`);
    assert.deepEqual(await keysOf(organizationId), ["k40"]);
  });

  test("the background job purges at start and then on its interval, and stops cleanly", async () => {
    const first = await insertKeys(2, 1);
    const job = startIdempotencyPurge({ db: t.db, clock: t.clock, intervalMs: 20 });
    try {
      const deadline = Date.now() + 5_000;
      while ((await keysOf(first)).length > 1 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual(await keysOf(first), ["k2"], "purged on start");
      const second = await insertKeys(2, 0);
      while ((await keysOf(second)).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual(await keysOf(second), [], "purged on a later run");
    } finally {
      await job.stop();
    }
    const afterStop = await insertKeys(1, 0);
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.deepEqual(await keysOf(afterStop), ["k0"], "a stopped job purges nothing");
  });
});
