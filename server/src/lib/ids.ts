// Opaque ids: a short type prefix, `_`, then random base62 (the contract's `Id` pattern,
// `^[a-z]{2,6}_[0-9A-Za-z]{8,64}$`). Random rather than sequential so ids never reveal volume or
// order, and so several instances can mint them without coordination.
import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
/**
 * The character each random byte stands for, by byte value; 0 for bytes 248-255, which are
 * dropped (rejection sampling: 248 = 4 × 62, so every character is equally likely).
 */
const CHARACTER_FOR_BYTE = new Uint8Array(256).map((_, byte) =>
  byte < 248 ? ALPHABET.charCodeAt(byte % 62) : 0,
);

// Random bytes are drawn from the CSPRNG a few kilobytes at a time, as Node's own
// crypto.randomUUID does: one call per id into OpenSSL costs more than the id. Each refill turns
// the bytes into base62 characters in place (CHARACTER_FOR_BYTE), and each id is cut from that
// buffer as one string; cut characters are wiped, so the buffer never holds an id already handed
// out. A request and a decision id are minted on every gate request, so each is cut as one string
// rather than appended a character at a time (a chain of partial strings, copied again wherever
// the id is used).
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolStart = 0;
let poolEnd = 0;

function refill(): void {
  pool.fill(0);
  pool = randomBytes(POOL_BYTES);
  let kept = 0;
  for (let index = 0; index < pool.length; index++) {
    const character = CHARACTER_FOR_BYTE[pool[index] as number] as number;
    if (character !== 0) pool[kept++] = character;
  }
  pool.fill(0, kept);
  poolStart = 0;
  poolEnd = kept;
}

/** `length` characters of uniform base62. */
export function randomBase62(length: number): string {
  if (length > POOL_BYTES / 2) return randomBase62(POOL_BYTES / 2) + randomBase62(length - POOL_BYTES / 2);
  // A refill keeps about 3 970 characters of 4 096 bytes; `while` rather than `if`, so that an
  // unlucky draw with fewer than `length` left cannot hand out wiped bytes.
  while (poolEnd - poolStart < length) refill();
  const end = poolStart + length;
  const id = pool.toString("latin1", poolStart, end);
  pool.fill(0, poolStart, end);
  poolStart = end;
  return id;
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
