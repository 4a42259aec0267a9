// Golden vectors of the offline capture artefact dpdpcca/2 (spec: contract/specs/capture-artifact.md),
// written to contract/vectors/capture-artifact.json: signed sessions, signature checks and refused
// sessions. ECDSA signing is randomised, so the builder takes the current file and keeps its test
// keys and every stored signature that still verifies; only a new case, or one whose canonical
// string changed, is signed afresh (`force` makes new keys and re-signs everything).
import {
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
  verify,
  type KeyObject,
} from "node:crypto";
import {
  canonicalizeCaptureArtifact,
  CaptureArtifactError,
  type CaptureArtifactSession,
} from "../../src/canonical/capture-artifact.js";
import { isRecord, json, utf8Hex, vectorFile, type JsonObject, type VectorCase } from "./shared.js";

interface StoredKey {
  privateKeyPkcs8Base64?: string;
  publicKeySpkiBase64: string;
}
type TestKeys = Record<"device" | "otherDevice" | "secp256k1" | "malformed", StoredKey>;

/** A truncated P-256 SPKI: the right prefix, no key. */
const MALFORMED_SPKI = "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE";

function newKey(curve: "prime256v1" | "secp256k1"): StoredKey {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: curve });
  return {
    privateKeyPkcs8Base64: privateKey.export({ format: "der", type: "pkcs8" }).toString("base64"),
    publicKeySpkiBase64: publicKey.export({ format: "der", type: "spki" }).toString("base64"),
  };
}

function privateKeyOf(stored: StoredKey): KeyObject {
  if (stored.privateKeyPkcs8Base64 === undefined) throw new Error("no private key stored");
  return createPrivateKey({
    key: Buffer.from(stored.privateKeyPkcs8Base64, "base64"),
    format: "der",
    type: "pkcs8",
  });
}

function rawVerify(stored: StoredKey, canonical: string, signatureBase64: string): boolean {
  const key = createPublicKey({
    key: Buffer.from(stored.publicKeySpkiBase64, "base64"),
    format: "der",
    type: "spki",
  });
  const signature = Buffer.from(signatureBase64, "base64");
  return verify("sha256", Buffer.from(canonical, "utf8"), { key, dsaEncoding: "ieee-p1363" }, signature);
}

const P256_ORDER = BigInt("0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");

/** (r, n - s): the other valid signature of the same message. */
function otherS(signatureBase64: string): string {
  const raw = Buffer.from(signatureBase64, "base64");
  const s = BigInt("0x" + raw.subarray(32).toString("hex"));
  const flipped = Buffer.from((P256_ORDER - s).toString(16).padStart(64, "0"), "hex");
  return Buffer.concat([raw.subarray(0, 32), flipped]).toString("base64");
}

