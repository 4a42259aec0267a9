// `dpdpcca/2`, the offline capture artefact (spec: contract/specs/capture-artifact.md, vectors:
// contract/vectors/capture-artifact.json). A device signs this string with its enrolled P-256 key while
// offline; the server rebuilds it from the synced session and verifies. Every token is framed as
// `<UTF-8 byte length>:<value>`, so values may contain any character, `|` and `:` included.
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from "node:crypto";
import { decodeStrictBase64 } from "./base64.js";

export const CAPTURE_ARTIFACT_FORMAT = "dpdpcca/2";

export const CAPTURE_CHANNELS = ["qr", "agent_app", "pos", "async_link", "ivr"] as const;
export type CaptureChannel = (typeof CAPTURE_CHANNELS)[number];

export const PURPOSE_GRANT_STATUSES = ["opt_in", "opt_out"] as const;
export type PurposeGrantStatus = (typeof PURPOSE_GRANT_STATUSES)[number];

export const PRINCIPAL_HANDLE_KINDS = ["phone_hash", "uhid", "cbs_ref", "none"] as const;
export type PrincipalHandleKind = (typeof PRINCIPAL_HANDLE_KINDS)[number];

/** One purpose the principal was shown. Only `purposeKey` and `status` are signed. */
export interface CapturePurposeGrant {
  purposeKey: string;
  status: PurposeGrantStatus;
  purposeLabel?: string;
  category?: "essential" | "non_essential";
}

/**
 * The signed content of an `OfflineCaptureSession`, plus `organizationId`, which the wire session does
 * not carry: the server takes it from the device's enrolment, the device from its own configuration.
 */
export interface CaptureArtifactSession {
  clientSessionId: string;
  organizationId: string;
  deviceId: string;
  noticeId: string;
  /** Non-negative safe integer. */
  noticeVersion: number;
  noticeLocale: string;
  purposeGrants: readonly CapturePurposeGrant[];
  dataTypes: readonly string[];
  /** Absent (or null) is signed as kind `none`, value `null`. `value` is signed raw (not hashed). */
  principalHandle?: { kind: PrincipalHandleKind; value: string } | null;
  /** Device clock, epoch milliseconds; non-negative safe integer. */
  capturedAtClient: number;
  channel: CaptureChannel;
}

export type CaptureArtifactErrorCode = "duplicate_purpose_key" | "invalid_field";

/** The session cannot be made into an artefact; the server rejects it as `invalid_session`. */
export class CaptureArtifactError extends Error {
  override name = "CaptureArtifactError";
  constructor(
    readonly code: CaptureArtifactErrorCode,
    /** Path of the offending value, e.g. `purposeGrants[2].purposeKey`. */
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`);
  }
}

// See audit-hash.ts: an unpaired surrogate has no UTF-8 encoding and would be replaced by U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

function text(value: unknown, field: string): string {
  if (typeof value !== "string") throw new CaptureArtifactError("invalid_field", field, "must be a string");
  if (LONE_SURROGATE.test(value)) {
    throw new CaptureArtifactError(
      "invalid_field",
      field,
      "must be well-formed Unicode (no unpaired surrogate)",
    );
  }
  return value;
}

function integer(value: unknown, field: string): string {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw new CaptureArtifactError("invalid_field", field, "must be a non-negative safe integer");
  }
  return String(value);
}

function oneOf<T extends string>(allowed: readonly T[], value: unknown, field: string): T {
  if (!(allowed as readonly unknown[]).includes(value)) {
    throw new CaptureArtifactError("invalid_field", field, `must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}

function list(value: unknown, field: string): readonly unknown[] {
  if (!Array.isArray(value)) throw new CaptureArtifactError("invalid_field", field, "must be an array");
  return value;
}

function record(value: unknown, field: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new CaptureArtifactError("invalid_field", field, "must be an object");
  }
  return value as Record<string, unknown>;
}

/** UTF-8 byte order, which is also Unicode code point order (unlike JavaScript's default sort). */
function byUtf8Bytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function token(value: string): string {
  return `${Buffer.byteLength(value, "utf8")}:${value}`;
}

/**
 * The `dpdpcca/2` canonical string of a session. Throws {@link CaptureArtifactError} when two grants
 * share a purposeKey or a signed field is missing, ill-typed or outside its enumeration.
 */
