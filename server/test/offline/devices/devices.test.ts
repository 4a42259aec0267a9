// Enrolled devices (issue 26 item 1): enrolment accepts exactly a canonical base64 P-256 SPKI
// (secp256k1, RSA, truncated DER, compressed points and non-canonical base64 are refused naming
// publicKeySpki); one key per organisation (409); revocation once (409 the second time); another
// organisation's device is 404; viewers read only; the service key may act; paging and the status
// filter; both changes on the audit chain; Idempotency-Key on enrolment; the capability switch.
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync } from "node:crypto";
import { after, before, describe, test } from "node:test";
import { linkQueuedOf } from "../../../src/audit/sequencer.js";
import { setCapabilities } from "../../../src/capabilities/capabilities.js";
import { findDevice } from "../../../src/offline/devices/store.js";
import { assertApiError } from "../../support/api-error.js";
import {
  bearer,
  seedOrganization,
  signIn,
  startTestApp,
  type SeededOrg,
  type TestApp,
} from "../../support/harness.js";

const DEVICES = "/api/v1/staff/devices";

type Device = {
  deviceId: string;
  label: string;
  channel: string;
  publicKeySpki: string;
  keyFingerprint: string;
  enrolledAt: number;
  enrolledBy: string;
  revokedAt: number | null;
  revokedBy: string | null;
  revocationReason: string | null;
};

/** A fresh P-256 public key as a device exports it: base64 of the SPKI DER. */
export function p256Spki(): string {
  const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  return publicKey.export({ type: "spki", format: "der" }).toString("base64");
}

