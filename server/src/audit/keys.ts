// Audit-hash keys by version (config.auditKeys, from GUARD_AUDIT_HASH_KEYS). New hashes use the
// highest version; every stored hash records its version, and verification looks the key up by that
// version, so adding a key rotates without invalidating anything already stored.
import { computeAuditHash, type AuditHashInput } from "@guard/contract";

export type AuditKeys = Readonly<Record<number, string>>;

export interface KeyedAuditHash {
  auditHash: string;
  auditKeyVersion: number;
}

function currentAuditKeyVersion(keys: AuditKeys): number {
  const versions = Object.keys(keys).map(Number);
  if (versions.length === 0) throw new Error("no audit-hash key is configured");
  return Math.max(...versions);
}

/** The contract audit hash of `input` under the current key. */
export function auditHashNow(keys: AuditKeys, input: AuditHashInput): KeyedAuditHash {
  const version = currentAuditKeyVersion(keys);
  return { auditHash: computeAuditHash(keys[version]!, input), auditKeyVersion: version };
}

/** Recomputes a stored hash with the key of its version; a reason when it does not match. */
export function checkAuditHash(
  keys: AuditKeys,
  input: AuditHashInput,
  stored: KeyedAuditHash,
): string | null {
  const secret = keys[stored.auditKeyVersion];
  if (secret === undefined) return `audit key version ${stored.auditKeyVersion} is not configured`;
  return computeAuditHash(secret, input) === stored.auditHash ? null : "audit hash does not match the record";
}
