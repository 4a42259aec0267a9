// Opaque ids: a short type prefix, `_`, then random base62 (the contract's `Id` pattern,
// `^[a-z]{2,6}_[0-9A-Za-z]{8,64}$`). Random rather than sequential so ids never reveal volume or
// order, and so several instances can mint them without coordination.
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes are drawn from the CSPRNG a few kilobytes at a time and handed out from memory, as
// Node's own crypto.randomUUID does: one call per request into OpenSSL costs more than the id.
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function randomByte(): number {
  if (poolOffset >= pool.length) {
    pool = randomBytes(POOL_SIZE);
    poolOffset = 0;
  }
  const byte = pool[poolOffset] as number;
  // Each byte is used once; wipe it so the pool never holds bytes already handed out.
  pool[poolOffset] = 0;
  poolOffset += 1;
  return byte;
}

/** `length` characters of uniform base62 (rejection sampling keeps the distribution flat). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += ALPHABET[byte % 62];
  }
  return out;
}

export type IdPrefix = "org" | "stf" | "ses" | "key" | "prn" | "ntc" | "ban" | "req" | (string & {});

/** A new id such as `org_3kP9…` (20 random characters, about 119 bits). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

/** True when `value` has the shape of a contract `Id`. */
export function isId(value: string): boolean {
  return /^[a-z]{2,6}_[0-9A-Za-z]{8,64}$/.test(value);
}
