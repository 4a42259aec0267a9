// The rules of enrolled devices: enrolling a device's P-256 public key, revoking it, listing them.
// The HTTP routes (routes.ts) and `guard devices` (cli/commands/devices.ts) both call these, so a
// key refused on one is refused on the other with the same message. Every change is on the
// organisation's audit chain, queued in the same transaction as the row it describes.
import { createHash, createPublicKey, type KeyObject } from "node:crypto";
import { appendAuditEntry } from "../../audit/chain.js";
import type { Queryable } from "../../db/database.js";
import { Failure, notFound, validationError } from "../../lib/failure.js";
import { newId } from "../../lib/ids.js";
import { keysetPage, pageScope, type Page, type PageRequest } from "../../lib/paging.js";
import {
  findDevice,
  insertDevice,
  listDevicesOfOrganization,
  markDeviceRevoked,
  type DeviceChannel,
  type DeviceRecord,
} from "./store.js";

export const DEVICE_CHANNELS: readonly DeviceChannel[] = ["qr", "agent_app", "pos", "async_link", "ivr"];
export const DEVICE_STATUSES = ["active", "revoked"] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

export const MAX_LABEL_LENGTH = 200;
export const MAX_REASON_LENGTH = 500;
/** Far above a P-256 SPKI (91 bytes, 124 base64 characters): refuses a pasted blob before parsing. */
const MAX_KEY_TEXT_LENGTH = 4096;

/** Who changed a device: a staff member, the organisation's service key, or the CLI's OS user. */
export interface DeviceActor {
  kind: "staff" | "service" | "system";
  id: string;
}

/** A device as the contract's `OfflineDevice` carries it. */
export interface DeviceWire {
  deviceId: string;
  label: string;
  channel: DeviceChannel;
  publicKeySpki: string;
  keyFingerprint: string;
  enrolledAt: number;
  enrolledBy: string;
  revokedAt: number | null;
  revokedBy: string | null;
  revocationReason: string | null;
}

export const deviceToWire = (device: DeviceRecord): DeviceWire => ({
  deviceId: device.deviceId,
  label: device.label,
  channel: device.channel,
  publicKeySpki: device.publicKeySpki,
  keyFingerprint: device.keyFingerprint,
  enrolledAt: device.enrolledAt,
  enrolledBy: device.enrolledBy,
  revokedAt: device.revokedAt,
  revokedBy: device.revokedBy,
  revocationReason: device.revocationReason,
});

/** A parsed, accepted device key: its canonical base64 and its fingerprint. */
export interface DeviceKey {
  publicKeySpki: string;
  keyFingerprint: string;
}

/**
 * The DER header of every P-256 SPKI with an uncompressed point (capture-artifact.md gives the same
 * bytes for iOS keys): SEQUENCE, AlgorithmIdentifier (id-ecPublicKey, prime256v1), BIT STRING.
 */
const P256_SPKI_PREFIX = Buffer.from("3059301306072a8648ce3d020106082a8648ce3d030107034200", "hex");

/**
 * The one canonical SPKI of a P-256 key: the prefix, then 04 ‖ X ‖ Y. Built from the key's
 * coordinates because node:crypto re-exports a key in the point form it was read in (a compressed
 * point stays compressed), so comparing with its own export would not pin the encoding down.
 */
function uncompressedSpki(key: KeyObject): Buffer {
  const { x, y } = key.export({ format: "jwk" });
  return Buffer.concat([
    P256_SPKI_PREFIX,
    Buffer.from([0x04]),
    Buffer.from(x ?? "", "base64url"),
    Buffer.from(y ?? "", "base64url"),
  ]);
}

const badKey = (why: string) =>
  validationError("publicKeySpki", `publicKeySpki must be standard base64 of a P-256 SPKI DER: ${why}`);

/**
 * Checks an enrolment key the way verification will read it (node:crypto, never a hand-rolled
 * parser): canonical padded standard base64 of a SubjectPublicKeyInfo DER whose key is EC on
 * prime256v1. The DER must also be the key's one canonical encoding (uncompressed point, no
 * trailing bytes), so one key has one fingerprint: a compressed or otherwise re-encoded copy of an
 * enrolled key cannot be enrolled as a second device.
 */
export function parseDeviceKey(text: unknown): DeviceKey {
  if (typeof text !== "string" || text.length === 0) throw badKey("it is empty");
  if (text.length > MAX_KEY_TEXT_LENGTH) throw badKey(`it is longer than ${MAX_KEY_TEXT_LENGTH} characters`);
  const der = Buffer.from(text, "base64");
  // Node's decoder skips what it cannot read; re-encoding shows whether `text` was canonical.
  if (der.length === 0 || der.toString("base64") !== text)
    throw badKey("it is not canonical padded standard base64 (no line breaks, no URL-safe alphabet)");
  let key: KeyObject;
  try {
    key = createPublicKey({ key: der, format: "der", type: "spki" });
  } catch {
    throw badKey("the bytes are not a SubjectPublicKeyInfo");
  }
  if (key.asymmetricKeyType !== "ec")
    throw badKey(`it is an ${key.asymmetricKeyType ?? "unknown"} key, not an EC key`);
  const curve = key.asymmetricKeyDetails?.namedCurve;
  // secp256k1 keys also make 64-byte signatures; only P-256 is the capture format's curve.
  if (curve !== "prime256v1") throw badKey(`the key is on ${curve ?? "an unnamed curve"}, not P-256`);
  if (!uncompressedSpki(key).equals(der))
    throw badKey("it is not the uncompressed DER encoding of the key (91 bytes)");
  return { publicKeySpki: text, keyFingerprint: createHash("sha256").update(der).digest("hex") };
}

