// POST /api/v1/offline/captures (issue 26 item 2) and the quarantine review: sessions signed in the
// test with fresh P-256 keys; every reason; replays answer the first result and write nothing;
// mixed batches; malformed requests are 400 naming the field; a revocation between or during
// batches; concurrent re-syncs give one consent per purpose; a phone number is never stored; staff
// release and reject; the quarantined webhook event; the per-key budget.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../../../src/audit/sequencer.js";
import { phoneHash } from "../../../src/offline/phone-hash.js";
import { resolveWithdrawalToken } from "../../../src/offline/withdrawal/tokens.js";
import type { CaptureSessionInput } from "../../../src/offline/captures/captures.js";
import { assertApiError } from "../../support/api-error.js";
import { publishTestNotice, insertDraftNotice } from "../../support/consent-fixtures.js";
import {
  bearer,
  engine,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";
import {
  insertTestDevice,
  revokeTestDevice,
  sessionFor,
  sign,
  type TestDevice,
  type UnsignedSession,
} from "./support.js";

const SYNC = "/api/v1/offline/captures";
const REVIEW = "/api/v1/staff/offline/captures";
const DAY = 24 * 3_600_000;

type Result = {
  clientSessionId: string;
  status: string;
  reason?: string;
  consentId?: string;
  consentIds?: string[];
  withdrawalToken?: string;
};

describe("offline captures", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let notice: { noticeId: string; version: number };
  let noticeB: { noticeId: string; version: number };
  let device: TestDevice;
  let deviceB: TestDevice;
  let dpoA: Record<string, string>;
  let viewerA: Record<string, string>;
  let adminB: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    notice = await publishTestNotice(t, a);
    noticeB = await publishTestNotice(t, b);
    device = await insertTestDevice(t, a.org.organizationId);
    deviceB = await insertTestDevice(t, b.org.organizationId);
    dpoA = (await signIn(t, a, "dpo")).headers;
    viewerA = (await signIn(t, a, "viewer")).headers;
    adminB = (await signIn(t, b, "admin")).headers;
  });
  after(() => t.close());

  const sync = (sessions: unknown[], seeded = a) =>
    t.request({ method: "POST", url: SYNC, headers: bearer(seeded.apiKey), payload: { sessions } });

  async function syncOk(sessions: unknown[], seeded = a): Promise<Result[]> {
    const res = await sync(sessions, seeded);
    assert.equal(res.statusCode, 200, res.body);
    const { results } = res.json() as { results: Result[] };
    assert.equal(results.length, sessions.length);
    return results;
  }

  /** A session that cannot be canonicalised, so cannot be signed: it carries another's signature. */
  const unsignable = (overrides: Partial<UnsignedSession>): CaptureSessionInput => ({
    ...sessionFor(device, notice, t.clock.now(), overrides),
    deviceSignature: session().deviceSignature,
  });

  const session = (overrides: Partial<UnsignedSession> = {}) =>
    sign(device, sessionFor(device, notice, t.clock.now(), overrides));

  /** Row counts of org A in the tables a sync writes. */
  /**
   * Runs `statement` in a transaction of its own and keeps it open, holding the row locks it took,
   * until `commit()` (PostgreSQL only: the embedded database has one connection).
   */
  async function holdRowLocks(
    statement: string,
    params: unknown[],
  ): Promise<{ commit: () => Promise<void> }> {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let ran!: () => void;
    const holding = new Promise<void>((resolve) => (ran = resolve));
    const transaction = t.db.transaction(async (tx) => {
      await tx.query(statement, params);
      ran();
      await gate;
    });
    await Promise.race([holding, transaction]);
    return {
      commit: async () => {
        release();
        await transaction;
      },
    };
  }

  /** Resolves once `n` sessions of this database wait on a row lock in a statement reading offline_devices. */
  async function deviceRowWaiters(n: number): Promise<void> {
    for (const deadline = Date.now() + 10_000; Date.now() < deadline;) {
      const [row] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%offline_devices%'`,
      );
      if (row!.n >= n) return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`fewer than ${n} sessions waited on the device row within 10 s`);
  }

  async function counts(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const table of [
      "offline_capture_sessions",
      "consents",
      "consent_events",
      "withdrawal_tokens",
      "webhook_events",
      "audit_queue",
      "audit_entries",
    ]) {
      const [row] = await t.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE organization_id = $1`,
        [a.org.organizationId],
      );
      out[table] = row!.n;
    }
    // The sequencer moves entries from the queue to the chain: their sum is what was written.
    out.audit = out.audit_queue! + out.audit_entries!;
    delete out.audit_queue;
    delete out.audit_entries;
    return out;
  }

  async function storedRow(clientSessionId: string, organizationId = a.org.organizationId) {
    const [row] = await t.db.query<Record<string, unknown>>(
      "SELECT * FROM offline_capture_sessions WHERE organization_id = $1 AND client_session_id = $2",
      [organizationId, clientSessionId],
    );
    assert.ok(row, `session ${clientSessionId} is stored`);
    return row;
  }

  async function chainEntries(entryType: string) {
    await linkQueuedOf(t.db, a.org.organizationId, t.clock.now());
    const rows = await t.db.query<{ subject_id: string; payload: string }>(
      "SELECT subject_id, payload FROM audit_entries WHERE organization_id = $1 AND entry_type = $2 ORDER BY seq",
      [a.org.organizationId, entryType],
    );
    return rows.map((r) => ({
      subjectId: r.subject_id,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
    }));
  }

  test("a verified session gives one offline consent per opt_in purpose and one withdrawal token", async () => {
    const s = session();
    const [result] = await syncOk([s]);
    assert.equal(result!.status, "verified");
    assert.equal(result!.clientSessionId, s.clientSessionId);
    assert.equal(result!.consentIds!.length, 2);
    assert.equal(result!.consentId, result!.consentIds![0]);
    assert.match(result!.withdrawalToken!, /^wdt_[0-9A-Za-z]{32}$/);

    const consents = await t.db.query<Record<string, unknown>>(
      `SELECT consent_id, purpose, source, given_at, notice_version, anonymous_id, data_types
         FROM consents WHERE organization_id = $1 AND consent_id = ANY($2) ORDER BY purpose`,
      [a.org.organizationId, result!.consentIds],
    );
    // Purpose order is UTF-8 byte order: Account before Marketing, whatever order the device sent.
    assert.deepEqual(
      consents.map((c) => [c.consent_id, c.purpose]),
      [
        [result!.consentIds![0], "Account"],
        [result!.consentIds![1], "Marketing"],
      ],
    );
    for (const consent of consents) {
      assert.equal(consent.source, "offline");
      assert.equal(Number(consent.given_at), t.clock.now(), "given at receipt, not at the device clock");
      assert.equal(Number(consent.notice_version), notice.version);
      assert.deepEqual(consent.data_types, ["name", "phone"]);
    }
    const tokenOf = await resolveWithdrawalToken(t.db, result!.withdrawalToken!);
    assert.deepEqual(tokenOf?.consentIds.sort(), [...result!.consentIds!].sort());

    const row = await storedRow(s.clientSessionId);
    assert.equal(row.status, "verified");
    assert.equal(row.reason, null);
    assert.equal(Number(row.captured_at_client), s.capturedAtClient, "the device clock is kept verbatim");
    assert.deepEqual(row.purpose_grants, s.purposeGrants, "declined purposes are kept as evidence");
    assert.deepEqual(row.consent_ids, result!.consentIds);
    assert.notEqual(row.withdrawal_token_sealed, result!.withdrawalToken, "the token is stored sealed");
    assert.ok(!JSON.stringify(row).includes(result!.withdrawalToken!.slice(4)));

    const [entry] = (await chainEntries("offline_capture.verified")).filter(
      (e) => e.subjectId === row.session_id,
    );
    assert.ok(entry, "the verification is on the audit chain");
    assert.deepEqual(entry.payload.consentIds, result!.consentIds);
    assert.equal(entry.payload.clientSessionId, s.clientSessionId);
    assert.match(String(entry.payload.canonicalSha256), /^[0-9a-f]{64}$/);
  });

  test("a session opting in to nothing is verified with no consent and no token; its refusal is stored", async () => {
    const s = session({
      purposeGrants: [
        { purposeKey: "Marketing", purposeLabel: "Offers", category: "non_essential", status: "opt_out" },
      ],
    });
    const before = await counts();
    const [result] = await syncOk([s]);
    assert.deepEqual(result, { clientSessionId: s.clientSessionId, status: "verified", consentIds: [] });
    const afterSync = await counts();
    assert.equal(afterSync.consents, before.consents);
    assert.equal(afterSync.withdrawal_tokens, before.withdrawal_tokens);
    assert.equal(afterSync.offline_capture_sessions, before.offline_capture_sessions! + 1);
    assert.deepEqual((await storedRow(s.clientSessionId)).purpose_grants, s.purposeGrants);
  });

  test("every reason: quarantined for proof or timing, rejected when not an artefact of this organisation", async () => {
    const now = t.clock.now();
    const revoked = await insertTestDevice(t, a.org.organizationId);
    await revokeTestDevice(t, revoked);
    const draftNoticeId = await insertDraftNotice(t, a);
    const old = await publishTestNotice(t, a, { key: "superseded-reasons", title: "First" });
    await publishTestNotice(t, a, { key: "superseded-reasons", title: "Second" });
    const tampered = session();
    tampered.purposeGrants = tampered.purposeGrants.map((g) => ({ ...g, status: "opt_in" as const }));

    const cases: [string, CaptureSessionInput, string, string][] = [
      [
        "device of another organisation",
        sign(deviceB, sessionFor(deviceB, notice, now)),
        "quarantined",
        "unknown_device",
      ],
      [
        "never enrolled",
        sign(device, sessionFor(device, notice, now, { deviceId: "dev_neverEnrolled000000" })),
        "quarantined",
        "unknown_device",
      ],
      ["revoked device", sign(revoked, sessionFor(revoked, notice, now)), "quarantined", "device_revoked"],
      ["tampered grant", tampered, "quarantined", "signature_mismatch"],
      [
        "signed for another organisation",
        sign(device, sessionFor(device, notice, now), b.org.organizationId),
        "quarantined",
        "signature_mismatch",
      ],
      [
        "signed by another key",
        { ...session(), deviceSignature: sign(deviceB, sessionFor(device, notice, now)).deviceSignature },
        "quarantined",
        "signature_mismatch",
      ],
      ["clock 8 days behind", session({ capturedAtClient: now - 8 * DAY }), "quarantined", "clock_skew"],
      ["clock 8 days ahead", session({ capturedAtClient: now + 8 * DAY }), "quarantined", "clock_skew"],
      [
        "another organisation's notice",
        session({ noticeId: noticeB.noticeId, noticeVersion: noticeB.version }),
        "rejected",
        "invalid_session",
      ],
      [
        "a never-published notice",
        session({ noticeId: draftNoticeId, noticeVersion: 1 }),
        "quarantined",
        "notice_unpublished",
      ],
      [
        "a version beyond the published one",
        session({ noticeVersion: notice.version + 1 }),
        "quarantined",
        "notice_unpublished",
      ],
      [
        "a superseded version",
        session({ noticeId: old.noticeId, noticeVersion: old.version }),
        "quarantined",
        "notice_superseded",
      ],
      [
        "a purpose the notice does not itemise",
        session({
          purposeGrants: [
            { purposeKey: "Lending", purposeLabel: "Loans", category: "non_essential", status: "opt_in" },
          ],
        }),
        "rejected",
        "invalid_session",
      ],
      [
        "a duplicate purposeKey",
        unsignable({
          purposeGrants: [
            { purposeKey: "Account", purposeLabel: "A", category: "essential", status: "opt_in" },
            { purposeKey: "Account", purposeLabel: "A", category: "essential", status: "opt_out" },
          ],
        }),
        "rejected",
        "invalid_session",
      ],
    ];
    const consentsBefore = (await counts()).consents;
    const results = await syncOk(cases.map(([, s]) => s));
    cases.forEach(([name, s, status, reason], index) => {
      assert.deepEqual(results[index], { clientSessionId: s.clientSessionId, status, reason }, name);
    });
    assert.equal((await counts()).consents, consentsBefore, "no consent without a verified session");
    for (const [name, s, status, reason] of cases) {
      const row = await storedRow(s.clientSessionId);
      assert.equal(row.status, status, name);
      assert.equal(row.reason, reason, name);
    }
    // A 7-day skew exactly is within bounds.
    const [edge] = await syncOk([session({ capturedAtClient: now - 7 * DAY })]);
    assert.equal(edge!.status, "verified");
  });

  test("a noticeVersion beyond 2^53 - 1 is rejected as invalid_session and stored without it", async () => {
    const s = session();
    const payload = JSON.stringify({ sessions: [{ ...s, noticeVersion: 1 }] }).replace(
      '"noticeVersion":1',
      '"noticeVersion":9007199254740993',
    );
    const res = await t.request({
      method: "POST",
      url: SYNC,
      headers: { ...bearer(a.apiKey), "content-type": "application/json" },
      payload,
    });
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual((res.json() as { results: Result[] }).results, [
      { clientSessionId: s.clientSessionId, status: "rejected", reason: "invalid_session" },
    ]);
    const row = await storedRow(s.clientSessionId);
    assert.equal(row.notice_version, null);
    assert.equal(row.notice_id, notice.noticeId, "what parsed is kept");
  });

  test("a replay answers the first results, with the same consents and token, and writes nothing", async () => {
    const batch = [
      session(),
      session({ capturedAtClient: t.clock.now() - 9 * DAY }),
      session({ noticeId: noticeB.noticeId }),
    ];
    const first = await syncOk(batch);
    assert.deepEqual(
      first.map((r) => r.status),
      ["verified", "quarantined", "rejected"],
    );
    const before = await counts();
    t.clock.advance(60_000);
    const again = await syncOk(batch);
    assert.deepEqual(again, first);
    assert.deepEqual(await counts(), before);
    // Mixed with new sessions, the replayed ones still answer as before and only the new are written.
    const fresh = session();
    const mixed = await syncOk([batch[1]!, fresh, batch[0]!]);
    assert.deepEqual(mixed[0], first[1]);
    assert.deepEqual(mixed[2], first[0]);
    assert.equal(mixed[1]!.status, "verified");
    const afterMixed = await counts();
    assert.equal(afterMixed.offline_capture_sessions, before.offline_capture_sessions! + 1);
    assert.equal(afterMixed.consents, before.consents! + 2);
  });

  test("one clientSessionId twice in a batch: the second answers the first's result", async () => {
    const s = session();
    const altered = { ...s, noticeLocale: "en-IN" }; // same id, other content (its signature fails)
    const results = await syncOk([s, altered, s]);
    assert.equal(results[0]!.status, "verified");
    assert.deepEqual(results[1], results[0]);
    assert.deepEqual(results[2], results[0]);
    const [row] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM offline_capture_sessions WHERE organization_id = $1 AND client_session_id = $2",
      [a.org.organizationId, s.clientSessionId],
    );
    assert.equal(row!.n, 1);
  });

  test("malformed requests are 400 naming the field, and store nothing", async () => {
    const before = await counts();
    const s = session();
    const raw = Buffer.from(s.deviceSignature, "base64");
    const der = (() => {
      const int = (bytes: Buffer) => {
        let v = bytes;
        while (v.length > 1 && v[0] === 0 && v[1]! < 0x80) v = v.subarray(1);
        if (v[0]! >= 0x80) v = Buffer.concat([Buffer.from([0]), v]);
        return Buffer.concat([Buffer.from([0x02, v.length]), v]);
      };
      const body = Buffer.concat([int(raw.subarray(0, 32)), int(raw.subarray(32))]);
      return Buffer.concat([Buffer.from([0x30, body.length]), body]).toString("base64");
    })();
    const { channel: _channel, ...noChannel } = s;
    const bad: [string, unknown, RegExp][] = [
      ["empty batch", [], /sessions/],
      ["201 sessions", Array.from({ length: 201 }, () => s), /sessions/],
      [
        "63-byte signature",
        [{ ...s, deviceSignature: raw.subarray(0, 63).toString("base64") }],
        /deviceSignature/,
      ],
      ["DER signature", [{ ...s, deviceSignature: der }], /deviceSignature/],
      ["base64url signature", [{ ...s, deviceSignature: raw.toString("base64url") }], /deviceSignature/],
      ["unknown channel", [{ ...s, channel: "kiosk" }], /channel/],
      [
        "unknown grant status",
        [{ ...s, purposeGrants: [{ ...s.purposeGrants[0]!, status: "maybe" }] }],
        /status/,
      ],
      ["missing channel", [noChannel], /channel/],
      ["string noticeVersion", [{ ...s, noticeVersion: "3" }], /noticeVersion/],
    ];
    for (const [name, sessions, field] of bad) {
      const res = await sync(sessions as unknown[]);
      const error = assertApiError(res, 400, "VALIDATION_ERROR");
      assert.match(String(error.field ?? error.error), field, name);
    }
    // A good session beside a malformed one: the whole request fails.
    assertApiError(await sync([session(), { ...s, channel: "kiosk" }]), 400, "VALIDATION_ERROR");
    assert.deepEqual(await counts(), before);
  });

  test("revoked between batches: earlier sessions stay verified, later ones are device_revoked", async () => {
    const own = await insertTestDevice(t, a.org.organizationId);
    const early = sign(own, sessionFor(own, notice, t.clock.now()));
    const [verified] = await syncOk([early]);
    assert.equal(verified!.status, "verified");
    await revokeTestDevice(t, own);
    const late = sign(own, sessionFor(own, notice, t.clock.now()));
    const results = await syncOk([early, late]);
    assert.deepEqual(results[0], verified, "the session verified before the revocation stays verified");
    assert.deepEqual(results[1], {
      clientSessionId: late.clientSessionId,
      status: "quarantined",
      reason: "device_revoked",
    });
  });

  test(
    "a revocation committing while a batch waits on the device row makes the batch device_revoked",
    { skip: engine !== "postgres" && "needs two connections (PostgreSQL)" },
    async () => {
      const own = await insertTestDevice(t, a.org.organizationId);
      const s = sign(own, sessionFor(own, notice, t.clock.now()));
      const revoking = await holdRowLocks(
        `UPDATE offline_devices SET revoked_at = $3, revoked_by = 'stf_x', revocation_reason = 'stolen'
          WHERE organization_id = $1 AND device_id = $2`,
        [own.organizationId, own.deviceId, t.clock.now()],
      );
      const syncing = sync([s]);
      await deviceRowWaiters(1);
      await revoking.commit();
      const res = await syncing;
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as { results: Result[] }).results, [
        { clientSessionId: s.clientSessionId, status: "quarantined", reason: "device_revoked" },
      ]);
    },
  );

  test("concurrent re-syncs of one batch give one consent per purpose and the same answers", async () => {
    const batch = Array.from({ length: 5 }, () => session());
    const before = await counts();
    const answers = await Promise.all([sync(batch), sync(batch), sync(batch)]);
    for (const res of answers) assert.equal(res.statusCode, 200, res.body);
    const bodies = answers.map((res) => res.json() as { results: Result[] });
    assert.deepEqual(bodies[1], bodies[0]);
    assert.deepEqual(bodies[2], bodies[0]);
    for (const result of bodies[0]!.results) assert.equal(result.status, "verified");
    const afterSync = await counts();
    assert.equal(afterSync.offline_capture_sessions, before.offline_capture_sessions! + 5);
    assert.equal(afterSync.consents, before.consents! + 10);
    assert.equal(afterSync.withdrawal_tokens, before.withdrawal_tokens! + 10);
  });

  test(
    "overlapping batches that meet at the session insert: one stores the shared session, the other rolls back, answers it from the row and stores its own once",
    { skip: engine !== "postgres" && "needs two connections (PostgreSQL)" },
    async () => {
      const [s1, s2, s3] = [session(), session(), session()];
      const before = await counts();
      // Both syncs pass their look-up of stored sessions, then wait on the device row (their FOR
      // SHARE read) until both are waiting: neither can have stored anything the other saw.
      const holding = await holdRowLocks(
        "SELECT 1 FROM offline_devices WHERE organization_id = $1 AND device_id = $2 FOR UPDATE",
        [device.organizationId, device.deviceId],
      );
      const syncing = [sync([s1, s2]), sync([s2, s3])];
      await deviceRowWaiters(2);
      await holding.commit();
      const [first, second] = await Promise.all(syncing);
      assert.equal(first!.statusCode, 200, first!.body);
      assert.equal(second!.statusCode, 200, second!.body);
      const [r1, r2a] = (first!.json() as { results: Result[] }).results;
      const [r2b, r3] = (second!.json() as { results: Result[] }).results;
      for (const result of [r1, r2a, r3]) assert.equal(result!.status, "verified");
      assert.deepEqual(r2b, r2a, "the shared session has one answer, its first");
      // Three sessions, each with two consents (and their events, tokens and webhook events) and
      // three chain entries: nothing from the rolled-back attempt survives.
      assert.deepEqual(await counts(), {
        offline_capture_sessions: before.offline_capture_sessions! + 3,
        consents: before.consents! + 6,
        consent_events: before.consent_events! + 6,
        withdrawal_tokens: before.withdrawal_tokens! + 6,
        webhook_events: before.webhook_events! + 6,
        audit: before.audit! + 9,
      });
      const [stored] = await t.db.query<{ consent_ids: string[] }>(
        "SELECT consent_ids FROM offline_capture_sessions WHERE organization_id = $1 AND client_session_id = $2",
        [a.org.organizationId, s2.clientSessionId],
      );
      assert.deepEqual(stored!.consent_ids, r2a!.consentIds);
    },
  );

  test("a phone number is stored only as the organisation's keyed hash, never raw", async () => {
    const phone = "+91 98765 43210";
    const verified = session({ principalHandle: { kind: "phone_hash", value: phone } });
    const quarantined = session({
      principalHandle: { kind: "phone_hash", value: phone },
      capturedAtClient: 0,
    });
    const rejected = session({
      principalHandle: { kind: "phone_hash", value: phone },
      noticeId: noticeB.noticeId,
    });
    const uhid = session({ principalHandle: { kind: "uhid", value: "UHID-778812" } });
    const results = await syncOk([verified, quarantined, rejected, uhid]);
    assert.deepEqual(
      results.map((r) => r.status),
      ["verified", "quarantined", "rejected", "verified"],
    );
    const expected = phoneHash(t.config.secretsKey, a.org.organizationId, phone);
    for (const s of [verified, quarantined, rejected]) {
      const row = await storedRow(s.clientSessionId);
      assert.equal(row.principal_handle_kind, "phone_hash");
      assert.equal(row.principal_handle_value, expected);
      for (const [column, value] of Object.entries(row)) {
        const text = typeof value === "string" ? value : JSON.stringify(value);
        for (const digits of ["9876543210", "98765", "43210"]) {
          assert.ok(
            !String(text).replace(/\D/g, "").includes("919876543210") && !String(text).includes(digits),
            `${column} holds the number`,
          );
        }
      }
    }
    assert.equal((await storedRow(uhid.clientSessionId)).principal_handle_value, "UHID-778812");
    // Nor on the chain or in the webhook outbox.
    await linkQueuedOf(t.db, a.org.organizationId, t.clock.now());
    for (const table of ["audit_entries", "webhook_events", "consents", "consent_events"]) {
      const rows = await t.db.query(`SELECT * FROM ${table} WHERE organization_id = $1`, [
        a.org.organizationId,
      ]);
      assert.ok(
        !JSON.stringify(rows).includes("98765 43210") && !JSON.stringify(rows).includes("9876543210"),
        table,
      );
    }
  });

  test("a quarantined session raises offline_capture.quarantined and is on the chain", async () => {
    const s = session({ capturedAtClient: 1 });
    await syncOk([s]);
    const row = await storedRow(s.clientSessionId);
    const events = await t.db.query<{ payload: Record<string, unknown> }>(
      "SELECT payload FROM webhook_events WHERE organization_id = $1 AND event_type = 'offline_capture.quarantined'",
      [a.org.organizationId],
    );
    const event = events.find((e) => e.payload.sessionId === row.session_id);
    assert.ok(event, "the event is enqueued");
    assert.deepEqual(
      { ...event.payload, receivedAt: undefined },
      {
        sessionId: row.session_id,
        clientSessionId: s.clientSessionId,
        deviceId: device.deviceId,
        reason: "clock_skew",
        receivedAt: undefined,
      },
    );
    const entries = await chainEntries("offline_capture.quarantined");
    assert.ok(entries.some((e) => e.subjectId === row.session_id && e.payload.reason === "clock_skew"));
  });

  test("a revoked device's backlog raises one offline_capture.quarantined per session", async () => {
    const revoked = await insertTestDevice(t, a.org.organizationId);
    await revokeTestDevice(t, revoked);
    const now = t.clock.now();
    const backlog = Array.from({ length: 6 }, () => sign(revoked, sessionFor(revoked, notice, now)));
    const results = await syncOk(backlog);
    assert.deepEqual(
      results.map((r) => [r.status, r.reason]),
      backlog.map(() => ["quarantined", "device_revoked"]),
    );
    const events = await t.db.query<{ payload: Record<string, unknown> }>(
      `SELECT payload FROM webhook_events
        WHERE organization_id = $1 AND event_type = 'offline_capture.quarantined' AND payload->>'deviceId' = $2
        ORDER BY created_at, event_id`,
      [a.org.organizationId, revoked.deviceId],
    );
    assert.deepEqual(
      events.map((e) => e.payload.clientSessionId).sort(),
      backlog.map((s) => s.clientSessionId).sort(),
      "one event per session",
    );
    for (const event of events) {
      const row = await storedRow(String(event.payload.clientSessionId));
      assert.equal(event.payload.sessionId, row.session_id);
      assert.equal(event.payload.reason, "device_revoked");
    }
  });

  test("a batch's consent.given and offline_capture.quarantined events are delivered to subscribed endpoints", async () => {
    const c = await seedOrganization(t);
    const noticeC = await publishTestNotice(t, c);
    const deviceC = await insertTestDevice(t, c.org.organizationId);
    const adminC = (await signIn(t, c, "admin")).headers;
    const endpoint = await t.request({
      method: "POST",
      url: "/api/v1/staff/webhooks",
      headers: adminC,
      payload: { url: "http://127.0.0.1:9/hooks", events: ["consent.given", "offline_capture.quarantined"] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const { endpointId } = endpoint.json() as { endpointId: string };
    const now = t.clock.now();
    const results = await syncOk(
      [
        sign(deviceC, sessionFor(deviceC, noticeC, now)),
        sign(deviceC, sessionFor(deviceC, noticeC, now)),
        sign(deviceC, sessionFor(deviceC, noticeC, now, { capturedAtClient: 3 })),
      ],
      c,
    );
    assert.deepEqual(
      results.map((r) => r.status),
      ["verified", "verified", "quarantined"],
    );
    const deliveries = await t.db.query<{ event_type: string; payload: Record<string, unknown> }>(
      `SELECT e.event_type, e.payload FROM webhook_deliveries d
         JOIN webhook_events e ON e.organization_id = d.organization_id AND e.event_id = d.event_id
        WHERE d.organization_id = $1 AND d.endpoint_id = $2 AND d.status = 'pending'`,
      [c.org.organizationId, endpointId],
    );
    const given = deliveries.filter((d) => d.event_type === "consent.given");
    assert.deepEqual(
      given.map((d) => d.payload.consentId).sort(),
      results.flatMap((r) => r.consentIds ?? []).sort(),
      "one delivery per consent given",
    );
    for (const d of given) assert.equal(d.payload.source, "offline");
    assert.equal(deliveries.filter((d) => d.event_type === "offline_capture.quarantined").length, 1);
  });

  describe("staff review", () => {
    const release = (
      headers: Record<string, string>,
      sessionId: string,
      note: unknown = "Device clock was wrong",
    ) => t.request({ method: "POST", url: `${REVIEW}/${sessionId}/release`, headers, payload: { note } });
    const reject = (headers: Record<string, string>, sessionId: string, note: unknown = "Not our form") =>
      t.request({ method: "POST", url: `${REVIEW}/${sessionId}/reject`, headers, payload: { note } });

    async function quarantine(overrides: Partial<UnsignedSession>, expectedReason: string) {
      const s = session(overrides);
      const [result] = await syncOk([s]);
      assert.equal(result!.reason, expectedReason);
      return { session: s, sessionId: String((await storedRow(s.clientSessionId)).session_id) };
    }

    test("a clock_skew session released by a dpo gives its consents and a withdrawal token", async () => {
      const { session: s, sessionId } = await quarantine(
        { capturedAtClient: t.clock.now() - 30 * DAY },
        "clock_skew",
      );
      const res = await release(dpoA, sessionId);
      assert.equal(res.statusCode, 200, res.body);
      const result = res.json() as Result;
      assert.equal(result.status, "verified");
      assert.equal(result.consentIds!.length, 2);
      assert.equal(result.consentId, result.consentIds![0]);
      assert.deepEqual(
        (await resolveWithdrawalToken(t.db, result.withdrawalToken!))?.consentIds.sort(),
        [...result.consentIds!].sort(),
      );
      const row = await storedRow(s.clientSessionId);
      assert.equal(row.status, "quarantined", "the outcome at receipt stays as it was");
      assert.equal(row.review_status, "released");
      assert.deepEqual(row.consent_ids, result.consentIds);
      const [entry] = (await chainEntries("offline_capture.released")).filter(
        (e) => e.subjectId === sessionId,
      );
      assert.ok(entry);
      assert.equal(entry.payload.note, "Device clock was wrong");
      assert.match(String(entry.payload.reviewedBy), /^stf_/);
      assertApiError(await release(dpoA, sessionId), 409, "CONFLICT", { message: /already reviewed/ });
      // A re-sync still answers the first result.
      assert.deepEqual((await syncOk([s]))[0], {
        clientSessionId: s.clientSessionId,
        status: "quarantined",
        reason: "clock_skew",
      });
    });

    test("a notice_superseded session is released against the version it signed", async () => {
      const v1 = await publishTestNotice(t, a, { key: "review-superseded", title: "One" });
      await publishTestNotice(t, a, { key: "review-superseded", title: "Two" });
      const { sessionId } = await quarantine(
        { noticeId: v1.noticeId, noticeVersion: v1.version },
        "notice_superseded",
      );
      const res = await release(dpoA, sessionId);
      assert.equal(res.statusCode, 200, res.body);
      const [consent] = await t.db.query<{ notice_version: number }>(
        "SELECT notice_version FROM consents WHERE organization_id = $1 AND consent_id = $2",
        [a.org.organizationId, (res.json() as Result).consentId],
      );
      assert.equal(Number(consent!.notice_version), v1.version);
    });

    test("a session without a valid signature from an enrolled, unrevoked key cannot be released", async () => {
      const tampered = session();
      tampered.noticeLocale = "en-IN";
      await syncOk([tampered]);
      const sessionId = String((await storedRow(tampered.clientSessionId)).session_id);
      const consentsBefore = (await counts()).consents;
      assertApiError(await release(dpoA, sessionId), 409, "CONFLICT", {
        message: /signature_mismatch cannot be released/,
      });
      assert.equal((await counts()).consents, consentsBefore);
      const { sessionId: unpublished } = await quarantine(
        { noticeVersion: notice.version + 5 },
        "notice_unpublished",
      );
      assertApiError(await release(dpoA, unpublished), 409, "CONFLICT");
      const verified = session();
      await syncOk([verified]);
      assertApiError(
        await release(dpoA, String((await storedRow(verified.clientSessionId)).session_id)),
        409,
        "CONFLICT",
        {
          message: /not quarantined/,
        },
      );
    });

    test("reject records who and why; the session can then not be released; roles and tenants", async () => {
      const { sessionId } = await quarantine({ capturedAtClient: 5 }, "clock_skew");
      assertApiError(await reject(viewerA, sessionId), 403, "FORBIDDEN");
      assertApiError(await release(viewerA, sessionId), 403, "FORBIDDEN");
      assertApiError(await reject(adminB, sessionId), 404, "NOT_FOUND");
      assertApiError(await release(adminB, sessionId), 404, "NOT_FOUND");
      assertApiError(await reject(dpoA, sessionId, "   "), 400, "VALIDATION_ERROR", { field: "note" });
      const res = await reject(dpoA, sessionId);
      assert.equal(res.statusCode, 200, res.body);
      const record = res.json() as Record<string, unknown>;
      assert.equal(record.reviewStatus, "rejected_by_staff");
      assert.equal(record.reviewNote, "Not our form");
      assert.match(String(record.reviewedBy), /^stf_/);
      assert.equal(record.reviewedAt, t.clock.now());
      assertApiError(await release(dpoA, sessionId), 409, "CONFLICT");
      assertApiError(await reject(dpoA, sessionId), 409, "CONFLICT");
      const [entry] = (await chainEntries("offline_capture.review_rejected")).filter(
        (e) => e.subjectId === sessionId,
      );
      assert.equal(entry?.payload.note, "Not our form");
    });

    test("the list filters by status, review status and device, pages, and is the organisation's own", async () => {
      const own = await insertTestDevice(t, a.org.organizationId);
      const sessions = Array.from({ length: 3 }, () =>
        sign(own, sessionFor(own, notice, t.clock.now(), { capturedAtClient: 7 })),
      );
      await syncOk([...sessions, sign(own, sessionFor(own, notice, t.clock.now()))]);
      const list = (headers: Record<string, string>, query: string) =>
        t.request({ method: "GET", url: `${REVIEW}?${query}`, headers });
      const res = await list(
        viewerA,
        `deviceId=${own.deviceId}&status=quarantined&reviewStatus=pending&limit=2`,
      );
      assert.equal(res.statusCode, 200, res.body);
      const page1 = res.json() as { captures: Record<string, unknown>[]; nextCursor: string | null };
      assert.equal(page1.captures.length, 2);
      assert.ok(page1.nextCursor);
      const page2 = (
        await list(
          viewerA,
          `deviceId=${own.deviceId}&status=quarantined&reviewStatus=pending&limit=2&cursor=${encodeURIComponent(page1.nextCursor)}`,
        )
      ).json() as { captures: Record<string, unknown>[]; nextCursor: string | null };
      assert.equal(page2.captures.length, 1);
      assert.equal(page2.nextCursor, null);
      const seen = [...page1.captures, ...page2.captures].map((c) => c.clientSessionId).sort();
      assert.deepEqual(seen, sessions.map((s) => s.clientSessionId).sort());
      for (const capture of [...page1.captures, ...page2.captures]) {
        assert.equal(capture.reason, "clock_skew");
        assert.equal(capture.deviceId, own.deviceId);
        assert.equal((capture.purposeGrants as unknown[]).length, 3);
      }
      assertApiError(await list(adminB, `deviceId=${own.deviceId}`), 404, "NOT_FOUND");
      const mine = (await list(adminB, "")).json() as { captures: Record<string, unknown>[] };
      assert.ok(!mine.captures.some((capture) => capture.deviceId === own.deviceId));
    });
  });

  test("the per-key budget answers 429 with Retry-After", async () => {
    const c = await seedOrganization(t);
    const noticeC = await publishTestNotice(t, c);
    const deviceC = await insertTestDevice(t, c.org.organizationId);
    const s = sign(deviceC, sessionFor(deviceC, noticeC, t.clock.now()));
    let limited: Awaited<ReturnType<typeof sync>> | undefined;
    for (let i = 0; i < 700 && !limited; i++) {
      const res = await sync([s], c);
      if (res.statusCode === 429) limited = res;
      else assert.equal(res.statusCode, 200, res.body);
    }
    assert.ok(limited, "the budget ran out");
    assertApiError(limited, 429, "RATE_LIMITED");
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    // Another key's budget is its own.
    assert.equal((await sync([session()])).statusCode, 200);
  });
});