describe("enrolled devices (staff routes)", () => {
  let t: TestApp;
  let a: SeededOrg;
  let b: SeededOrg;
  let adminA: Record<string, string>;
  let dpoA: Record<string, string>;
  let viewerA: Record<string, string>;
  let adminB: Record<string, string>;

  before(async () => {
    t = await startTestApp();
    a = await seedOrganization(t);
    b = await seedOrganization(t);
    adminA = (await signIn(t, a, "admin")).headers;
    dpoA = (await signIn(t, a, "dpo")).headers;
    viewerA = (await signIn(t, a, "viewer")).headers;
    adminB = (await signIn(t, b, "admin")).headers;
  });
  after(() => t.close());

  const enrol = (headers: Record<string, string>, payload: Record<string, unknown>) =>
    t.request({ method: "POST", url: DEVICES, headers, payload });
  const revoke = (headers: Record<string, string>, deviceId: string, reason: unknown = "lost") =>
    t.request({ method: "POST", url: `${DEVICES}/${deviceId}/revoke`, headers, payload: { reason } });
  const list = (headers: Record<string, string>, query = "") =>
    t.request({ method: "GET", url: `${DEVICES}${query}`, headers });

  async function enrolOk(
    headers: Record<string, string>,
    payload: Record<string, unknown> = {},
  ): Promise<Device> {
    const res = await enrol(headers, {
      label: "Pune branch tablet",
      channel: "agent_app",
      publicKeySpki: p256Spki(),
      ...payload,
    });
    assert.equal(res.statusCode, 201, res.body);
    return res.json() as Device;
  }

  async function chainEntries(organizationId: string, entryType: string) {
    // The sequencer links committed entries asynchronously; link them now to read them in order.
    await linkQueuedOf(t.db, organizationId, t.clock.now());
    const rows = await t.db.query<{ subject_id: string; payload: string; created_at: number }>(
      `SELECT subject_id, payload, created_at FROM audit_entries
        WHERE organization_id = $1 AND entry_type = $2 ORDER BY seq`,
      [organizationId, entryType],
    );
    return rows.map((r) => ({ ...r, payload: JSON.parse(r.payload) as Record<string, unknown> }));
  }

  test("a valid P-256 key is enrolled with a new id, its fingerprint and who enrolled it", async () => {
    const key = p256Spki();
    const device = await enrolOk(dpoA, { label: "Counter 3", channel: "pos", publicKeySpki: key });
    assert.match(device.deviceId, /^dev_[0-9A-Za-z]{20}$/);
    assert.equal(device.label, "Counter 3");
    assert.equal(device.channel, "pos");
    assert.equal(device.publicKeySpki, key);
    const der = Buffer.from(key, "base64");
    assert.equal(der.length, 91);
    assert.equal(device.keyFingerprint, createHash("sha256").update(der).digest("hex"));
    assert.equal(device.enrolledAt, t.clock.now());
    const dpoSession = await t.request({ method: "GET", url: "/api/v1/staff/session", headers: dpoA });
    assert.equal(device.enrolledBy, (dpoSession.json() as { staffId: string }).staffId);
    assert.deepEqual([device.revokedAt, device.revokedBy, device.revocationReason], [null, null, null]);
    // Stored as answered: what captures will read through findDevice.
    const stored = await findDevice(t.db, a.org.organizationId, device.deviceId);
    assert.equal(stored?.publicKeySpki, key);
    assert.equal(stored?.keyFingerprint, device.keyFingerprint);
  });

  test("keys that are not canonical base64 of a P-256 SPKI are refused naming publicKeySpki", async () => {
    const p256 = p256Spki();
    const der = Buffer.from(p256, "base64");
    const k1 = generateKeyPairSync("ec", { namedCurve: "secp256k1" })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    const rsa = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    const ed = generateKeyPairSync("ed25519")
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    const p384 = generateKeyPairSync("ec", { namedCurve: "secp384r1" })
      .publicKey.export({ type: "spki", format: "der" })
      .toString("base64");
    // The same P-256 key with its point compressed: a second encoding of one key.
    const { publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
    const jwk = publicKey.export({ format: "jwk" });
    const y = Buffer.from(jwk.y!, "base64url");
    const compressedPoint = Buffer.concat([
      Buffer.from([y[31]! & 1 ? 3 : 2]),
      Buffer.from(jwk.x!, "base64url"),
    ]);
    const compressed = Buffer.concat([
      Buffer.from("3039301306072a8648ce3d020106082a8648ce3d030107032200", "hex"),
      compressedPoint,
    ]).toString("base64");
    const cases: Record<string, string> = {
      secp256k1: k1,
      rsa,
      ed25519: ed,
      p384,
      garbage: "bm90IGEga2V5IGF0IGFsbA==",
      notBase64: "!!!!",
      truncated: der.subarray(0, 60).toString("base64"),
      trailingBytes: Buffer.concat([der, Buffer.from([0])]).toString("base64"),
      unpadded: p256.replace(/=+$/, ""),
      urlSafe: der.toString("base64url"),
      lineBreaks: `${p256.slice(0, 64)}\n${p256.slice(64)}`,
      spaces: ` ${p256}`,
      pem: publicKey.export({ type: "spki", format: "pem" }).toString(),
      compressed,
    };
    assert.notEqual(p256, p256.replace(/=+$/, ""), "a 91-byte DER's base64 is padded");
    for (const [name, publicKeySpki] of Object.entries(cases)) {
      const res = await enrol(adminA, { label: name, channel: "qr", publicKeySpki });
      assertApiError(res, 400, "VALIDATION_ERROR", { field: "publicKeySpki" });
      assert.match((res.json() as { error: string }).error, /publicKeySpki/, name);
    }
    const secp = await enrol(adminA, { label: "k1", channel: "qr", publicKeySpki: k1 });
    assert.match((secp.json() as { error: string }).error, /secp256k1/);
    const rsaRes = await enrol(adminA, { label: "rsa", channel: "qr", publicKeySpki: rsa });
    assert.match((rsaRes.json() as { error: string }).error, /rsa key/);
    // None of them was stored.
    const stored = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM offline_devices WHERE organization_id = $1 AND label = ANY($2)",
      [a.org.organizationId, Object.keys(cases)],
    );
    assert.equal(stored[0]!.n, 0);
  });

  test("label, channel and body shape are validated", async () => {
    const key = p256Spki();
    const bad: [Record<string, unknown>, string][] = [
      [{ label: "", channel: "qr", publicKeySpki: key }, "label"],
      [{ label: "   ", channel: "qr", publicKeySpki: key }, "label"],
      [{ label: "x".repeat(201), channel: "qr", publicKeySpki: key }, "label"],
      [{ label: "x", channel: "kiosk", publicKeySpki: key }, "channel"],
      [{ label: "x", publicKeySpki: key }, "channel"],
      [{ label: "x", channel: "qr" }, "publicKeySpki"],
      [{ label: "x", channel: "qr", publicKeySpki: 42 }, "publicKeySpki"],
    ];
    for (const [payload, field] of bad) {
      assertApiError(await enrol(adminA, payload), 400, "VALIDATION_ERROR", { field });
    }
    // A label of exactly 200 characters is fine.
    await enrolOk(adminA, { label: "y".repeat(200) });
  });

  test("a key enrolled once in an organisation is a 409 the second time; another organisation may enrol it", async () => {
    const key = p256Spki();
    const first = await enrolOk(adminA, { publicKeySpki: key });
    const again = await enrol(dpoA, { label: "again", channel: "qr", publicKeySpki: key });
    assertApiError(again, 409, "CONFLICT", { field: "publicKeySpki" });
    assert.match((again.json() as { error: string }).error, new RegExp(first.keyFingerprint));
    // Still refused once the first device is revoked: a re-enrolled device makes a new key.
    assert.equal((await revoke(adminA, first.deviceId)).statusCode, 200);
    assertApiError(await enrol(adminA, { label: "x", channel: "qr", publicKeySpki: key }), 409, "CONFLICT");
    // Organisations are separate: B may enrol the same public key as its own device.
    await enrolOk(adminB, { publicKeySpki: key });
  });

  test("concurrent enrolments of one key make one device and one 409, never a 500", async () => {
    const key = p256Spki();
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        enrol(adminA, { label: `race ${i}`, channel: "ivr", publicKeySpki: key }),
      ),
    );
    assert.deepEqual(answers.map((r) => r.statusCode).sort(), [201, 409, 409, 409]);
    const rows = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM offline_devices WHERE organization_id = $1 AND public_key_spki = $2",
      [a.org.organizationId, key],
    );
    assert.equal(rows[0]!.n, 1);
  });

  test("revoke records who, when and why; a second revoke is 409 and changes nothing", async () => {
    const device = await enrolOk(adminA);
    t.clock.advance(60_000);
    const res = await revoke(dpoA, device.deviceId, "Tablet stolen from the Pune branch");
    assert.equal(res.statusCode, 200, res.body);
    const revoked = res.json() as Device;
    assert.equal(revoked.deviceId, device.deviceId);
    assert.equal(revoked.revokedAt, t.clock.now());
    const dpoSession = await t.request({ method: "GET", url: "/api/v1/staff/session", headers: dpoA });
    assert.equal(revoked.revokedBy, (dpoSession.json() as { staffId: string }).staffId);
    assert.equal(revoked.revocationReason, "Tablet stolen from the Pune branch");
    assert.equal(revoked.enrolledAt, device.enrolledAt);

    t.clock.advance(60_000);
    assertApiError(await revoke(adminA, device.deviceId, "again"), 409, "CONFLICT");
    const stored = await findDevice(t.db, a.org.organizationId, device.deviceId);
    assert.equal(
      stored?.revocationReason,
      "Tablet stolen from the Pune branch",
      "the first revocation stands",
    );
    assert.equal(stored?.revokedAt, revoked.revokedAt);

    for (const reason of ["", "  ", "r".repeat(501)])
      assertApiError(await revoke(adminA, device.deviceId, reason), 400, "VALIDATION_ERROR", {
        field: "reason",
      });
  });

  test("another organisation's device, or an unknown one, is 404 and is left untouched", async () => {
    const device = await enrolOk(adminA);
    assertApiError(await revoke(adminB, device.deviceId), 404, "NOT_FOUND");
    assertApiError(await revoke(bearer(b.apiKey), device.deviceId), 404, "NOT_FOUND");
    assertApiError(await revoke(adminA, "dev_00000000000000000000"), 404, "NOT_FOUND");
    assertApiError(await revoke(adminA, "not-an-id"), 400, "VALIDATION_ERROR");
    assert.equal((await findDevice(t.db, a.org.organizationId, device.deviceId))?.revokedAt, null);
    const bList = (await list(adminB)).json() as { devices: Device[] };
    assert.ok(!bList.devices.some((d) => d.deviceId === device.deviceId), "B does not list A's device");
  });

  test("a viewer lists but cannot enrol or revoke (403); admin, dpo and the service key can", async () => {
    const device = await enrolOk(adminA);
    assertApiError(
      await enrol(viewerA, { label: "v", channel: "qr", publicKeySpki: p256Spki() }),
      403,
      "FORBIDDEN",
    );
    assertApiError(await revoke(viewerA, device.deviceId), 403, "FORBIDDEN");
    const viewed = await list(viewerA);
    assert.equal(viewed.statusCode, 200, viewed.body);
    assert.ok((viewed.json() as { devices: Device[] }).devices.some((d) => d.deviceId === device.deviceId));
    assert.equal((await findDevice(t.db, a.org.organizationId, device.deviceId))?.revokedAt, null);

    // A cookie-authenticated write without the CSRF token is refused.
    const { "x-csrf-token": _csrf, ...cookieOnly } = adminA;
    assertApiError(
      await enrol(cookieOnly, { label: "c", channel: "qr", publicKeySpki: p256Spki() }),
      403,
      "FORBIDDEN",
    );

    // The organisation's service key (a server managing the fleet) may enrol and revoke.
    const byKey = await enrolOk(bearer(a.apiKey), { label: "fleet" });
    assert.equal(byKey.enrolledBy, a.apiKeyId);
    const revoked = await revoke(bearer(a.apiKey), byKey.deviceId, "retired");
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal((revoked.json() as Device).revokedBy, a.apiKeyId);
    assertApiError(await list({}), 401, "UNAUTHORIZED");
  });

  test("the list is newest first, paged by cursor, filtered by status, and scoped to the organisation", async () => {
    const t2 = await startTestApp();
    try {
      const org = await seedOrganization(t2);
      const admin = (await signIn(t2, org, "admin")).headers;
      const enrolled: Device[] = [];
      for (let i = 0; i < 7; i++) {
        // Some at the same instant: ties are broken by id.
        if (i % 2 === 0) t2.clock.advance(1_000);
        const res = await t2.request({
          method: "POST",
          url: DEVICES,
          headers: admin,
          payload: { label: `device ${i}`, channel: "agent_app", publicKeySpki: p256Spki() },
        });
        assert.equal(res.statusCode, 201, res.body);
        enrolled.push(res.json() as Device);
      }
      for (const d of enrolled.slice(0, 3)) {
        const res = await t2.request({
          method: "POST",
          url: `${DEVICES}/${d.deviceId}/revoke`,
          headers: admin,
          payload: { reason: "retired" },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const expected = [...enrolled]
        .sort((x, y) => y.enrolledAt - x.enrolledAt || (y.deviceId < x.deviceId ? -1 : 1))
        .map((d) => d.deviceId);

      const walk = async (query: string) => {
        const seen: Device[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const url: string = `${DEVICES}?limit=3${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
          const res = await t2.request({ method: "GET", url, headers: admin });
          assert.equal(res.statusCode, 200, res.body);
          const page = res.json() as { devices: Device[]; nextCursor: string | null };
          seen.push(...page.devices);
          cursor = page.nextCursor;
          pages += 1;
        } while (cursor && pages < 10);
        return { seen, pages };
      };
      const all = await walk("");
      assert.deepEqual(
        all.seen.map((d) => d.deviceId),
        expected,
      );
      assert.equal(all.pages, 3);
      const revokedIds = new Set(enrolled.slice(0, 3).map((d) => d.deviceId));
      const active = await walk("&status=active");
      assert.deepEqual(
        active.seen.map((d) => d.deviceId),
        expected.filter((id) => !revokedIds.has(id)),
      );
      const revoked = await walk("&status=revoked");
      assert.deepEqual(
        revoked.seen.map((d) => d.deviceId),
        expected.filter((id) => revokedIds.has(id)),
      );
      assert.ok(revoked.seen.every((d) => d.revocationReason === "retired"));

      assertApiError(
        await t2.request({ method: "GET", url: `${DEVICES}?status=lost`, headers: admin }),
        400,
        "VALIDATION_ERROR",
        { field: "status" },
      );
      // A cursor of the unfiltered list does not page the filtered one.
      const first = (
        await t2.request({ method: "GET", url: `${DEVICES}?limit=2`, headers: admin })
      ).json() as {
        nextCursor: string;
      };
      assertApiError(
        await t2.request({
          method: "GET",
          url: `${DEVICES}?status=active&cursor=${encodeURIComponent(first.nextCursor)}`,
          headers: admin,
        }),
        400,
        "VALIDATION_ERROR",
        { field: "cursor" },
      );
    } finally {
      await t2.close();
    }
  });

  test("enrolment and revocation are on the audit chain with who, what and why", async () => {
    const device = await enrolOk(adminA, { label: "Audited", channel: "async_link" });
    await revoke(adminA, device.deviceId, "Compromised");
    const adminSession = await t.request({ method: "GET", url: "/api/v1/staff/session", headers: adminA });
    const adminId = (adminSession.json() as { staffId: string }).staffId;

    const enrolled = (await chainEntries(a.org.organizationId, "offline_device.enrolled")).filter(
      (e) => e.subject_id === device.deviceId,
    );
    assert.equal(enrolled.length, 1);
    assert.deepEqual(enrolled[0]!.payload, {
      deviceId: device.deviceId,
      label: "Audited",
      channel: "async_link",
      keyFingerprint: device.keyFingerprint,
      actor: { kind: "staff", id: adminId },
    });
    const revoked = (await chainEntries(a.org.organizationId, "offline_device.revoked")).filter(
      (e) => e.subject_id === device.deviceId,
    );
    assert.equal(revoked.length, 1);
    assert.deepEqual(revoked[0]!.payload, {
      deviceId: device.deviceId,
      label: "Audited",
      channel: "async_link",
      keyFingerprint: device.keyFingerprint,
      actor: { kind: "staff", id: adminId },
      reason: "Compromised",
    });

    // Refused changes leave nothing on the chain.
    const before = (await chainEntries(a.org.organizationId, "offline_device.revoked")).length;
    assertApiError(await revoke(adminA, device.deviceId, "again"), 409, "CONFLICT");
    assert.equal((await chainEntries(a.org.organizationId, "offline_device.revoked")).length, before);
  });

  test("Idempotency-Key: a retried enrolment returns the first device and enrols once", async () => {
    const payload = { label: "Retried", channel: "qr", publicKeySpki: p256Spki() };
    const headers = { ...adminA, "idempotency-key": "enrol-retry-1" };
    const firstRes = await enrol(headers, payload);
    assert.equal(firstRes.statusCode, 201, firstRes.body);
    const replay = await enrol(headers, payload);
    assert.equal(replay.statusCode, 201, replay.body);
    assert.equal(replay.headers["idempotent-replayed"], "true");
    assert.equal(replay.body, firstRes.body);
    // Without the key the same body is a duplicate key.
    assertApiError(await enrol(adminA, payload), 409, "CONFLICT");
    // The key with another body is refused.
    assertApiError(await enrol(headers, { ...payload, publicKeySpki: p256Spki() }), 409, "CONFLICT");
    const enrolledEntries = (await chainEntries(a.org.organizationId, "offline_device.enrolled")).filter(
      (e) => e.subject_id === (firstRes.json() as Device).deviceId,
    );
    assert.equal(enrolledEntries.length, 1);
  });

  test("while offline_agent_capture is off the device routes answer 404", async () => {
    const org = await seedOrganization(t);
    const admin = (await signIn(t, org, "admin")).headers;
    const device = await enrolOk(admin);
    await t.db.transaction((tx) =>
      setCapabilities(tx, org.org.organizationId, { offline_agent_capture: false }),
    );
    try {
      assertApiError(await list(admin), 404, "NOT_FOUND");
      assertApiError(
        await enrol(admin, { label: "x", channel: "qr", publicKeySpki: p256Spki() }),
        404,
        "NOT_FOUND",
      );
      assertApiError(await revoke(admin, device.deviceId), 404, "NOT_FOUND");
    } finally {
      await t.db.transaction((tx) =>
        setCapabilities(tx, org.org.organizationId, { offline_agent_capture: true }),
      );
    }
    assert.equal((await list(admin)).statusCode, 200);
  });
});
