// offline_devices: the devices enrolled to sign capture sessions. The only code that touches the
// table; devices.ts holds the rules (enrol, revoke) and captures read a device through findDevice.
import type { Queryable } from "../../db/database.js";
import { first, qb, rows } from "../../db/query.js";

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

/** The columns of a new device; it starts active. */
export interface NewDevice {
  organizationId: string;
  deviceId: string;
  label: string;
  channel: DeviceChannel;
  publicKeySpki: string;
  keyFingerprint: string;
  enrolledAt: number;
  enrolledBy: string;
}

/**
 * Inserts the device; undefined when the organisation already has a device with this key
 * fingerprint (the unique index `offline_devices_by_key`). ON CONFLICT rather than a read first, so
 * two concurrent enrolments of one key give one device and one refusal, never a 500: the second
 * waits for the first to commit and then does nothing.
 */
export async function insertDevice(tx: Queryable, device: NewDevice): Promise<DeviceRecord | undefined> {
  const row = await first(
    tx,
    qb
      .insertInto("offline_devices")
      .values({
        organization_id: device.organizationId,
        device_id: device.deviceId,
        label: device.label,
        channel: device.channel,
        public_key_spki: device.publicKeySpki,
        key_fingerprint: device.keyFingerprint,
        enrolled_at: device.enrolledAt,
        enrolled_by: device.enrolledBy,
      })
      .onConflict((oc) => oc.columns(["organization_id", "key_fingerprint"]).doNothing())
      .returningAll(),
  );
  return row && deviceOf(row);
}

/**
 * Marks an active device revoked; undefined when the organisation has no such active device (none
 * at all, or already revoked: the caller tells them apart). One conditional UPDATE, so of two
 * concurrent revocations exactly one succeeds; it waits for captures holding the row's share lock.
 */
export async function markDeviceRevoked(
  tx: Queryable,
  input: { organizationId: string; deviceId: string; revokedAt: number; revokedBy: string; reason: string },
): Promise<DeviceRecord | undefined> {
  const row = await first(
    tx,
    qb
      .updateTable("offline_devices")
      .set({ revoked_at: input.revokedAt, revoked_by: input.revokedBy, revocation_reason: input.reason })
      .where("organization_id", "=", input.organizationId)
      .where("device_id", "=", input.deviceId)
      .where("revoked_at", "is", null)
      .returningAll(),
  );
  return row && deviceOf(row);
}

/**
 * A page's worth of the organisation's devices, newest enrolment first (enrolled_at, then
 * device_id, both descending): those after `after` (the last row's key), at most `limit`.
 */
export async function listDevicesOfOrganization(
  db: Queryable,
  organizationId: string,
  read: {
    status?: "active" | "revoked" | undefined;
    after?: readonly [number, string] | undefined;
    limit: number;
  },
): Promise<DeviceRecord[]> {
  let query = qb.selectFrom("offline_devices").selectAll().where("organization_id", "=", organizationId);
  if (read.status === "active") query = query.where("revoked_at", "is", null);
  if (read.status === "revoked") query = query.where("revoked_at", "is not", null);
  const after = read.after;
  if (after)
    query = query.where((eb) => eb(eb.refTuple("enrolled_at", "device_id"), "<", eb.tuple(...after)));
  const found = await rows(
    db,
    query.orderBy("enrolled_at", "desc").orderBy("device_id", "desc").limit(read.limit),
  );
  return found.map(deviceOf);
}

/** The organisation's devices with these ids, by id (audit verify: the rows its entries name). */
export async function devicesWithIds(
  db: Queryable,
  organizationId: string,
  deviceIds: readonly string[],
): Promise<Map<string, DeviceRecord>> {
  if (deviceIds.length === 0) return new Map();
  const found = await rows(
    db,
    qb
      .selectFrom("offline_devices")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("device_id", "in", [...deviceIds]),
  );
  return new Map(found.map((row) => [row.device_id, deviceOf(row)]));
}

/** Up to `limit` devices with ids after `afterDeviceId`, by id (audit verify's keyset scan). */
export async function scanDevices(
  db: Queryable,
  organizationId: string,
  afterDeviceId: string,
  limit: number,
): Promise<DeviceRecord[]> {
  const found = await rows(
    db,
    qb
      .selectFrom("offline_devices")
      .selectAll()
      .where("organization_id", "=", organizationId)
      .where("device_id", ">", afterDeviceId)
      .orderBy("device_id")
      .limit(limit),
  );
  return found.map(deviceOf);
}
