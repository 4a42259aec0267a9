// Test devices and signed sessions for the capture tests: a P-256 key pair made in the test, its
// public key inserted into offline_devices in SQL (the captures area only reads devices), and
// sessions signed over their dpdpcca/2 string as a device would sign them.
import { createHash, generateKeyPairSync, type KeyObject } from "node:crypto";
import { canonicalizeCaptureArtifact, signCaptureArtifact } from "@guard/contract";
import { randomBase62 } from "../../../src/lib/ids.js";
import type { CaptureSessionInput } from "../../../src/offline/captures/captures.js";
import type { TestApp } from "../../support/harness.js";

export interface TestDevice {
  organizationId: string;
  deviceId: string;
  privateKey: KeyObject;
  publicKeySpki: string;
}

/** Enrols a fresh P-256 key for the organisation by inserting the device row. */
export async function insertTestDevice(t: TestApp, organizationId: string): Promise<TestDevice> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const der = publicKey.export({ type: "spki", format: "der" });
  const deviceId = `dev_${randomBase62(20)}`;
  await t.db.query(
    `INSERT INTO offline_devices (organization_id, device_id, label, channel, public_key_spki,
       key_fingerprint, enrolled_at, enrolled_by)
     VALUES ($1, $2, 'test tablet', 'agent_app', $3, $4, $5, 'stf_testEnroller')`,
    [
      organizationId,
      deviceId,
      der.toString("base64"),
      createHash("sha256").update(der).digest("hex"),
      t.clock.now(),
    ],
  );
  return { organizationId, deviceId, privateKey, publicKeySpki: der.toString("base64") };
}

/** Marks the device revoked in SQL, as a committed revocation leaves it. */
export async function revokeTestDevice(t: TestApp, device: TestDevice): Promise<void> {
  await t.db.query(
    `UPDATE offline_devices SET revoked_at = $3, revoked_by = 'stf_testRevoker', revocation_reason = 'lost'
      WHERE organization_id = $1 AND device_id = $2`,
    [device.organizationId, device.deviceId, t.clock.now()],
  );
}

export type UnsignedSession = Omit<CaptureSessionInput, "deviceSignature">;

/** A session for the notice, opting in to Account and Marketing and out of Newsletter. */
export function sessionFor(
  device: TestDevice,
  notice: { noticeId: string; version: number },
  now: number,
  overrides: Partial<UnsignedSession> = {},
): UnsignedSession {
  return {
    clientSessionId: crypto.randomUUID(),
    deviceId: device.deviceId,
    noticeId: notice.noticeId,
    noticeVersion: notice.version,
    noticeLocale: "hi-IN",
    channel: "agent_app",
    capturedAtClient: now - 3_600_000,
    dataTypes: ["name", "phone"],
    purposeGrants: [
      { purposeKey: "Marketing", purposeLabel: "Offers", category: "non_essential", status: "opt_in" },
      { purposeKey: "Account", purposeLabel: "Your account", category: "essential", status: "opt_in" },
      { purposeKey: "Newsletter", purposeLabel: "Newsletter", category: "non_essential", status: "opt_out" },
    ],
    ...overrides,
  };
}

/**
 * Signs the session with the device's key over its canonical string, built with `organizationId`
 * (the device's own organisation unless a test says otherwise).
 */
export function sign(
  device: TestDevice,
  session: UnsignedSession,
  organizationId = device.organizationId,
): CaptureSessionInput {
  const canonical = canonicalizeCaptureArtifact({ ...session, organizationId });
  return { ...session, deviceSignature: signCaptureArtifact(device.privateKey, canonical) };
}
