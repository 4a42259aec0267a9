// The server's side of `dpdpcca/2` (contract/specs/capture-artifact.md): the canonical string comes
// from the contract's reference (`canonicalizeCaptureArtifact`, byte for byte what the SDKs sign),
// and the signature is checked with node:crypto (ECDSA P-256, SHA-256, raw r‖s) against the device's
// enrolled key. The contract's `verifyCaptureSignature` parses the SPKI on every call; a 200-session
// batch from one device would parse its key 200 times, so the parsed KeyObject is cached here per
// (organisation, device, key fingerprint). A fingerprint is fixed for a device id (a re-keyed device
// is a new device), so an entry never goes stale; revocation is checked on the locked device row,
// never through this cache. The acceptance rules are the contract's exactly (the vectors test both).
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import {
  CaptureArtifactError,
  canonicalizeCaptureArtifact,
  type CaptureArtifactErrorCode,
  type CaptureArtifactSession,
} from "@guard/contract";
import { LRUCache } from "lru-cache";

/** What the canonical form makes of a session: its string, or why it is not an artefact. */
export type Artefact =
  | { ok: true; canonical: string; canonicalSha256: string }
  | { ok: false; code: CaptureArtifactErrorCode; field: string; message: string };

/**
 * The session's `dpdpcca/2` string, with `organizationId` the device's enrolment organisation (the
 * API key's: a device enrolled elsewhere then fails verification rather than being believed).
 */
export function artefactOf(
  session: Omit<CaptureArtifactSession, "organizationId">,
  organizationId: string,
): Artefact {
  try {
    const canonical = canonicalizeCaptureArtifact({ ...session, organizationId });
    return {
      ok: true,
      canonical,
      canonicalSha256: createHash("sha256").update(canonical, "utf8").digest("hex"),
    };
  } catch (error) {
    if (error instanceof CaptureArtifactError) {
      return { ok: false, code: error.code, field: error.field, message: error.message };
    }
    throw error;
  }
}

/** The key a signature is checked against: the enrolled SPKI, and who it belongs to (the cache key). */
export interface DeviceKey {
  organizationId: string;
  deviceId: string;
  keyFingerprint: string;
  /** Standard base64 of the SPKI DER, as enrolled. */
  publicKeySpki: string;
}

// Canonical padded standard base64 only (the contract's rule): Node's decoder skips unknown
// characters and tolerates missing padding, so two texts could otherwise decode to one signature.
const STANDARD_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function strictBase64(text: string): Buffer | undefined {
  if (!STANDARD_BASE64.test(text)) return undefined;
  const bytes = Buffer.from(text, "base64");
  return bytes.toString("base64") === text ? bytes : undefined;
}

const P1363_P256_SIGNATURE_BYTES = 64;

/** Parsed keys; `null` remembers a key that is not a usable P-256 SPKI. A few thousand devices fit. */
const keys = new LRUCache<string, { key: KeyObject | null }>({ max: 5_000 });

/** The P-256 KeyObject of an enrolled SPKI, or null when it is not one (parsed once per key). */
export function deviceKeyObject(device: DeviceKey): KeyObject | null {
  const cacheKey = `${device.organizationId}\n${device.deviceId}\n${device.keyFingerprint}`;
  const cached = keys.get(cacheKey);
  if (cached) return cached.key;
  const key = parseP256Spki(device.publicKeySpki);
  keys.set(cacheKey, { key });
  return key;
}

function parseP256Spki(spkiBase64: string): KeyObject | null {
  const der = strictBase64(spkiBase64);
  if (der === undefined) return null;
  try {
    const key = createPublicKey({ key: der, format: "der", type: "spki" });
    // Only P-256: a secp256k1 key also makes 64-byte signatures and must not pass for one.
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1"
      ? key
      : null;
  } catch {
    return null;
  }
}

/** The key and raw signature to check, or undefined when either is unusable (then: invalid). */
function verificationInputs(
  device: DeviceKey,
  signatureBase64: string,
): { key: KeyObject; signature: Buffer } | undefined {
  const key = deviceKeyObject(device);
  const signature = strictBase64(signatureBase64);
  if (key === null || signature?.length !== P1363_P256_SIGNATURE_BYTES) return undefined;
  return { key, signature };
}

/**
 * True when `signatureBase64` (canonical base64 of exactly 64 bytes, raw r‖s; DER is refused) is a
 * valid ECDSA P-256 / SHA-256 signature by the device's key over the canonical string's UTF-8
 * bytes. Never throws. High-S signatures are accepted, as devices do not normalise S.
 */
export function verifyDeviceSignature(
  device: DeviceKey,
  canonical: string,
  signatureBase64: string,
): boolean {
  const inputs = verificationInputs(device, signatureBase64);
  if (!inputs) return false;
  try {
    return verify(
      "sha256",
      Buffer.from(canonical, "utf8"),
      { key: inputs.key, dsaEncoding: "ieee-p1363" },
      inputs.signature,
    );
  } catch {
    return false;
  }
}

/**
 * verifyDeviceSignature on libuv's thread pool (node:crypto's callback form): a batch's
 * signatures are checked on every core at once, and the event loop keeps serving other requests
 * meanwhile. Same answers; never rejects.
 */
export function verifyDeviceSignatureInPool(
  device: DeviceKey,
  canonical: string,
  signatureBase64: string,
): Promise<boolean> {
  const inputs = verificationInputs(device, signatureBase64);
  if (!inputs) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      verify(
        "sha256",
        Buffer.from(canonical, "utf8"),
        { key: inputs.key, dsaEncoding: "ieee-p1363" },
        inputs.signature,
        (error, valid) => resolve(!error && valid),
      );
    } catch {
      resolve(false);
    }
  });
}
