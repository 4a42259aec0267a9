// Secrets Guard must read back, at rest: webhook endpoint secrets (to sign each delivery), the
// withdrawal tokens of offline consents (to answer a re-sync again), idempotent answers that may
// carry a token. Unlike API keys (only ever compared, so stored as a hash), these are encrypted:
// AES-256-GCM under a key derived from GUARD_SECRETS_KEY, with the owning row's identity as
// associated data so a ciphertext copied onto another row does not decrypt.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { MIN_SECRET_LENGTH } from "../config.js";

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Domain separation: each kind of stored secret may derive its own key from GUARD_SECRETS_KEY.
// This first one stays the default, so every value sealed before purposes existed still opens.
const DEFAULT_PURPOSE = "guard webhook endpoint secret v1";

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export class SecretBox {
  private readonly key: Buffer;

  /** `purpose` names the kind of secret; a box of another purpose cannot open what this one seals. */
  constructor(secretsKey: string, purpose: string = DEFAULT_PURPOSE) {
    if (secretsKey.length < MIN_SECRET_LENGTH) {
      throw new SecretBoxError(`the secrets key must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    this.key = Buffer.from(hkdfSync("sha256", Buffer.from(secretsKey, "utf8"), Buffer.alloc(0), purpose, 32));
  }

  /** Whether `value` has the shape `seal` gives (and so is not plain text stored before sealing). */
  static isSealed(value: string): boolean {
    return value.startsWith(`${FORMAT}.`);
  }

  /** `v1.<iv>.<tag>.<ciphertext>` (base64url parts). */
  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(associatedData, "utf8"));
    const ciphertext = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
      .join(".");
  }

  /** Throws SecretBoxError when the value is malformed, was sealed under another key, or was moved. */
  open(sealed: string, associatedData: string): string {
    const [format, iv, tag, ciphertext, ...rest] = sealed.split(".");
    if (format !== FORMAT || !iv || !tag || ciphertext === undefined || rest.length > 0) {
      throw new SecretBoxError("stored secret has an unknown format");
    }
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, Buffer.from(iv, "base64url"), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(associatedData, "utf8"));
      decipher.setAuthTag(Buffer.from(tag, "base64url"));
      return Buffer.concat([
        decipher.update(Buffer.from(ciphertext, "base64url")),
        decipher.final(),
      ]).toString("utf8");
    } catch {
      throw new SecretBoxError(
        "stored secret does not decrypt with GUARD_SECRETS_KEY (was the key changed?)",
      );
    }
  }
}