export function canonicalizeCaptureArtifact(session: CaptureArtifactSession): string {
  const grants = list(session.purposeGrants, "purposeGrants").map((grant, index) => {
    const fields = record(grant, `purposeGrants[${index}]`);
    return {
      purposeKey: text(fields.purposeKey, `purposeGrants[${index}].purposeKey`),
      status: oneOf(PURPOSE_GRANT_STATUSES, fields.status, `purposeGrants[${index}].status`),
    };
  });
  const seen = new Set<string>();
  grants.forEach(({ purposeKey }, index) => {
    if (seen.has(purposeKey)) {
      throw new CaptureArtifactError(
        "duplicate_purpose_key",
        `purposeGrants[${index}].purposeKey`,
        `purposeKey ${JSON.stringify(purposeKey)} appears more than once`,
      );
    }
    seen.add(purposeKey);
  });
  grants.sort((a, b) => byUtf8Bytes(a.purposeKey, b.purposeKey));

  const dataTypes = list(session.dataTypes, "dataTypes").map((dataType, index) =>
    text(dataType, `dataTypes[${index}]`),
  );
  dataTypes.sort(byUtf8Bytes);

  let handleKind: string = "none";
  let handleValue = "null";
  if (session.principalHandle !== undefined && session.principalHandle !== null) {
    const handle = record(session.principalHandle, "principalHandle");
    handleKind = oneOf(PRINCIPAL_HANDLE_KINDS, handle.kind, "principalHandle.kind");
    handleValue = text(handle.value, "principalHandle.value");
  }

  const values = [
    CAPTURE_ARTIFACT_FORMAT,
    text(session.clientSessionId, "clientSessionId"),
    text(session.organizationId, "organizationId"),
    text(session.deviceId, "deviceId"),
    text(session.noticeId, "noticeId"),
    integer(session.noticeVersion, "noticeVersion"),
    text(session.noticeLocale, "noticeLocale"),
    String(grants.length),
    ...grants.flatMap((grant) => [grant.purposeKey, grant.status]),
    String(dataTypes.length),
    ...dataTypes,
    handleKind,
    handleValue,
    integer(session.capturedAtClient, "capturedAtClient"),
    oneOf(CAPTURE_CHANNELS, session.channel, "channel"),
  ];
  return values.map(token).join("|");
}

const P1363_P256_SIGNATURE_BYTES = 64;

function enrolledDeviceKey(publicKeySpkiBase64: string): KeyObject | undefined {
  const der = decodeStrictBase64(publicKeySpkiBase64);
  if (der === undefined) return undefined;
  try {
    const key = createPublicKey({ key: der, format: "der", type: "spki" });
    // Only P-256: a secp256k1 key also makes 64-byte signatures and must not be mistaken for one.
    return key.asymmetricKeyType === "ec" && key.asymmetricKeyDetails?.namedCurve === "prime256v1"
      ? key
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ECDSA P-256 / SHA-256 check of the UTF-8 canonical string against a base64 raw `r‖s` signature.
 * False (never a throw) for a malformed or non-P-256 key, a signature that is not canonical base64 of
 * exactly 64 bytes (DER is refused), or a mismatch. High-S signatures are accepted, as devices do not
 * normalise S.
 */
export function verifyCaptureSignature(
  publicKeySpkiBase64: string,
  canonical: string,
  signatureBase64: string,
): boolean {
  const key = enrolledDeviceKey(publicKeySpkiBase64);
  const signature = decodeStrictBase64(signatureBase64);
  if (
    key === undefined ||
    signature?.length !== P1363_P256_SIGNATURE_BYTES ||
    typeof canonical !== "string"
  ) {
    return false;
  }
  try {
    return verify("sha256", Buffer.from(canonical, "utf8"), { key, dsaEncoding: "ieee-p1363" }, signature);
  } catch {
    return false;
  }
}

/**
 * Signs a canonical string as a device would (for tests and SDK fixtures; real devices sign in their
 * secure element). `privateKey` is a KeyObject or base64 PKCS#8 DER. Returns base64 raw `r‖s`.
 */
export function signCaptureArtifact(privateKey: KeyObject | string, canonical: string): string {
  const key =
    typeof privateKey === "string"
      ? createPrivateKey({ key: Buffer.from(privateKey, "base64"), format: "der", type: "pkcs8" })
      : privateKey;
  return sign("sha256", Buffer.from(canonical, "utf8"), { key, dsaEncoding: "ieee-p1363" }).toString(
    "base64",
  );
}
