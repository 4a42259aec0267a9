// Secrets at rest and on the wire: hashing for high-entropy tokens, scrypt for passwords, and
// constant-time comparison everywhere a secret is checked.
import * as crypto from "node:crypto";
import {
  createHash,
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from "node:crypto";

// crypto.hash (Node >= 20.12), one call without a Hash object, is the faster way to hash a short
// string (Node's documentation); every API-key request pays for one. Older Node 20 releases fall
// back to createHash.
const oneShotHash = (crypto as { hash?: (algorithm: string, data: string, encoding: "hex") => string }).hash;

/**
 * SHA-256 hex of a high-entropy secret (API key, session token). A fast hash is right here: the
 * secret has ~128 bits of entropy, so there is nothing to brute-force, and lookups by hash stay cheap.
 */
export function sha256Hex(secret: string): string {
  return oneShotHash
    ? oneShotHash("sha256", secret, "hex")
    : createHash("sha256").update(secret, "utf8").digest("hex");
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, "utf8");
  const right = Buffer.from(b, "utf8");
  if (left.length !== right.length) {
    // Still spend a comparison so a length mismatch is not measurably faster.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

// scrypt parameters: N=2^15, r=8, p=1 uses 32 MiB (128 * N * r bytes) per hash, so each sign-in
// is deliberately slow; stored with each hash so they can be raised later without invalidating
// existing passwords.
const SCRYPT = { N: 2 ** 15, r: 8, p: 1, keyLength: 32, saltLength: 16 };
let scryptN = SCRYPT.N;

/**
 * Tests only: hash new passwords with a smaller scrypt cost (N), so the suites' thousands of staff
 * sign-ins do not each pay the deliberate cost. Verification always uses the cost stored with the
 * hash, so this changes nothing else. Nothing outside the test harness calls it; the service has
 * no setting for it.
 */
export function usePasswordHashCostForTests(n: number): void {
  scryptN = n;
}

function scrypt(password: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(password, salt, keyLength, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>` */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SCRYPT.saltLength);
  const { r, p } = SCRYPT;
  const N = scryptN;
  const key = await scrypt(password, salt, SCRYPT.keyLength, { N, r, p, maxmem: 128 * N * r * 2 });
  return ["scrypt", N, r, p, salt.toString("base64"), key.toString("base64")].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, saltB64, keyB64] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !saltB64 || !keyB64) return false;
  const expected = Buffer.from(keyB64, "base64");
  const N = Number(n);
  const key = await scrypt(password, Buffer.from(saltB64, "base64"), expected.length, {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 128 * N * Number(r) * 2,
  });
  return timingSafeEqual(key, expected);
}

let dummyHash: Promise<string> | undefined;

/**
 * The hash of a random password, made once. Sign-in verifies against it when the email is unknown,
 * so an unknown account costs the same time as a wrong password and cannot be told apart.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(16).toString("hex"));
  return dummyHash;
}
