// offline_devices: the devices enrolled to sign capture sessions. The only code that touches the
// table; devices.ts holds the rules (enrol, revoke) and captures read a device through findDevice.
import type { Queryable } from "../../db/database.js";
import { first, qb } from "../../db/query.js";

export type DeviceChannel = "qr" | "agent_app" | "pos" | "async_link" | "ivr";

export interface DeviceRecord {
  organizationId: string;
  deviceId: string;
  label: string;
  channel: DeviceChannel;
  /** Standard base64 of the P-256 SubjectPublicKeyInfo DER, as enrolled. */
  publicKeySpki: string;
  /** SHA-256 (hex) of the SPKI DER. */
  keyFingerprint: string;
  enrolledAt: number;
  enrolledBy: string;
  revokedAt: number | null;
  revokedBy: string | null;
  revocationReason: string | null;
}

type DeviceRow = {
  organization_id: string;
  device_id: string;
  label: string;
  channel: string;
  public_key_spki: string;
  key_fingerprint: string;
  enrolled_at: string | number;
  enrolled_by: string;
  revoked_at: string | number | null;
  revoked_by: string | null;
  revocation_reason: string | null;
};

export const deviceOf = (row: DeviceRow): DeviceRecord => ({
  organizationId: row.organization_id,
  deviceId: row.device_id,
  label: row.label,
  channel: row.channel as DeviceChannel,
  publicKeySpki: row.public_key_spki,
  keyFingerprint: row.key_fingerprint,
  enrolledAt: Number(row.enrolled_at),
  enrolledBy: row.enrolled_by,
  revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  revokedBy: row.revoked_by,
  revocationReason: row.revocation_reason,
});

/**
 * The organisation's device with that id, revoked or not (a revoked device's sessions are
 * quarantined as `device_revoked`, not `unknown_device`); undefined when there is none.
 * `forShare` takes a share lock, so a revocation committing meanwhile waits for the caller's
 * transaction (a session verified under the key commits before the key stops counting).
 */
export async function findDevice(
  db: Queryable,
  organizationId: string,
  deviceId: string,
  options: { forShare?: boolean } = {},
): Promise<DeviceRecord | undefined> {
  let query = qb
    .selectFrom("offline_devices")
    .selectAll()
    .where("organization_id", "=", organizationId)
    .where("device_id", "=", deviceId);
  if (options.forShare) query = query.forShare();
  const row = await first(db, query);
  return row && deviceOf(row);
}