/** Free text of 1..max characters that is not only whitespace; stored as given. */
function text(value: unknown, field: string, max: number): string {
  if (typeof value !== "string" || value.trim().length === 0)
    throw validationError(field, `${field} must be 1-${max} characters, not only whitespace`);
  if (value.length > max) throw validationError(field, `${field} must be at most ${max} characters`);
  return value;
}

function channelOf(value: unknown): DeviceChannel {
  const channel = DEVICE_CHANNELS.find((known) => known === value);
  if (!channel) throw validationError("channel", `channel must be one of ${DEVICE_CHANNELS.join(", ")}`);
  return channel;
}

export interface EnrolInput {
  organizationId: string;
  label: unknown;
  channel: unknown;
  publicKeySpki: unknown;
  actor: DeviceActor;
}

/**
 * Enrols a device in `tx`: a new `dev_` id, the key checked and fingerprinted, an
 * `offline_device.enrolled` chain entry. A key the organisation already enrolled (revoked or not)
 * is CONFLICT: a device that needs re-enrolling makes a new key pair.
 */
export async function enrolDevice(tx: Queryable, input: EnrolInput, now: number): Promise<DeviceRecord> {
  const label = text(input.label, "label", MAX_LABEL_LENGTH);
  const channel = channelOf(input.channel);
  const key = parseDeviceKey(input.publicKeySpki);
  const device = await insertDevice(tx, {
    organizationId: input.organizationId,
    deviceId: newId("dev"),
    label,
    channel,
    publicKeySpki: key.publicKeySpki,
    keyFingerprint: key.keyFingerprint,
    enrolledAt: now,
    enrolledBy: input.actor.id,
  });
  if (!device) {
    throw new Failure(
      "CONFLICT",
      `This key (fingerprint ${key.keyFingerprint}) is already enrolled in the organisation`,
      { field: "publicKeySpki" },
    );
  }
  await appendAuditEntry(
    tx,
    {
      organizationId: device.organizationId,
      entryType: "offline_device.enrolled",
      subjectId: device.deviceId,
      payload: {
        deviceId: device.deviceId,
        label: device.label,
        channel: device.channel,
        keyFingerprint: device.keyFingerprint,
        actor: { kind: input.actor.kind, id: input.actor.id },
      },
    },
    now,
  );
  return device;
}

export interface RevokeInput {
  organizationId: string;
  deviceId: string;
  reason: unknown;
  actor: DeviceActor;
}

/**
 * Revokes an active device in `tx`, with an `offline_device.revoked` chain entry. NOT_FOUND for an
 * unknown id or another organisation's device; CONFLICT when it is already revoked.
 */
export async function revokeDevice(tx: Queryable, input: RevokeInput, now: number): Promise<DeviceRecord> {
  const reason = text(input.reason, "reason", MAX_REASON_LENGTH);
  const device = await markDeviceRevoked(tx, {
    organizationId: input.organizationId,
    deviceId: input.deviceId,
    revokedAt: now,
    revokedBy: input.actor.id,
    reason,
  });
  if (!device) {
    const existing = await findDevice(tx, input.organizationId, input.deviceId);
    if (!existing) throw notFound(`No device ${input.deviceId} in this organisation`);
    throw new Failure(
      "CONFLICT",
      `Device ${input.deviceId} was already revoked (${new Date(existing.revokedAt ?? 0).toISOString()})`,
    );
  }
  await appendAuditEntry(
    tx,
    {
      organizationId: device.organizationId,
      entryType: "offline_device.revoked",
      subjectId: device.deviceId,
      payload: {
        deviceId: device.deviceId,
        label: device.label,
        channel: device.channel,
        keyFingerprint: device.keyFingerprint,
        actor: { kind: input.actor.kind, id: input.actor.id },
        reason,
      },
    },
    now,
  );
  return device;
}

export function statusOf(value: unknown): DeviceStatus | undefined {
  if (value === undefined) return undefined;
  const status = DEVICE_STATUSES.find((known) => known === value);
  if (!status) throw validationError("status", `status must be one of ${DEVICE_STATUSES.join(", ")}`);
  return status;
}

/**
 * One page of the organisation's devices, newest enrolment first. Read by keyset from the table
 * (a fleet can run to thousands of devices, so the list is not read whole).
 */
export async function pageDevices(
  db: Queryable,
  organizationId: string,
  query: PageRequest & { status?: DeviceStatus | undefined },
): Promise<Page<DeviceRecord>> {
  const status = statusOf(query.status);
  return keysetPage(
    query,
    {
      // The filter is part of the scope: a cursor of the revoked list does not page the active one.
      scope: pageScope("listDevices", organizationId, status ?? "all"),
      shape: ["number", "string"],
      keyOf: (d: DeviceRecord): [number, string] => [d.enrolledAt, d.deviceId],
    },
    (after, limit) => listDevicesOfOrganization(db, organizationId, { status, after, limit }),
  );
}