/** The same signature as ASN.1 DER `SEQUENCE { INTEGER r, INTEGER s }`. */
function toDer(signatureBase64: string): string {
  const raw = Buffer.from(signatureBase64, "base64");
  const integer = (bytes: Buffer): Buffer => {
    let start = 0;
    while (start < bytes.length - 1 && bytes[start] === 0) start += 1;
    let body = bytes.subarray(start);
    if ((body[0] ?? 0) & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
    return Buffer.concat([Buffer.from([0x02, body.length]), body]);
  };
  const content = Buffer.concat([integer(raw.subarray(0, 32)), integer(raw.subarray(32))]);
  return Buffer.concat([Buffer.from([0x30, content.length]), content]).toString("base64");
}

type Session = CaptureArtifactSession & Record<string, unknown>;

const BASE_SESSION: Session = {
  clientSessionId: "6f1c2f9e-8b1a-4c3d-9e2f-1a2b3c4d5e6f",
  organizationId: "org_abc123",
  deviceId: "dev_7Qm2",
  noticeId: "ntc_4p9x",
  noticeVersion: 3,
  noticeLocale: "en-IN",
  purposeGrants: [
    {
      purposeKey: "service_delivery",
      purposeLabel: "Service delivery",
      category: "essential",
      status: "opt_in",
    },
    { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "opt_out" },
    { purposeKey: "analytics", purposeLabel: "Analytics", category: "non_essential", status: "opt_in" },
  ],
  dataTypes: ["phone", "name", "email"],
  principalHandle: { kind: "phone_hash", value: "+919876543210" },
  capturedAtClient: 1700000000000,
  channel: "agent_app",
};

function session(changes: Record<string, unknown>): Session {
  return { ...BASE_SESSION, ...changes } as Session;
}

export function buildCaptureArtifactVectors(
  existing?: unknown,
  options: { force?: boolean } = {},
): JsonObject {
  const previous = !options.force && isRecord(existing) ? existing : undefined;
  const previousKeys = previous?.testKeys as TestKeys | undefined;
  const keys: TestKeys = previousKeys ?? {
    device: newKey("prime256v1"),
    otherDevice: newKey("prime256v1"),
    secp256k1: newKey("secp256k1"),
    malformed: { publicKeySpkiBase64: MALFORMED_SPKI },
  };
  const previousCases = new Map<string, Record<string, unknown>>();
  if (Array.isArray(previous?.cases)) {
    for (const c of previous.cases as unknown[]) if (isRecord(c)) previousCases.set(String(c.id), c);
  }
  /** The stored signature of this case if it still verifies over `canonical`, else a fresh one. */
  const signatureFor = (id: string, keyName: "device" | "secp256k1", canonical: string): string => {
    const stored = previousCases.get(id)?.input;
    const signature = isRecord(stored) ? stored.signature : undefined;
    if (typeof signature === "string" && rawVerify(keys[keyName], canonical, signature)) return signature;
    return sign("sha256", Buffer.from(canonical, "utf8"), {
      key: privateKeyOf(keys[keyName]),
      dsaEncoding: "ieee-p1363",
    }).toString("base64");
  };

  const signed = (id: string, comment: string, flags: string[], input: Session): VectorCase => {
    const canonical = canonicalizeCaptureArtifact(input);
    return {
      id,
      comment,
      flags,
      input: json({ session: input, publicKey: "device", signature: signatureFor(id, "device", canonical) }),
      canonical,
      canonicalUtf8Hex: utf8Hex(canonical),
      result: "valid",
    };
  };
  const refused = (id: string, comment: string, flags: string[], input: Session): VectorCase => {
    try {
      canonicalizeCaptureArtifact(input);
    } catch (error) {
      if (!(error instanceof CaptureArtifactError)) throw error;
      const { code, field } = error;
      return {
        id,
        comment,
        flags,
        input: json({ session: input }),
        result: "invalid",
        error: { code, field },
      };
    }
    throw new Error(`${id}: expected canonicalisation to fail`);
  };
  /** A signature case over `input` with a given key and signature; canonical is recorded. */
  const checked = (
    id: string,
    comment: string,
    flags: string[],
    input: Session,
    publicKey: keyof TestKeys,
    signature: string,
    result: "valid" | "invalid",
  ): VectorCase => {
    const canonical = canonicalizeCaptureArtifact(input);
    return {
      id,
      comment,
      flags,
      input: json({ session: input, publicKey, signature }),
      canonical,
      canonicalUtf8Hex: utf8Hex(canonical),
      result,
    };
  };

  const basic = signed(
    "basic",
    "Three grants given out of order, sorted by purposeKey; dataTypes sorted; a phone handle signed raw.",
    ["grant-sorting", "principal-handle"],
    BASE_SESSION,
  );
  const basicSignature = (basic.input as { signature: string }).signature;

  const cases: VectorCase[] = [
    basic,
    signed(
      "unsigned-fields-ignored",
      "purposeLabel, category, linkId and deviceSignature are not signed: same canonical string as `basic`.",
      ["unsigned-fields"],
      session({
        purposeGrants: BASE_SESSION.purposeGrants.map((grant) => ({
          ...grant,
          purposeLabel: "(relabelled)",
        })),
        linkId: "lnk_2b7d",
        deviceSignature: "(ignored)",
      }),
    ),
    signed(
      "multibyte-devanagari",
      "Hindi locale, purposeKeys and dataTypes: each length is in UTF-8 bytes (3 per Devanagari letter), " +
        "not characters. The locale is opaque text to the canonical form.",
      ["non-ascii", "byte-length", "grant-sorting"],
      session({
        noticeLocale: "हिन्दी",
        purposeGrants: [
          { purposeKey: "विपणन", purposeLabel: "विपणन", category: "non_essential", status: "opt_out" },
          { purposeKey: "सेवा", purposeLabel: "सेवा", category: "essential", status: "opt_in" },
          { purposeKey: "विश्लेषण", purposeLabel: "विश्लेषण", category: "non_essential", status: "opt_in" },
        ],
        dataTypes: ["मोबाइल", "नाम", "ईमेल"],
        principalHandle: { kind: "uhid", value: "UHID-12-3456-7890" },
        channel: "qr",
      }),
    ),
    signed(
      "utf8-order-differs-from-utf16",
      "UTF-8 byte order puts U+FF61 (EF BD A1) before U+1F600 (F0 9F 98 80); JavaScript's default sort " +
        "(UTF-16 code units) would put U+1F600 (D83D ...) first. Unlike the audit hash, sort by bytes here.",
      ["non-ascii", "utf8-order-differs-from-utf16-order", "grant-sorting"],
      session({
        purposeGrants: [
          {
            purposeKey: "\u{1F600}offers",
            purposeLabel: "Offers",
            category: "non_essential",
            status: "opt_in",
          },
          { purposeKey: "\uFF61notices", purposeLabel: "Notices", category: "essential", status: "opt_in" },
          { purposeKey: "zeta", purposeLabel: "Zeta", category: "non_essential", status: "opt_out" },
        ],
        dataTypes: ["\u{1F600}", "\uFF61", "a", "Z"],
      }),
    ),
    signed(
      "sorting-ascii-and-duplicates",
      'Byte order: uppercase before lowercase, "10" before "9", a prefix before its extensions. Duplicate ' +
        "dataTypes are kept (only purposeKeys must be unique).",
      ["grant-sorting", "duplicates"],
      session({
        purposeGrants: ["b", "B", "ab", "a", "a_b", "9", "10"].map((purposeKey, index) => ({
          purposeKey,
          purposeLabel: purposeKey,
          category: "non_essential",
          status: index % 2 === 0 ? "opt_in" : "opt_out",
        })),
        dataTypes: ["email", "Email", "email"],
        channel: "async_link",
      }),
    ),
    signed(
      "no-principal-handle",
      "No principalHandle: kind `none`, value the four letters `null`.",
      ["principal-handle-absent"],
      (() => {
        const { principalHandle: _absent, ...rest } = session({ channel: "pos" });
        return rest as Session;
      })(),
    ),
    signed(
      "null-principal-handle",
      "principalHandle null is the same as absent.",
      ["principal-handle-absent"],
      session({ principalHandle: null, channel: "pos" }),
    ),
    signed(
      "separators-inside-values",
      'Values holding "|" and ":" need no escaping: the byte-length prefix frames every token.',
      ["framing"],
      session({
        clientSessionId: "9b2e|4:x",
        deviceId: "dev|7:Qm",
        principalHandle: { kind: "cbs_ref", value: "CBS|0042:7" },
        channel: "ivr",
      }),
    ),
    signed(
      "normalisation-distinct-keys",
      "Precomposed U+00E9 and e + U+0301 are different purposeKeys (no normalisation, so no duplicate), " +
        "ordered by their bytes (65 CC 81 < C3 A9).",
      ["non-ascii", "no-normalisation", "grant-sorting"],
      session({
        purposeGrants: [
          { purposeKey: "caf\u00e9", purposeLabel: "Café", category: "non_essential", status: "opt_in" },
          { purposeKey: "cafe\u0301", purposeLabel: "Café", category: "non_essential", status: "opt_out" },
        ],
      }),
    ),
    signed(
      "large-integers",
      "The largest safe integers, in plain decimal.",
      ["large-integer"],
      session({ noticeVersion: Number.MAX_SAFE_INTEGER, capturedAtClient: 253402300799999 }),
    ),
    checked(
      "tampered-grant-status",
      "`basic` with marketing flipped to opt_in, presented with basic's signature.",
      ["tampered"],
      session({
        purposeGrants: BASE_SESSION.purposeGrants.map((grant) =>
          grant.purposeKey === "marketing" ? { ...grant, status: "opt_in" } : grant,
        ),
      }),
      "device",
      basicSignature,
      "invalid",
    ),
    checked(
      "tampered-locale",
      "`basic` with another locale: the language shown is signed evidence (DPDP s. 5(3)).",
      ["tampered"],
      session({ noticeLocale: "hi-IN" }),
      "device",
      basicSignature,
      "invalid",
    ),
    checked(
      "wrong-device-key",
      "basic's signature checked with another device's P-256 key.",
      ["wrong-key"],
      BASE_SESSION,
      "otherDevice",
      basicSignature,
      "invalid",
    ),
    checked(
      "secp256k1-key-refused",
      "A correct secp256k1 signature over basic's canonical string: also 64 bytes, but not P-256, so refused.",
      ["wrong-curve"],
      BASE_SESSION,
      "secp256k1",
      signatureFor("secp256k1-key-refused", "secp256k1", basic.canonical as string),
      "invalid",
    ),
    checked(
      "malformed-public-key",
      "A truncated SPKI: verification answers false and does not throw.",
      ["malformed-key"],
      BASE_SESSION,
      "malformed",
      basicSignature,
      "invalid",
    ),
    checked(
      "signature-other-s",
      "(r, n - s) of basic's signature is valid too: devices do not normalise S, so neither does the check.",
      ["s-malleability"],
      BASE_SESSION,
      "device",
      otherS(basicSignature),
      "valid",
    ),
    checked(
      "signature-der",
      "basic's signature DER-encoded: only raw 64-byte r||s is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      toDer(basicSignature),
      "invalid",
    ),
    checked(
      "signature-truncated",
      "The first 63 bytes of basic's signature.",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.from(basicSignature, "base64").subarray(0, 63).toString("base64"),
      "invalid",
    ),
    checked(
      "signature-unpadded-base64",
      "basic's signature without its '==' padding: only canonical padded base64 is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      basicSignature.replace(/=+$/, ""),
      "invalid",
    ),
    checked(
      "signature-base64url",
      "basic's signature in the URL-safe alphabet: only standard base64 is accepted.",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.from(basicSignature, "base64").toString("base64url") + "==",
      "invalid",
    ),
    checked(
      "signature-zero",
      "64 zero bytes (r = s = 0).",
      ["encoding"],
      BASE_SESSION,
      "device",
      Buffer.alloc(64).toString("base64"),
      "invalid",
    ),
    refused(
      "duplicate-purpose-key",
      "marketing appears twice: not an artefact. The field names the second occurrence, in input order.",
      ["duplicate-purpose-key"],
      session({
        purposeGrants: [
          ...BASE_SESSION.purposeGrants,
          {
            purposeKey: "marketing",
            purposeLabel: "Marketing",
            category: "non_essential",
            status: "opt_out",
          },
        ],
      }),
    ),
    refused(
      "duplicate-purpose-key-conflicting-status",
      "The same purposeKey opted in and out.",
      ["duplicate-purpose-key"],
      session({
        purposeGrants: [
          { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "opt_in" },
          {
            purposeKey: "marketing",
            purposeLabel: "Marketing",
            category: "non_essential",
            status: "opt_out",
          },
        ],
      }),
    ),
    refused(
      "invalid-channel",
      "A channel outside qr, agent_app, pos, async_link, ivr.",
      ["enum"],
      session({ channel: "kiosk" }),
    ),
    refused(
      "invalid-grant-status",
      "A status outside opt_in, opt_out.",
      ["enum"],
      session({
        purposeGrants: [
          { purposeKey: "marketing", purposeLabel: "Marketing", category: "non_essential", status: "yes" },
        ],
      }),
    ),
    refused(
      "invalid-principal-handle-kind",
      "A handle kind outside phone_hash, uhid, cbs_ref, none.",
      ["enum"],
      session({ principalHandle: { kind: "email", value: "a@example.com" } }),
    ),
    refused(
      "fractional-notice-version",
      "noticeVersion must be a non-negative safe integer.",
      ["bad-integer"],
      session({ noticeVersion: 1.5 }),
    ),
    refused(
      "negative-captured-at",
      "capturedAtClient must be a non-negative safe integer.",
      ["bad-integer"],
      session({ capturedAtClient: -1 }),
    ),
    refused(
      "missing-notice-locale",
      "A signed field that is absent.",
      ["missing-field"],
      (() => {
        const { noticeLocale: _absent, ...rest } = BASE_SESSION;
        return rest as Session;
      })(),
    ),
    refused(
      "lone-surrogate",
      "An unpaired surrogate has no UTF-8 encoding.",
      ["lone-surrogate"],
      session({
        purposeGrants: [
          { purposeKey: "offers\uD83D", purposeLabel: "Offers", category: "non_essential", status: "opt_in" },
        ],
      }),
    ),
  ];
  return vectorFile(
    {
      algorithm: "dpdpcca/2, ECDSA P-256 SHA-256, signature base64 of raw r||s (IEEE P1363)",
      description:
        "Golden vectors for the offline capture artefact (spec: contract/specs/capture-artifact.md). When a case " +
        "has `canonical`: canonicalize(input.session) must equal it, its UTF-8 bytes are `canonicalUtf8Hex`, and " +
        "verifying `input.signature` over it with testKeys[input.publicKey].publicKeySpkiBase64 must give " +
        "`result`. When a case has `error`: canonicalize(input.session) must fail with `error.code` " +
        "(duplicate_purpose_key | invalid_field) at `error.field`. The keys are test keys: never enrol them.",
      testKeys: json(keys),
    },
    cases,
  );
}
