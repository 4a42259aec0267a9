// Enrolled-device evidence (offline/devices/devices.ts writes it): each offline_devices row has one
// `offline_device.enrolled` entry about it (label, channel, key fingerprint, who; its time is the
// enrolment time) and, once revoked, one `offline_device.revoked` entry (who, why; its time is the
// revocation time). Checked both ways: each entry's device exists; each row is the state its entries
// give, and its stored key is the one the fingerprint on the chain names (the key itself is not in
// the payload: the fingerprint commits to it).
import { createHash } from "node:crypto";
import { devicesWithIds, scanDevices, type DeviceRecord } from "../../offline/devices/store.js";
import { differences } from "../findings.js";
import { chainEntriesAbout, type StoredAuditEntry } from "../store.js";
import { checkEntriesNameRows, payloadOf, type EvidenceKind } from "./checker.js";

const ENROLLED = "offline_device.enrolled";
const REVOKED = "offline_device.revoked";
const TABLE = "offline_devices";

const actorIdOf = (entry: StoredAuditEntry | undefined): unknown => {
  const actor = entry && payloadOf(entry).actor;
  return typeof actor === "object" && actor !== null ? ((actor as { id?: unknown }).id ?? null) : null;
};

const stored = (row: DeviceRecord): Record<string, unknown> => ({
  label: row.label,
  channel: row.channel,
  key_fingerprint: row.keyFingerprint,
  // What the stored key hashes to: a swapped key no longer matches the fingerprint on the chain.
  public_key_spki: createHash("sha256").update(Buffer.from(row.publicKeySpki, "base64")).digest("hex"),
  enrolled_at: row.enrolledAt,
  enrolled_by: row.enrolledBy,
  revoked_at: row.revokedAt,
  revoked_by: row.revokedBy,
  revocation_reason: row.revocationReason,
});

function committed(
  enrolled: StoredAuditEntry,
  revoked: StoredAuditEntry | undefined,
): Record<string, unknown> {
  const payload = payloadOf(enrolled);
  return {
    label: payload.label ?? null,
    channel: payload.channel ?? null,
    key_fingerprint: payload.keyFingerprint ?? null,
    public_key_spki: payload.keyFingerprint ?? null,
    enrolled_at: enrolled.createdAt,
    enrolled_by: actorIdOf(enrolled),
    revoked_at: revoked?.createdAt ?? null,
    revoked_by: revoked ? actorIdOf(revoked) : null,
    revocation_reason: revoked ? (payloadOf(revoked).reason ?? null) : null,
  };
}

export const offlineDeviceEvidence: EvidenceKind = {
  tables: [TABLE],
  entryTypes: [ENROLLED, REVOKED],
  start(context) {
    const { db, organizationId, findings } = context;
    return {
      entryTypes: [ENROLLED, REVOKED],
      // Entry -> row: the device each entry names exists (its content is compared in checkRows,
      // where both of a device's entries are at hand).
      async checkEntries(entries) {
        await checkEntriesNameRows(findings, entries, {
          idField: "deviceId",
          table: TABLE,
          noun: "device",
          load: (ids) => devicesWithIds(db, organizationId, ids),
        });
      },
      // Row -> entries: every device has exactly one enrolment, at most one revocation, and is the
      // state they give.
      async checkRows() {
        let after = "";
        for (;;) {
          const rows = await scanDevices(db, organizationId, after, context.pageSize);
          if (rows.length === 0) return;
          after = rows[rows.length - 1]!.deviceId;
          context.checked(TABLE, rows.length);
          const entries = await chainEntriesAbout(
            db,
            organizationId,
            rows.map((r) => r.deviceId),
            [ENROLLED, REVOKED],
          );
          for (const row of rows) {
            const own = entries.filter((e) => e.subjectId === row.deviceId);
            const enrolments = own.filter((e) => e.entryType === ENROLLED);
            const revocations = own.filter((e) => e.entryType === REVOKED);
            const problem = (seq: number | null, reason: string) =>
              findings.add({ table: TABLE, recordId: row.deviceId, seq, reason });
            const enrolled = enrolments[0];
            if (!enrolled) {
              problem(null, "the device has no enrolment entry in the audit chain");
              continue;
            }
            if (enrolments.length > 1)
              problem(enrolments[1]!.seq, "the device has more than one enrolment entry");
            if (revocations.length > 1)
              problem(revocations[1]!.seq, "the device has more than one revocation entry");
            const revoked = revocations[0];
            const differ = differences(stored(row), committed(enrolled, revoked));
            if (differ.length > 0) problem((revoked ?? enrolled).seq, differ.join("; "));
          }
        }
      },
    };
  },
};
