// Endpoint secrets at rest. Unlike API keys (only ever compared, so stored as a hash), a webhook
// secret must be read back to sign each delivery, so it is encrypted: AES-256-GCM under a key
// derived from GUARD_SECRETS_KEY, with the owning row's identity as associated data so a ciphertext
// copied onto another endpoint's row does not decrypt.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { MIN_SECRET_LENGTH } from "../config.js";

const FORMAT = "v1";
const IV_BYTES = 12;
const TAG_BYTES = 16;
// Domain separation: the same GUARD_SECRETS_KEY may later key other stored secrets.
const HKDF_INFO = "guard webhook endpoint secret v1";

export class SecretBoxError extends Error {
  override name = "SecretBoxError";
}

export class SecretBox {
  private readonly key: Buffer;

  constructor(secretsKey: string) {
    if (secretsKey.length < MIN_SECRET_LENGTH) {
      throw new SecretBoxError(`the secrets key must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    this.key = Buffer.from(
      hkdfSync("sha256", Buffer.from(secretsKey, "utf8"), Buffer.alloc(0), HKDF_INFO, 32),
    );
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
